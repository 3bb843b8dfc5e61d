import { isPyFloat, parseJsonKeepingPyFloats } from "../python/py-float.js";
import { jsonSyntaxError } from "../formats/ordered-json.js";
import { PyFloat } from "./py-float.js";

/**
 * Parse JSON as Python's `json.loads` would type it: a number written with a point or an exponent is a
 * float, so whole ones (`2.0`, `1e3`) come back as `PyFloat`; all other values are plain JSON. Key
 * order is JavaScript's (integer-like keys first), which is the file's order for the identifier-like
 * keys component files use. Syntax errors are JsonSyntaxErrors with their offset.
 *
 * The float detection is the env's (`parseJsonKeepingPyFloats` marks whole floats on their holder);
 * the marks are turned into `PyFloat`s here, which composition carries along (see py-float.ts).
 */
export function parseJsonWithFloats(text: string): unknown {
  let value: unknown;
  try {
    value = parseJsonKeepingPyFloats(text);
  } catch (error) {
    throw jsonSyntaxError(text, error);
  }
  // A number at the top level has no holder to carry a mark.
  if (typeof value === "number")
    return Number.isInteger(value) && /[.eE]/.test(text) ? new PyFloat(value) : value;
  wrapMarkedFloats(value);
  return value;
}

/** Replace, in place, every whole number marked as a float by a `PyFloat`. */
function wrapMarkedFloats(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  const holder = value as Record<string, unknown>;
  for (const key of Object.keys(holder)) {
    const child = holder[key];
    if (typeof child !== "number") wrapMarkedFloats(child);
    else if (Number.isInteger(child) && isPyFloat(holder, key)) holder[key] = new PyFloat(child);
  }
}
