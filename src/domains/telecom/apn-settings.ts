import { ToolError } from "../../env/world.js";
import { pydanticErrorText, pydanticLaxInt, pyTypeName, type PydanticIssue } from "../../python/py-values.js";
import { APN_NAMES, ApnSettingsSchema, type ApnSettings } from "./user-db-schema.js";

/**
 * Read APN settings given as a dict, as the reference does (`APNSettings(**settings)`, pydantic's lax
 * mode): missing fields take their defaults, unknown fields are refused. An invalid dict fails with
 * pydantic's error text, so lenient replays of τ² trajectories print what the reference printed.
 */
export function parseApnSettings(raw: unknown): ApnSettings {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ToolError(
      `APNSettings() argument after ** must be a mapping, not ${pyTypeName(raw)}`,
      "TypeError",
    );
  }
  const input = raw as Record<string, unknown>;
  const errors: PydanticIssue[] = [];
  const value: Record<string, unknown> = {};
  const fail = (field: string, message: string, type: string, given: unknown) =>
    errors.push({ loc: [field], message, type, input: given });

  for (const field of Object.keys(ApnSettingsSchema.shape) as Array<keyof ApnSettings>) {
    if (!(field in input)) continue;
    const given = input[field];
    if (field === "apn_name") {
      if (typeof given === "string" && (APN_NAMES as readonly string[]).includes(given)) value[field] = given;
      else fail(field, `Input should be ${APN_NAMES.map((n) => `'${n}'`).join(" or ")}`, "enum", given);
    } else if (field === "reset_at_reboot") {
      const parsed = laxBool(given);
      if (typeof parsed === "boolean") value[field] = parsed;
      else fail(field, parsed.message, parsed.type, given);
    } else if (field === "mms_port") {
      const parsed = laxIntOrNone(given);
      if (typeof parsed === "number" || parsed === null) value[field] = parsed;
      else fail(field, parsed.message, parsed.type, given);
    } else if (given === null || typeof given === "string") {
      value[field] = given;
    } else {
      fail(field, "Input should be a valid string", "string_type", given);
    }
  }
  for (const key of Object.keys(input)) {
    if (!(key in ApnSettingsSchema.shape))
      fail(key, "Extra inputs are not permitted", "extra_forbidden", input[key]);
  }
  if (errors.length > 0) throw new ToolError(pydanticErrorText("APNSettings", errors), "ValidationError");
  return ApnSettingsSchema.parse(value);
}

type LaxFailure = { message: string; type: string };

const TRUE_WORDS = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE_WORDS = new Set(["0", "off", "f", "false", "n", "no"]);

function laxBool(given: unknown): boolean | LaxFailure {
  if (typeof given === "boolean") return given;
  if (typeof given === "number" && (given === 0 || given === 1)) return given === 1;
  if (typeof given === "string") {
    const word = given.toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  if (typeof given === "string" || typeof given === "number") {
    return { message: "Input should be a valid boolean, unable to interpret input", type: "bool_parsing" };
  }
  return { message: "Input should be a valid boolean", type: "bool_type" };
}

function laxIntOrNone(given: unknown): number | null | LaxFailure {
  return given === null ? null : pydanticLaxInt(given);
}
