import { ToolError } from "../../env/world.js";
import {
  isPyDict,
  pydanticErrorText,
  pydanticLaxInt,
  pyRepr,
  pyTypeName,
  type PydanticIssue,
} from "../../python/py-values.js";

// In lenient mode the tools build the reference's pydantic models from the model's raw arguments, and
// an invalid value fails there with pydantic's ValidationError text. This reproduces pydantic 2.13's
// lax-mode rules and wording for the field types the airline models use.

/** A field type: a scalar, a fixed set of strings, a list of models, or a model. */
export type PyFieldType =
  "str" | "int" | "float" | { literal: readonly string[] } | { listOf: PyModel } | PyModel;

export interface PyModel {
  readonly name: string;
  readonly fields: ReadonlyArray<readonly [string, PyFieldType]>;
}

/**
 * `Model(**input)`: the validated fields in model order (ints coerced as pydantic does), or a
 * ToolError carrying pydantic's ValidationError text. Unknown keys are ignored, as pydantic does.
 */
export function buildPyModel(model: PyModel, input: Record<string, unknown>): Record<string, unknown> {
  const issues: PydanticIssue[] = [];
  const value = validateFields(model, input, [], issues);
  if (issues.length > 0) throw new ToolError(pydanticErrorText(model.name, issues), "ValidationError");
  return value;
}

/**
 * Python's `if all(isinstance(x, dict) for x in items): items = [Model(**x) for x in items]`: the
 * items as models when all are dicts, otherwise the raw items (which fail later, when used).
 */
export function modelsIfAllDicts(
  model: PyModel,
  items: readonly unknown[],
): { converted: true; items: Record<string, unknown>[] } | { converted: false; items: readonly unknown[] } {
  if (!items.every(isPyDict)) return { converted: false, items };
  return {
    converted: true,
    items: items.map((item) => buildPyModel(model, item as Record<string, unknown>)),
  };
}

/** The AttributeError Python raises when code reads a model field from a raw (non-model) value. */
export function notAModel(value: unknown, field: string): ToolError {
  return new ToolError(`'${pyTypeName(value)}' object has no attribute '${field}'`, "AttributeError");
}

function validateFields(
  model: PyModel,
  input: Record<string, unknown>,
  loc: Array<string | number>,
  issues: PydanticIssue[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, type] of model.fields) {
    if (!(name in input)) {
      issues.push({ loc: [...loc, name], type: "missing", message: "Field required", input });
      continue;
    }
    out[name] = validateValue(type, input[name], [...loc, name], issues);
  }
  return out;
}

function validateValue(
  type: PyFieldType,
  value: unknown,
  loc: Array<string | number>,
  issues: PydanticIssue[],
): unknown {
  const fail = (kind: string, message: string) => {
    issues.push({ loc, type: kind, message, input: value });
    return value;
  };
  if (type === "str")
    return typeof value === "string" ? value : fail("string_type", "Input should be a valid string");
  if (type === "int") return validateInt(value, fail);
  if (type === "float") return validateFloat(value, fail);
  if ("literal" in type) {
    if (typeof value === "string" && type.literal.includes(value)) return value;
    return fail("literal_error", `Input should be ${orList(type.literal.map((v) => pyRepr(v)))}`);
  }
  if ("listOf" in type) {
    if (!Array.isArray(value)) return fail("list_type", "Input should be a valid list");
    return value.map((item, index) => validateValue(type.listOf, item, [...loc, index], issues));
  }
  if (!isPyDict(value))
    return fail("model_type", `Input should be a valid dictionary or instance of ${type.name}`);
  return validateFields(type, value, loc, issues);
}

type Fail = (kind: string, message: string) => unknown;

function validateInt(value: unknown, fail: Fail): unknown {
  const parsed = pydanticLaxInt(value);
  return typeof parsed === "number" ? parsed : fail(parsed.type, parsed.message);
}

function validateFloat(value: unknown, fail: Fail): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const trimmed = value.trim().replaceAll("_", "");
    if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(trimmed)) return Number(trimmed);
    if (/^[+-]?(?:inf|infinity)$/i.test(trimmed)) return trimmed.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(trimmed)) return NaN;
    return fail("float_parsing", "Input should be a valid number, unable to parse string as a number");
  }
  return fail("float_type", "Input should be a valid number");
}

/** `'a' or 'b'`, `'a', 'b' or 'c'` — pydantic's wording for the allowed values. */
function orList(items: string[]): string {
  return items.length <= 1
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}
