import { PyException } from "./py-exception.js";
import { PyFloat } from "./py-float-value.js";
import { pyFloatRepr } from "./py-json.js";

// In lenient mode a domain's tools receive the model's raw arguments, as the reference does, and must
// fail (or, rarely, succeed) the way Python code does on them; the reference's error texts quote them
// with `str()`, `repr()` and `type().__name__`. These helpers give Python's view of a JSON value: its
// type name, its `str()` and `repr()`, lookups, iteration, `len()`, `list.count()` and `==`.

/** `type(value).__name__` of a JSON value. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (value instanceof PyFloat) return "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** `repr(value)` of a JSON value: `'text'`, `True`, `None`, `[1, 'a']`, `{'k': 2}`. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return stringRepr(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return pyNumber(value);
  if (value instanceof PyFloat) return pyFloatStr(value.value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  const entries = value instanceof Map ? [...(value as Map<unknown, unknown>)] : Object.entries(value);
  return `{${entries.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
}

/** `str(value)`: strings as they are, other values as `repr`. */
export function pyStr(value: unknown): string {
  return typeof value === "string" ? value : pyRepr(value);
}

/**
 * A JSON number as Python prints it: integral values as ints (as `pyTypeName` calls them), others
 * through float `repr`.
 */
export function pyNumber(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  return Number.isInteger(value) ? BigInt(value).toString() : pyFloatRepr(value);
}

/** `repr()` / `str()` of a Python float: `100.0`, `1e-05`, `nan`, `inf`. */
export function pyFloatStr(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  return pyFloatRepr(value);
}

function stringRepr(text: string): string {
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
 * `key in dict` / `dict.get(key)` with a raw key: strings are looked up, other scalars are absent,
 * and lists or dicts raise Python's "unhashable type" TypeError.
 */
export function pyDictGet<V>(map: ReadonlyMap<string, V>, key: unknown): V | undefined {
  if (typeof key === "string") return map.get(key);
  if (key !== null && typeof key === "object") {
    throw new PyException(`unhashable type: '${pyTypeName(key)}'`, "TypeError");
  }
  return undefined;
}

/**
 * What `for x in value` yields: a list's items, a string's characters, a dict's keys; other values
 * raise "'int' object is not iterable".
 */
export function pyIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  if (value instanceof Map) return [...(value as Map<unknown, unknown>).keys()];
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new PyException(`'${pyTypeName(value)}' object is not iterable`, "TypeError");
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
  throw new PyException(describe(pyTypeName(value)), "TypeError");
}

/** `len(value)`. */
export function pyLen(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return [...value].length;
  if (value !== null && typeof value === "object") return Object.keys(value).length;
  throw new PyException(`object of type '${pyTypeName(value)}' has no len()`, "TypeError");
}

/**
 * `value.count(item)` for a list or a string (where the items are its characters, so counting a
 * character and counting a substring agree); dicts have no `count`.
 */
export function pyCount(value: unknown, item: unknown): number {
  if (Array.isArray(value)) return value.filter((x) => pyEquals(x, item)).length;
  if (typeof value === "string") return [...value].filter((x) => x === item).length;
  throw new PyException(`'${pyTypeName(value)}' object has no attribute 'count'`, "AttributeError");
}

/** Python `==` between JSON values (numbers and booleans compare by value, as `True == 1`). */
export function pyEquals(a: unknown, b: unknown): boolean {
  const numeric = (x: unknown) => (typeof x === "boolean" ? Number(x) : x instanceof PyFloat ? x.value : x);
  const x = numeric(a);
  const y = numeric(b);
  if (x === y) return true;
  if (Array.isArray(x) && Array.isArray(y)) {
    return x.length === y.length && x.every((item, i) => pyEquals(item, y[i]));
  }
  if (x && y && typeof x === "object" && typeof y === "object" && !Array.isArray(x) && !Array.isArray(y)) {
    const keys = Object.keys(x);
    return (
      keys.length === Object.keys(y).length &&
      keys.every(
        (k) => k in y && pyEquals((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

/** `sorted(value)` of an iterable whose items are strings (Python orders them by code point). */
export function pySortedStrings(value: unknown): string[] {
  const items = pyIterate(value);
  for (const item of items) {
    if (typeof item !== "string") {
      throw new PyException(
        `'<' not supported between instances of '${pyTypeName(item)}' and 'str'`,
        "TypeError",
      );
    }
  }
  return (items as string[]).slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One problem of a pydantic validation: field path, message, error type and the offending input. */
export interface PydanticIssue {
  loc: readonly (string | number)[];
  message: string;
  type: string;
  input: unknown;
}

/** `str(ValidationError)` of pydantic 2.13, as the reference's tools raise it for raw arguments. */
export function pydanticErrorText(modelName: string, issues: readonly PydanticIssue[]): string {
  const count = issues.length;
  const lines = [`${count} validation error${count === 1 ? "" : "s"} for ${modelName}`];
  for (const issue of issues) {
    lines.push(
      issue.loc.join("."),
      `  ${issue.message} [type=${issue.type}, input_value=${truncatedRepr(issue.input)}, input_type=${pyTypeName(issue.input)}]`,
      `    For further information visit https://errors.pydantic.dev/2.13/v/${issue.type}`,
    );
  }
  return lines.join("\n");
}

/**
 * The input's `repr` as pydantic-core prints it: longer than 50 UTF-8 bytes, it keeps the first 25 and
 * the last 24 bytes (on character boundaries) around `...`.
 */
function truncatedRepr(value: unknown): string {
  const text = pyRepr(value);
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= 50) return text;
  const characters = [...text];
  let head = "";
  for (const char of characters) {
    if (encoder.encode(head + char).length > 25) break;
    head += char;
  }
  let tail = "";
  for (const char of characters.reverse()) {
    if (encoder.encode(char + tail).length > 24) break;
    tail = char + tail;
  }
  return `${head}...${tail}`;
}

/**
 * pydantic 2.13's lax `int` validation of a JSON value: the int, or the failure's error type and
 * message. Strings are stripped and may use `_` between digits and end in `.0…` (`" 1_000.0 "` → 1000).
 */
export function pydanticLaxInt(value: unknown): number | { type: string; message: string } {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") {
    if (Number.isInteger(value)) return value;
    if (!Number.isFinite(value)) return { type: "finite_number", message: "Input should be a finite number" };
    return {
      type: "int_from_float",
      message: "Input should be a valid integer, got a number with a fractional part",
    };
  }
  if (typeof value === "string") {
    const digits = /^[+-]?\d+(?:_\d+)*(?=(?:\.0+)?$)/.exec(value.trim());
    if (digits) return Number(digits[0].replaceAll("_", ""));
    return {
      type: "int_parsing",
      message: "Input should be a valid integer, unable to parse string as an integer",
    };
  }
  return { type: "int_type", message: "Input should be a valid integer" };
}
