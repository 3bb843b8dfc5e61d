import { PythonSyntaxError } from "./errors.js";

// Python's tokenizer for the source the reader understands: logical lines of tokens, string literals
// evaluated the way the compiler does (prefixes, escapes, implicit concatenation).

export interface PyStringPart {
  /** Prefix letters as written (`r`, `b`, `f`, `rb`…), possibly empty. */
  prefix: string;
  raw: boolean;
  bytes: boolean;
  fstring: boolean;
  /** The evaluated value; undefined for an f-string with replacement fields. */
  value: string | undefined;
}

export interface PyToken {
  type: "name" | "number" | "string" | "op";
  /** The token as written in the source. */
  text: string;
  line: number;
  string?: PyStringPart;
}

export interface LogicalLine {
  indent: number;
  line: number;
  tokens: PyToken[];
}

const OPERATORS = [
  "**=",
  "//=",
  ">>=",
  "<<=",
  "...",
  "->",
  ":=",
  "==",
  "!=",
  "<=",
  ">=",
  "**",
  "//",
  "<<",
  ">>",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "@=",
];
const SINGLE_OPERATORS = "()[]{}:,;.+-*/%&|^~<>=@";
const NAME = /[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/uy;
const NUMBER =
  /(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?)/y;
const STRING_PREFIXES = new Set(["", "r", "u", "b", "f", "br", "rb", "fr", "rf"]);

/** Decode the escapes of a non-raw string body, as Python's compiler does. */
function decodeEscapes(body: string, bytes: boolean, fail: (message: string) => never): string {
  if (!body.includes("\\")) return body;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) fail("string ends with a backslash");
    i++;
    switch (next) {
      case "\n":
        break;
      case "\\":
      case "'":
      case '"':
        out += next;
        break;
      case "a":
        out += "\x07";
        break;
      case "b":
        out += "\b";
        break;
      case "f":
        out += "\f";
        break;
      case "n":
        out += "\n";
        break;
      case "r":
        out += "\r";
        break;
      case "t":
        out += "\t";
        break;
      case "v":
        out += "\v";
        break;
      case "x": {
        const hex = body.slice(i + 1, i + 3);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) fail("truncated \\xXX escape");
        out += String.fromCharCode(parseInt(hex, 16));
        i += 2;
        break;
      }
      case "u":
      case "U": {
        if (bytes) {
          out += "\\" + next;
          break;
        }
        const size = next === "u" ? 4 : 8;
        const hex = body.slice(i + 1, i + 1 + size);
        if (!new RegExp(`^[0-9a-fA-F]{${size}}$`).test(hex)) fail(`truncated \\${next} escape`);
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) fail(`illegal Unicode character in \\${next} escape`);
        out += String.fromCodePoint(code);
        i += size;
        break;
      }
      case "N":
        if (bytes) {
          out += "\\N";
          break;
        }
        fail("\\N{...} escapes are not supported");
        break;
      default:
        if (next >= "0" && next <= "7") {
          let digits = next;
          while (digits.length < 3 && /[0-7]/.test(body[i + 1] ?? "")) digits += body[++i];
          out += String.fromCharCode(parseInt(digits, 8));
        } else {
          // Python keeps unknown escapes as written (with a warning).
          out += "\\" + next;
        }
    }
  }
  return out;
}

/** Evaluate a string body: escapes unless raw; f-strings only when they have no replacement field. */
function evaluateString(
  body: string,
  flags: { raw: boolean; bytes: boolean; fstring: boolean },
  fail: (message: string) => never,
): string | undefined {
  let text = body;
  if (flags.fstring) {
    if (/\{(?!\{)/.test(text.replace(/\{\{/g, ""))) return undefined;
    if (/\}/.test(text.replace(/\}\}/g, ""))) fail("single '}' is not allowed in an f-string");
    text = text.replace(/\{\{/g, "{").replace(/\}\}/g, "}");
  }
  return flags.raw ? text : decodeEscapes(text, flags.bytes, fail);
}

/** Split Python source into logical lines of tokens (comments and blank lines dropped). */
export function tokenizePython(source: string, file: string): LogicalLine[] {
  const src = source.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
  const lines: LogicalLine[] = [];
  let current: PyToken[] = [];
  let currentIndent = 0;
  let currentLine = 1;
  let line = 1;
  let pos = 0;
  const brackets: string[] = [];
  let atLineStart = true;
  const fail = (message: string, at = line): never => {
    throw new PythonSyntaxError(message, file, at);
  };

  while (pos < src.length) {
    if (atLineStart && brackets.length === 0 && current.length === 0) {
      let column = 0;
      while (pos < src.length) {
        const c = src[pos];
        if (c === " ") column++;
        else if (c === "\t") column = column + 8 - (column % 8);
        else if (c === "\f") column = 0;
        else break;
        pos++;
      }
      const c = src[pos];
      if (c === undefined) break;
      if (c === "\n" || c === "#") {
        while (pos < src.length && src[pos] !== "\n") pos++;
        if (pos < src.length) {
          pos++;
          line++;
        }
        continue;
      }
      if (c === "\\" && src[pos + 1] === "\n") {
        pos += 2;
        line++;
      }
      atLineStart = false;
      currentIndent = column;
      currentLine = line;
      continue;
    }
    const ch = src[pos]!;
    if (ch === " " || ch === "\t" || ch === "\f") {
      pos++;
      continue;
    }
    if (ch === "#") {
      while (pos < src.length && src[pos] !== "\n") pos++;
      continue;
    }
    if (ch === "\\") {
      if (src[pos + 1] !== "\n") fail("unexpected character after line continuation character");
      pos += 2;
      line++;
      continue;
    }
    if (ch === "\n") {
      pos++;
      line++;
      if (brackets.length > 0) continue;
      if (current.length > 0) lines.push({ indent: currentIndent, line: currentLine, tokens: current });
      current = [];
      atLineStart = true;
      continue;
    }

    NAME.lastIndex = pos;
    const nameMatch = NAME.exec(src);
    const quoteAt = nameMatch ? pos + nameMatch[0].length : pos;
    const prefix = nameMatch ? nameMatch[0] : "";
    if ((src[quoteAt] === '"' || src[quoteAt] === "'") && STRING_PREFIXES.has(prefix.toLowerCase())) {
      const quote = src[quoteAt]!;
      const triple = src.startsWith(quote.repeat(3), quoteAt);
      const delimiter = triple ? quote.repeat(3) : quote;
      const bodyStart = quoteAt + delimiter.length;
      const startLine = line;
      let i = bodyStart;
      for (;;) {
        if (i >= src.length) fail("unterminated string literal", startLine);
        const c = src[i]!;
        if (c === "\\") {
          if (src[i + 1] === "\n") line++;
          i += 2;
          continue;
        }
        if (c === "\n") {
          if (!triple) fail("unterminated string literal", startLine);
          line++;
        }
        if (src.startsWith(delimiter, i)) break;
        i++;
      }
      const lower = prefix.toLowerCase();
      const flags = { raw: lower.includes("r"), bytes: lower.includes("b"), fstring: lower.includes("f") };
      const body = src.slice(bodyStart, i);
      const value = evaluateString(body, flags, (message) => fail(message, startLine));
      pos = i + delimiter.length;
      current.push({
        type: "string",
        text: src.slice(quoteAt - prefix.length, pos),
        line: startLine,
        string: { prefix, ...flags, value },
      });
      continue;
    }
    if (nameMatch) {
      current.push({ type: "name", text: nameMatch[0], line });
      pos += nameMatch[0].length;
      continue;
    }
    NUMBER.lastIndex = pos;
    const numberMatch =
      /[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(src[pos + 1] ?? "")) ? NUMBER.exec(src) : null;
    if (numberMatch) {
      current.push({ type: "number", text: numberMatch[0], line });
      pos += numberMatch[0].length;
      continue;
    }
    const op =
      OPERATORS.find((o) => src.startsWith(o, pos)) ?? (SINGLE_OPERATORS.includes(ch) ? ch : undefined);
    if (op === undefined) fail(`invalid character '${ch}'`);
    if (op === "(" || op === "[" || op === "{") brackets.push(op);
    else if (op === ")" || op === "]" || op === "}") {
      const open = brackets.pop();
      if (open === undefined || "([{".indexOf(open) !== ")]}".indexOf(op)) fail(`unmatched '${op}'`);
    }
    current.push({ type: "op", text: op!, line });
    pos += op!.length;
  }
  if (brackets.length > 0) fail(`'${brackets[brackets.length - 1]}' was never closed`);
  if (current.length > 0) lines.push({ indent: currentIndent, line: currentLine, tokens: current });
  return lines;
}
