import { pyFloatRepr } from "../../env/py-json.js";
import { ToolError } from "../../env/world.js";

// How the reference (Python) names and prints JSON values. In lenient mode a tool receives the model's
// raw arguments, and the reference's error texts quote them with `str()`, `repr()` and `type().__name__`.

/** `type(value).__name__` of a value parsed from JSON. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** `repr(value)`: `'text'`, `True`, `None`, `[1, 'a']`, `{'k': 2}`. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return pyStrRepr(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return pyNumber(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  const entries = value instanceof Map ? [...(value as Map<unknown, unknown>)] : Object.entries(value);
  return `{${entries.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
}

/** `str(value)`: strings as they are, everything else as `repr`. */
export function pyStr(value: unknown): string {
  return typeof value === "string" ? value : pyRepr(value);
}

/** A JSON number as Python prints it: integral values as ints, others through float `repr`. */
export function pyNumber(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? "inf" : value < 0 ? "-inf" : "nan";
  return Number.isInteger(value) && Math.abs(value) < 1e16 ? String(value) : pyFloatRepr(value);
}

function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0xad)
      out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16)}`;
    else out += char;
  }
  return out + quote;
}

/**
 * `key in dict` / `dict[key]` with a raw key: strings are looked up, other scalars are simply absent,
 * and lists or dicts raise Python's `unhashable type` TypeError.
 */
export function pyDictGet<V>(map: ReadonlyMap<string, V>, key: unknown): V | undefined {
  if (typeof key === "string") return map.get(key);
  if (key !== null && typeof key === "object")
    throw new ToolError(`unhashable type: '${pyTypeName(key)}'`, "TypeError");
  return undefined;
}

/**
 * The elements of a raw value as Python's `for x in value` sees them (a list's items, a string's
 * characters, a dict's keys); other values raise "'int' object is not iterable".
 */
export function pyIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  if (value instanceof Map) return [...(value as Map<unknown, unknown>).keys()];
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new ToolError(`'${pyTypeName(value)}' object is not iterable`, "TypeError");
}

/** Python's `isinstance(value, dict)` for a value parsed from JSON. */
export function isPyDict(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A raw argument taking part in Python arithmetic (`50 * nonfree_baggages`): numbers and booleans do;
 * anything else raises the TypeError `describe(type name)` words, as Python would for that expression.
 */
export function pyOperand(value: unknown, describe: (typeName: string) => string): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  throw new ToolError(describe(pyTypeName(value)), "TypeError");
}
