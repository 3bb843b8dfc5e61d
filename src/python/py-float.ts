import { randomBytes } from "node:crypto";
import { pyFloatRepr, pyNumberStr } from "./py-json.js";

/**
 * Python tells `2.0` from `2`; a JavaScript number does not. The difference shows wherever the
 * reference prints a raw tool argument (telecom `refuel_data`: f"added {gb_amount} GB" gives
 * `2.0 GB` for the task's `2.0` but `50 GB` for a model's `50`). Parsers of τ² files therefore mark
 * integral numbers written as floats on the object or array that holds them, and the world carries
 * the marks over to the copy of the arguments a tool receives. Unmarked numbers read as Python ints
 * when integral, which is what `JSON.parse` of `50` means in Python too.
 *
 * Marked values stay plain JSON (zod and arithmetic see numbers), which is why this is the float of
 * typed data and tool arguments. Two other places need their own: schema-less records that tools change
 * in place hold a `PyFloat` (py-float-value.ts: a mark would not follow an immer copy of its record),
 * and the calculator's expression values tag ints and floats (py-arithmetic.ts: ints there are BigInts).
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

// A tag no input can forge: the random part differs in every process, so a string that happens to
// start like a tag (a hostile agent's argument) stays a string.
const SENTINEL = `\u0000passk-py-float-${randomBytes(8).toString("hex")}:`;
const CANDIDATE = /\d\.0+(?!\d)|\d[eE][+-]?\d/;

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const PLUS = 43;
const LOWER_E = 101;
const UPPER_E = 69;

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

/**
 * The numbers of a JSON text written with a fraction or an exponent whose value is integral (`2.0`,
 * `1e3`), inside an object or array: start and end offsets, in document order. One pass over the text,
 * each character looked at once, so any input costs linear time (a backtracking regex over a long
 * run of digits cost quadratic time: hostile JSON held the event loop for minutes). Text that is not
 * JSON gives some spans; `JSON.parse` refuses it afterwards anyway.
 */
function integralFloatSpans(text: string): number[] {
  const spans: number[] = [];
  const end = text.length;
  let depth = 0;
  let i = 0;
  while (i < end) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      for (i++; i < end; i++) {
        const inside = text.charCodeAt(i);
        if (inside === BACKSLASH) i++;
        else if (inside === QUOTE) break;
      }
      i++;
    } else if (code === MINUS || isDigit(code)) {
      const start = i;
      i++;
      while (i < end && isDigit(text.charCodeAt(i))) i++;
      let float = false;
      if (text.charCodeAt(i) === DOT) {
        float = true;
        for (i++; i < end && isDigit(text.charCodeAt(i)); i++);
      }
      const e = text.charCodeAt(i);
      if (e === LOWER_E || e === UPPER_E) {
        float = true;
        i++;
        const sign = text.charCodeAt(i);
        if (sign === PLUS || sign === MINUS) i++;
        while (i < end && isDigit(text.charCodeAt(i))) i++;
      }
      if (float && depth > 0 && Number.isInteger(Number(text.slice(start, i)))) spans.push(start, i);
    } else {
      // Brackets seen inside strings were skipped above, so the depth is the JSON nesting.
      if (code === 123 || code === 91) depth++;
      else if (code === 125 || code === 93) depth--;
      i++;
    }
  }
  return spans;
}

/**
 * `JSON.parse`, marking integral numbers written as floats (`2.0`, `1e3`) with {@link markPyFloat}.
 * A text without such a number costs one regex test more than `JSON.parse`; one with them, one linear
 * scan more. Text that is not JSON throws `JSON.parse`'s own error for it.
 */
export function parseJsonKeepingPyFloats(text: string): unknown {
  if (!CANDIDATE.test(text)) return JSON.parse(text);
  const spans = integralFloatSpans(text);
  if (spans.length === 0) return JSON.parse(text);
  const parts: string[] = [];
  let last = 0;
  for (let s = 0; s < spans.length; s += 2) {
    const start = spans[s]!;
    const stop = spans[s + 1]!;
    parts.push(text.slice(last, start), `"\\u0000${SENTINEL.slice(1)}${text.slice(start, stop)}"`);
    last = stop;
  }
  parts.push(text.slice(last));
  let value: unknown;
  try {
    value = JSON.parse(parts.join(""));
  } catch (error) {
    JSON.parse(text); // the error as the caller's own text shows it
    throw error;
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

const FLOAT_TAG = new RegExp(`"\\\\u0000${SENTINEL.slice(1)}(-?\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?)"`, "g");

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
