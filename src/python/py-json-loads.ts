import { PyException } from "./py-exception.js";
import { PyFloat } from "./py-float-value.js";

/**
 * CPython's `json.loads` (3.11, its C scanner): the values it builds and, for text it rejects, its
 * `JSONDecodeError` text (`Expecting ',' delimiter: line 1 column 18 (char 17)`), which tools of the
 * reference return to the model verbatim.
 *
 * Values come back as free-form Python values: strings, booleans, `null`, ints as JS numbers, floats as
 * {@link PyFloat}, lists as arrays, objects as plain objects in the text's key order (a `Map` when a key
 * looks like an array index, which a plain object would move first). With `parseIntAsFloat`
 * (`json.loads(text, parse_int=float)`) every number is a float.
 */
export function pyJsonLoads(text: string, options: { parseIntAsFloat?: boolean } = {}): unknown {
  const chars = Array.from(text);
  if (chars[0] === "\ufeff") throw decodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", chars, 0);
  const scanner = new Scanner(chars, options.parseIntAsFloat ?? false);
  const start = skipWhitespace(chars, 0);
  const [value, end] = scanner.value(start);
  const rest = skipWhitespace(chars, end);
  if (rest !== chars.length) throw decodeError("Extra data", chars, rest);
  return value;
}

/** `json.JSONDecodeError`: a ValueError whose text ends with the position. */
export class PyJsonDecodeError extends PyException {
  constructor(
    message: string,
    readonly msg: string,
    readonly pos: number,
  ) {
    super(message, "JSONDecodeError");
    this.name = "PyJsonDecodeError";
  }
}

function decodeError(msg: string, chars: readonly string[], pos: number): PyJsonDecodeError {
  let line = 1;
  let lastNewline = -1;
  for (let i = 0; i < pos && i < chars.length; i++) {
    if (chars[i] === "\n") {
      line++;
      lastNewline = i;
    }
  }
  const column = pos - lastNewline;
  return new PyJsonDecodeError(`${msg}: line ${line} column ${column} (char ${pos})`, msg, pos);
}

/** No JSON value starts here (the scanner's StopIteration): "Expecting value" at `pos`. */
class NoValue {
  constructor(readonly pos: number) {}
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const INDEX_LIKE_KEY = /^(?:0|[1-9]\d{0,9})$/;

function skipWhitespace(chars: readonly string[], index: number): number {
  let i = index;
  while (i < chars.length && WHITESPACE.has(chars[i]!)) i++;
  return i;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= "0" && char <= "9";
}

class Scanner {
  constructor(
    readonly chars: readonly string[],
    readonly parseIntAsFloat: boolean,
  ) {}

  /** A JSON value at `index` (after whitespace), and the index after it. */
  value(index: number): [unknown, number] {
    try {
      return this.scanOnce(index);
    } catch (error) {
      if (error instanceof NoValue) throw decodeError("Expecting value", this.chars, error.pos);
      throw error;
    }
  }

  scanOnce(index: number): [unknown, number] {
    const chars = this.chars;
    if (index >= chars.length) throw new NoValue(index);
    const char = chars[index]!;
    const word = (literal: string) => chars.slice(index, index + literal.length).join("") === literal;
    switch (char) {
      case '"':
        return this.string(index + 1);
      case "{":
        return this.object(index + 1);
      case "[":
        return this.array(index + 1);
      case "n":
        if (word("null")) return [null, index + 4];
        break;
      case "t":
        if (word("true")) return [true, index + 4];
        break;
      case "f":
        if (word("false")) return [false, index + 5];
        break;
      case "N":
        if (word("NaN")) return [new PyFloat(Number.NaN), index + 3];
        break;
      case "I":
        if (word("Infinity")) return [new PyFloat(Infinity), index + 8];
        break;
      case "-":
        if (word("-Infinity")) return [new PyFloat(-Infinity), index + 9];
        break;
    }
    return this.number(index);
  }

  number(start: number): [unknown, number] {
    const chars = this.chars;
    let i = start;
    if (chars[i] === "-") {
      i++;
      if (i >= chars.length) throw new NoValue(start);
    }
    if (chars[i]! >= "1" && chars[i]! <= "9") {
      i++;
      while (isDigit(chars[i])) i++;
    } else if (chars[i] === "0") {
      i++;
    } else {
      throw new NoValue(start);
    }
    let isFloat = false;
    if (chars[i] === "." && isDigit(chars[i + 1])) {
      isFloat = true;
      i += 2;
      while (isDigit(chars[i])) i++;
    }
    if (chars[i] === "e" || chars[i] === "E") {
      const exponentStart = i;
      i++;
      if (chars[i] === "-" || chars[i] === "+") i++;
      const digitsStart = i;
      while (isDigit(chars[i])) i++;
      if (i > digitsStart) isFloat = true;
      else i = exponentStart;
    }
    const literal = chars.slice(start, i).join("");
    const value = Number(literal);
    return [isFloat || this.parseIntAsFloat ? new PyFloat(value) : value, i];
  }

  string(start: number): [string, number] {
    const chars = this.chars;
    const begin = start - 1;
    let out = "";
    let i = start;
    for (;;) {
      let next = i;
      while (next < chars.length && chars[next] !== '"' && chars[next] !== "\\") {
        if (chars[next]!.codePointAt(0)! <= 0x1f)
          throw decodeError("Invalid control character at", chars, next);
        next++;
      }
      if (next >= chars.length) throw decodeError("Unterminated string starting at", chars, begin);
      out += chars.slice(i, next).join("");
      const terminator = chars[next];
      next++;
      if (terminator === '"') return [out, next];
      if (next === chars.length) throw decodeError("Unterminated string starting at", chars, begin);
      const escape = chars[next]!;
      if (escape !== "u") {
        const simple: Record<string, string> = {
          '"': '"',
          "\\": "\\",
          "/": "/",
          b: "\b",
          f: "\f",
          n: "\n",
          r: "\r",
          t: "\t",
        };
        const replacement = simple[escape];
        if (replacement === undefined) throw decodeError("Invalid \\escape", chars, next - 1);
        out += replacement;
        i = next + 1;
        continue;
      }
      next++;
      let end = next + 4;
      if (end >= chars.length) throw decodeError("Invalid \\uXXXX escape", chars, next - 1);
      const hex = (from: number, to: number): number => {
        const digits = chars.slice(from, to).join("");
        if (!/^[0-9a-fA-F]{4}$/.test(digits)) throw decodeError("Invalid \\uXXXX escape", chars, to - 5);
        return parseInt(digits, 16);
      };
      let code = hex(next, end);
      next = end;
      if (code >= 0xd800 && code <= 0xdbff && end + 6 < chars.length) {
        if (chars[next] === "\\" && chars[next + 1] === "u") {
          const low = hex(next + 2, end + 6);
          if (low >= 0xdc00 && low <= 0xdfff) {
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            end += 6;
          }
        }
      }
      out += code >= 0xd800 && code <= 0xdfff ? String.fromCharCode(code) : String.fromCodePoint(code);
      i = end;
    }
  }

  object(start: number): [unknown, number] {
    const chars = this.chars;
    const entries: Array<[string, unknown]> = [];
    let i = skipWhitespace(chars, start);
    if (i >= chars.length || chars[i] !== "}") {
      for (;;) {
        if (i >= chars.length || chars[i] !== '"')
          throw decodeError("Expecting property name enclosed in double quotes", chars, i);
        const [key, afterKey] = this.string(i + 1);
        i = skipWhitespace(chars, afterKey);
        if (i >= chars.length || chars[i] !== ":") throw decodeError("Expecting ':' delimiter", chars, i);
        i = skipWhitespace(chars, i + 1);
        const [value, afterValue] = this.scanOnce(i);
        entries.push([key, value]);
        i = skipWhitespace(chars, afterValue);
        if (i < chars.length && chars[i] === "}") break;
        if (i >= chars.length || chars[i] !== ",") throw decodeError("Expecting ',' delimiter", chars, i);
        i = skipWhitespace(chars, i + 1);
      }
    }
    return [pyDictOf(entries), i + 1];
  }

  array(start: number): [unknown[], number] {
    const chars = this.chars;
    const items: unknown[] = [];
    let i = skipWhitespace(chars, start);
    if (i >= chars.length || chars[i] !== "]") {
      for (;;) {
        const [value, after] = this.scanOnce(i);
        items.push(value);
        i = skipWhitespace(chars, after);
        if (i < chars.length && chars[i] === "]") break;
        if (i >= chars.length || chars[i] !== ",") throw decodeError("Expecting ',' delimiter", chars, i);
        i = skipWhitespace(chars, i + 1);
      }
    }
    return [items, i + 1];
  }
}

/**
 * A Python dict from key/value pairs (a repeated key keeps its first position and its last value): a
 * plain object, or a `Map` when a key looks like an array index.
 */
export function pyDictOf(entries: ReadonlyArray<readonly [string, unknown]>): unknown {
  if (entries.some(([key]) => INDEX_LIKE_KEY.test(key))) return new Map(entries);
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    if (key === "__proto__")
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}
