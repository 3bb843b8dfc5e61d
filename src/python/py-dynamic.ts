import { isPyFloat } from "./py-float.js";
import { PyFloat } from "./py-float-value.js";
import { PyException } from "./py-exception.js";
import { pyFixed, pyRound } from "./py-round.js";
import { pyFloatStr, pyRepr, pyTypeName } from "./py-values.js";
import { formatPyJson } from "./py-json-indent.js";
import { toPyJson } from "./py-json.js";
import { ANY_SHAPE } from "./py-shape.js";

// Python's dynamic values, for tools written as plain Python over free-form data (τ²'s banking tools):
// arguments arrive untyped (raw JSON from the model, or `json.loads(..., parse_int=float)` of a string),
// land in records and are printed by f-strings. These helpers give Python's behaviour on such values — truthiness, `str()`,
// format specs, `float()`, comparisons — including the exceptions it raises on the wrong types. Values:
// null, booleans, strings, ints (JS numbers), floats (`PyFloat`), lists (arrays), dicts (objects, Maps).

/** A tool argument as Python sees it: a JSON number marked as written `2.0` (py-float.ts) is a float. */
export function argValue(args: object, key: string): unknown {
  const value = (args as Record<string, unknown>)[key];
  if (typeof value === "number")
    return isPyFloat(args, key) || !Number.isInteger(value) ? new PyFloat(value) : value;
  return toPython(value);
}

/** Raw JSON (floats marked, see py-float.ts) as Python values, deeply. */
export function toPython(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((_, i) => argValue(value, String(i)));
  if (value instanceof Map || value instanceof PyFloat || value === null || typeof value !== "object")
    return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = argValue(value, key);
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/** `type(value).__name__`. */
export function typeName(value: unknown): string {
  return pyTypeName(value instanceof Map ? {} : value);
}

/** Python truthiness (`if value:`). */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === true) return true;
  if (typeof value === "number") return value !== 0;
  if (value instanceof PyFloat) return value.value !== 0;
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  return Object.keys(value).length > 0;
}

/** `str(value)`: what an f-string `{value}` prints. */
export function str(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof PyFloat) return pyFloatStr(value.value);
  return pyRepr(value);
}

/** The numeric value of an int, float or bool, else undefined. */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return undefined;
}

/** `f"{value:.{digits}f}"`. */
export function fixed(value: unknown, digits: number): string {
  const n = numberOf(value);
  if (n !== undefined) return formatFloat(n, digits);
  if (typeof value === "string")
    throw new PyException(`Unknown format code 'f' for object of type 'str'`, "ValueError");
  throw new PyException(`unsupported format string passed to ${typeName(value)}.__format__`, "TypeError");
}

function formatFloat(n: number, digits: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  return pyFixed(n, digits);
}

/** `f"{value:,}"` of an int (thousands separators). */
export function thousands(value: unknown): string {
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value).toLocaleString("en-US");
  const n = numberOf(value);
  if (value instanceof PyFloat && n !== undefined) {
    const repr = pyFloatStr(n);
    const [whole, rest] = repr.split(".");
    return `${BigInt(whole!).toLocaleString("en-US")}${rest !== undefined ? `.${rest}` : ""}`;
  }
  if (typeof value === "string") throw new PyException(`Cannot specify ',' with 's'.`, "ValueError");
  throw new PyException(`unsupported format string passed to ${typeName(value)}.__format__`, "TypeError");
}

/** `float(value)`, with Python's errors. */
export function toFloat(value: unknown): number {
  const n = numberOf(value);
  if (n !== undefined) return n;
  if (typeof value === "string") {
    const parsed = parseFloatText(value);
    if (parsed === undefined)
      throw new PyException(`could not convert string to float: ${pyRepr(value)}`, "ValueError");
    return parsed;
  }
  throw new PyException(
    `float() argument must be a string or a real number, not '${typeName(value)}'`,
    "TypeError",
  );
}

/** Python's `float(str)`: surrounding whitespace, `_` between digits, `inf`, `nan`. */
function parseFloatText(text: string): number | undefined {
  const t = text.trim();
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(t);
  if (special) {
    const sign = special[1] === "-" ? -1 : 1;
    return special[2]!.toLowerCase() === "nan" ? Number.NaN : sign * Infinity;
  }
  if (!/^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/.test(t))
    return undefined;
  return Number(t.replace(/_/g, ""));
}

/** `int(value)` of a number (truncating) or a string of digits. */
export function toInt(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof PyFloat) {
    if (Number.isNaN(value.value)) throw new PyException("cannot convert float NaN to integer", "ValueError");
    if (!Number.isFinite(value.value))
      throw new PyException("cannot convert float infinity to integer", "OverflowError");
    return Math.trunc(value.value);
  }
  if (typeof value === "string") {
    const t = value.trim();
    if (/^[+-]?\d(?:_?\d)*$/.test(t)) return Number(t.replace(/_/g, ""));
    throw new PyException(`invalid literal for int() with base 10: ${pyRepr(value)}`, "ValueError");
  }
  throw new PyException(
    `int() argument must be a string, a bytes-like object or a real number, not '${typeName(value)}'`,
    "TypeError",
  );
}

/** A Python float value. */
export function float(value: number): PyFloat {
  return new PyFloat(value);
}

/** `round(value, digits)` of a float. */
export function round(value: number, digits: number): PyFloat {
  return new PyFloat(pyRound(value, digits));
}

export type Comparison = "<" | "<=" | ">" | ">=";

/** `a < b` and friends: numbers (and bools) with numbers, strings with strings; else a TypeError. */
export function compare(a: unknown, op: Comparison, b: unknown): boolean {
  const x = numberOf(a);
  const y = numberOf(b);
  let result: boolean;
  if (x !== undefined && y !== undefined) {
    result = op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
  } else if (typeof a === "string" && typeof b === "string") {
    result = op === "<" ? a < b : op === "<=" ? a <= b : op === ">" ? a > b : a >= b;
  } else {
    throw new PyException(
      `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`,
      "TypeError",
    );
  }
  return result;
}

/** Python `a == b` for free-form values (`1 == 1.0 == True`). */
export function equals(a: unknown, b: unknown): boolean {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x !== undefined && y !== undefined) return x === y;
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (a === null || b === null || a === undefined || b === undefined) return a === b;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => equals(v, b[i]));
  const da = dictEntries(a);
  const db = dictEntries(b);
  if (!da || !db || da.length !== db.length) return false;
  const other = new Map(db);
  return da.every(([k, v]) => other.has(k) && equals(v, other.get(k)));
}

/** The entries of a dict (plain object or Map), or undefined for other values. */
export function dictEntries(value: unknown): Array<[string, unknown]> | undefined {
  if (value instanceof Map) return [...(value as Map<string, unknown>)];
  if (value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof PyFloat))
    return Object.entries(value);
  return undefined;
}

/** `value in options` for a list of strings. */
export function isOneOf(value: unknown, options: readonly string[]): boolean {
  return typeof value === "string" && options.includes(value);
}

/** `value.method()` of a str method; AttributeError for other types. */
function strMethod(value: unknown, method: string): string {
  if (typeof value === "string") return value;
  throw new PyException(`'${typeName(value)}' object has no attribute '${method}'`, "AttributeError");
}

export function upper(value: unknown): string {
  return strMethod(value, "upper").toUpperCase();
}

export function lower(value: unknown): string {
  return strMethod(value, "lower").toLowerCase();
}

/** `value.replace('_', ' ').title()`. */
export function titleWords(value: unknown): string {
  return title(strMethod(value, "replace").replaceAll("_", " "));
}

/** Python `str.title()`: a letter after a non-letter is upper-cased, the rest lower-cased. */
export function title(text: string): string {
  let out = "";
  let previousCased = false;
  for (const char of text) {
    const isLetter = char.toLowerCase() !== char.toUpperCase();
    out += isLetter ? (previousCased ? char.toLowerCase() : char.toUpperCase()) : char;
    previousCased = isLetter;
  }
  return out;
}

/** `value.isdigit()` of a str argument (ASCII digits; the reference's arguments are ASCII). */
export function isDigits(value: unknown): boolean {
  const text = strMethod(value, "isdigit");
  return text.length > 0 && /^[0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19²³¹⁰-⁹]+$/u.test(text);
}

/** `len(value)` of a str, list or dict. */
export function len(value: unknown): number {
  if (typeof value === "string") return [...value].length;
  if (Array.isArray(value)) return value.length;
  const entries = dictEntries(value);
  if (entries) return entries.length;
  throw new PyException(`object of type '${typeName(value)}' has no len()`, "TypeError");
}

/** `json.dumps(value, indent=2)`. */
export function jsonDumpsIndented(value: unknown): string {
  return formatPyJson(value, 2);
}

/** `json.dumps(value, sort_keys=True)`. */
export function jsonDumpsSorted(value: unknown): string {
  return toPyJson(value, ANY_SHAPE, { mode: "dump", sortKeys: true });
}

/** `a + b` of numbers: an int when both are ints, else a float. */
export function add(a: unknown, b: unknown): number | PyFloat {
  return arithmetic(a, b, "+", (x, y) => x + y);
}

export function subtract(a: unknown, b: unknown): number | PyFloat {
  return arithmetic(a, b, "-", (x, y) => x - y);
}

export function multiply(a: unknown, b: unknown): number | PyFloat {
  return arithmetic(a, b, "*", (x, y) => x * y);
}

function arithmetic(
  a: unknown,
  b: unknown,
  op: string,
  apply: (x: number, y: number) => number,
): number | PyFloat {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === undefined || y === undefined)
    throw new PyException(
      `unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`,
      "TypeError",
    );
  const value = apply(x, y);
  return a instanceof PyFloat || b instanceof PyFloat ? new PyFloat(value) : value;
}

/** Unary minus. */
export function negate(value: unknown): number | PyFloat {
  if (value instanceof PyFloat) return new PyFloat(-value.value);
  const n = numberOf(value);
  if (n === undefined)
    throw new PyException(`bad operand type for unary -: '${typeName(value)}'`, "TypeError");
  return -n;
}
