import { pyFloatRepr, pyNumberStr } from "./py-json.js";

/**
 * Python tells `2.0` from `2`; a JavaScript number does not. The difference shows wherever the
 * reference prints a raw tool argument (telecom `refuel_data`: f"added {gb_amount} GB" gives
 * `2.0 GB` for the task's `2.0` but `50 GB` for a model's `50`). Parsers of τ² files therefore mark
 * integral numbers written as floats on the object or array that holds them, and the world carries
 * the marks over to the copy of the arguments a tool receives. Unmarked numbers read as Python ints
 * when integral, which is what `JSON.parse` of `50` means in Python too.
 */
const marks = new WeakMap<object, Set<string>>();

/** Record that `holder[key]` was written as a float (e.g. `2.0`). */
export function markPyFloat(holder: object, key: string | number): void {
  let keys = marks.get(holder);
  if (!keys) marks.set(holder, (keys = new Set()));
  keys.add(String(key));
}

/** Whether `holder[key]` is a Python float: marked as one, or a number with a fractional part. */
export function isPyFloat(holder: object, key: string | number): boolean {
  const value = (holder as Record<string, unknown>)[key];
  if (typeof value !== "number") return false;
  return !Number.isInteger(value) || (marks.get(holder)?.has(String(key)) ?? false);
}

/**
 * Copy the float marks of `from` onto `to`, a structural copy of it (a zod parse, a structured
 * clone): same keys, same nesting. Values that are not objects on both sides are skipped.
 */
export function copyPyFloatMarks(from: unknown, to: unknown): void {
  if (from === to || !isContainer(from) || !isContainer(to)) return;
  const keys = marks.get(from);
  if (keys) for (const key of keys) markPyFloat(to, key);
  const source = from as Record<string, unknown>;
  const target = to as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const child = source[key];
    if (isContainer(child)) copyPyFloatMarks(child, target[key]);
  }
}

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null && !(value instanceof Map);
}

/**
 * Python `str()` of a raw argument, as an f-string prints it: floats through `repr` (`2.0`), ints
 * without a point, booleans `True`/`False`, `None`, strings as they are.
 */
export function pyArgStr(args: object, key: string): string {
  const value = (args as Record<string, unknown>)[key];
  if (typeof value === "number") return isPyFloat(args, key) ? pyFloatRepr(value) : pyNumberStr(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value === null || value === undefined) return "None";
  return String(value);
}

// Strings, or numbers that carry a fraction or an exponent (only integral ones need a mark).
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?[eE][+-]?\d+|-?\d+\.\d+/g;
const SENTINEL = "\u0000passk-py-float:";
const CANDIDATE = /\d\.0+(?!\d)|\d[eE][+-]?\d/;

/**
 * `JSON.parse`, marking integral numbers written as floats (`2.0`, `1e3`) with {@link markPyFloat}.
 * Costs one extra pass over the text when it contains such a number, none otherwise.
 */
export function parseJsonKeepingPyFloats(text: string): unknown {
  if (!CANDIDATE.test(text)) return JSON.parse(text);
  let found = false;
  const tagged = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 34 || !Number.isInteger(Number(token))) return token;
    found = true;
    return `"\\u0000${SENTINEL.slice(1)}${token}"`;
  });
  const value: unknown = JSON.parse(tagged);
  return found ? restore(value) : value;
}

function restore(value: unknown): unknown {
  if (typeof value === "string" && value.startsWith(SENTINEL)) return Number(value.slice(SENTINEL.length));
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const child = record[key];
    if (typeof child === "string") {
      if (child.startsWith(SENTINEL)) {
        record[key] = Number(child.slice(SENTINEL.length));
        markPyFloat(record, key);
      }
    } else if (typeof child === "object" && child !== null) {
      restore(child);
    }
  }
  return value;
}
