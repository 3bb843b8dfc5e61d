import { pyFloatRepr, pyNumberStr } from "./py-json.js";

/**
 * Python tells `2.0` from `2`; a JavaScript number does not. The difference shows wherever the
 * reference prints a raw tool argument (telecom `refuel_data`: f"added {gb_amount} GB" gives
 * `2.0 GB` for the task's `2.0` but `50 GB` for a model's `50`). Parsers of τ² files therefore mark
 * integral numbers written as floats on the object or array that holds them, and the world carries
 * the marks over to the copy of the arguments a tool receives. Unmarked numbers read as Python ints
 * when integral, which is what `JSON.parse` of `50` means in Python too.
 *
 * This is passk's only float representation: values stay plain JSON (zod and arithmetic see numbers).
 * A mark belongs to its holder, so whoever copies a holder carries its marks over (`copyPyFloatMarks`:
 * the readers after a zod parse, the world for tool arguments), and the task generator puts the
 * components' own holders into the tasks it composes.
 */
const marks = new WeakMap<object, Set<string>>();
/** Objects with a mark somewhere below them, so copies descend only where marks are. */
const marksBelow = new WeakSet<object>();

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
  if (!marksBelow.has(from)) return;
  marksBelow.add(to);
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

const SENTINEL = "\u0000passk-py-float:";
const CANDIDATE = /\d\.0+(?!\d)|\d[eE][+-]?\d/;
// A number with a fraction or an exponent that ends where a JSON value ends.
const FLOAT_LITERALS = /-?\d+\.\d+(?:[eE][+-]?\d+)?(?=\s*[,\]}])|-?\d+[eE][+-]?\d+(?=\s*[,\]}])/g;
// Every string and every number with a fraction or an exponent, in document order.
const ALL_TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?[eE][+-]?\d+|-?\d+\.\d+/g;

/** A number written as a float whose value is integral (the only ones that need a mark). */
function tagIntegralFloat(token: string): string {
  if (token.charCodeAt(0) === 34 || !/[.eE]/.test(token) || !Number.isInteger(Number(token))) return token;
  return `"\\u0000${SENTINEL.slice(1)}${token}"`;
}

/**
 * `JSON.parse`, marking integral numbers written as floats (`2.0`, `1e3`) with {@link markPyFloat}.
 * A text without such a number costs one regex test more than `JSON.parse`.
 */
export function parseJsonKeepingPyFloats(text: string): unknown {
  if (!CANDIDATE.test(text)) return JSON.parse(text);
  let value: unknown;
  try {
    // Fast path: a look-alike inside a string gets tagged too, but the tag's quote then ends that
    // string early and leaves a backslash outside it: always a syntax error, caught below.
    value = JSON.parse(text.replace(FLOAT_LITERALS, tagIntegralFloat));
  } catch {
    value = JSON.parse(text.replace(ALL_TOKENS, tagIntegralFloat));
  }
  restore(value);
  return value;
}

/** Turn tagged strings back into numbers and mark them; true when `value` holds a mark. */
function restore(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  let marked = false;
  for (const key of Object.keys(record)) {
    const child = record[key];
    if (typeof child === "string") {
      if (child.startsWith(SENTINEL)) {
        record[key] = Number(child.slice(SENTINEL.length));
        markPyFloat(record, key);
        marked = true;
      }
    } else if (typeof child === "object" && child !== null && restore(child)) {
      marksBelow.add(record);
      marked = true;
    }
  }
  return marked;
}

const FLOAT_TAG = /"\\u0000passk-py-float:(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)"/g;

/**
 * `JSON.stringify` that writes a number marked as a Python float with its point (`2.0`, not `2`), so
 * that a value read with {@link parseJsonKeepingPyFloats} (a recorded tool argument) is written back as
 * the reference wrote it. Unmarked values are written exactly as `JSON.stringify` writes them.
 */
export function stringifyKeepingPyFloats(value: unknown, space?: number): string {
  let tagged = false;
  const text = JSON.stringify(
    value,
    function (this: unknown, key: string, child: unknown) {
      if (typeof child === "number" && Number.isInteger(child) && typeof this === "object" && this !== null) {
        if (marks.get(this)?.has(key)) {
          tagged = true;
          return `${SENTINEL}${pyFloatRepr(child)}`;
        }
      }
      return child;
    },
    space,
  );
  return tagged ? text.replace(FLOAT_TAG, "$1") : text;
}
