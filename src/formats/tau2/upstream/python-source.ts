// A reader for the small part of Python that τ²-bench's prompt and toolkit modules use: module-level
// string constants and type aliases, classes with their constants, and methods with their decorators,
// signatures, docstrings and nested functions. Nothing is executed: string literals are evaluated the
// way Python's compiler does (prefixes, escapes, implicit concatenation, `.strip()`), everything else
// is kept as source text (annotations, defaults, decorators) for the callers to interpret.

/** A problem with an upstream source file: which file, and which item (constant, class, tool…). */
export class UpstreamSourceError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly item?: string,
  ) {
    super(message);
    this.name = "UpstreamSourceError";
  }
}

/** The source is not Python this reader understands (a syntax error, or a construct it does not model). */
export class PythonSyntaxError extends UpstreamSourceError {
  constructor(
    message: string,
    file: string,
    readonly line: number,
  ) {
    super(`${file}:${line}: ${message}`, file);
    this.name = "PythonSyntaxError";
  }
}

// ---------------------------------------------------------------------------------------------------
// Python text helpers

/** The characters Python's `str.isspace()` accepts (what `str.strip()` without arguments removes). */
const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);
const TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`);
const ONLY_SPACE = new RegExp(`^[${PY_SPACE}]*$`);

export function pyIsSpace(text: string): boolean {
  return ONLY_SPACE.test(text);
}
export function pyLstrip(text: string): string {
  return text.replace(LEADING_SPACE, "");
}
export function pyRstrip(text: string): string {
  return text.replace(TRAILING_SPACE, "");
}
export function pyStrip(text: string): string {
  return pyRstrip(pyLstrip(text));
}

/** Python's `str.strip(chars)` with explicit characters. */
export function pyStripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

// ---------------------------------------------------------------------------------------------------
// Tokens

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

// ---------------------------------------------------------------------------------------------------
// Expressions (the subset annotations, defaults, decorators and constants use)

export type PyExpr =
  | { kind: "name"; id: string }
  | { kind: "attribute"; value: PyExpr; attr: string }
  | { kind: "subscript"; value: PyExpr; index: PyExpr[] }
  | { kind: "call"; func: PyExpr; args: PyExpr[]; keywords: Array<[string, PyExpr]> }
  | { kind: "binop"; op: string; left: PyExpr; right: PyExpr }
  | { kind: "unary"; op: "-" | "+" | "~"; operand: PyExpr }
  | { kind: "string"; value: string | undefined; bytes: boolean }
  | { kind: "number"; value: number; integer: boolean; text: string }
  | { kind: "constant"; value: null | boolean }
  | { kind: "ellipsis" }
  | { kind: "list" | "tuple" | "set"; elements: PyExpr[] }
  | { kind: "dict"; entries: Array<[PyExpr, PyExpr]> }
  | { kind: "starred"; value: PyExpr; double: boolean };

class ExpressionParser {
  private pos = 0;
  constructor(
    private readonly tokens: readonly PyToken[],
    private readonly fail: (message: string, token?: PyToken) => never,
  ) {}

  parseAll(): PyExpr {
    const expr = this.parseTupleOrExpr(() => this.atEnd());
    if (!this.atEnd()) this.fail(`unexpected '${this.peek()!.text}'`, this.peek());
    return expr;
  }

  private atEnd(): boolean {
    return this.pos >= this.tokens.length;
  }
  private peek(offset = 0): PyToken | undefined {
    return this.tokens[this.pos + offset];
  }
  private isOp(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.type === "op" && token.text === text;
  }
  private expectOp(text: string): void {
    if (!this.isOp(text)) {
      const token = this.peek();
      this.fail(`expected '${text}'${token ? ` before '${token.text}'` : " at the end"}`, token);
    }
    this.pos++;
  }

  /** `a, b` at the top level or inside parentheses is a tuple. */
  private parseTupleOrExpr(atClose: () => boolean): PyExpr {
    const first = this.parseExpr();
    if (!this.isOp(",")) return first;
    const elements = [first];
    while (this.isOp(",")) {
      this.pos++;
      if (atClose()) break;
      elements.push(this.parseExpr());
    }
    return { kind: "tuple", elements };
  }

  private parseExpr(): PyExpr {
    let left = this.parseUnary();
    while (this.isOp("|")) {
      this.pos++;
      left = { kind: "binop", op: "|", left, right: this.parseUnary() };
    }
    return left;
  }

  private parseUnary(): PyExpr {
    const token = this.peek();
    if (token?.type === "op" && (token.text === "-" || token.text === "+" || token.text === "~")) {
      this.pos++;
      return { kind: "unary", op: token.text, operand: this.parseUnary() };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): PyExpr {
    let expr = this.parseAtom();
    for (;;) {
      if (this.isOp(".")) {
        this.pos++;
        const name = this.peek();
        if (name?.type !== "name") this.fail("expected a name after '.'", name);
        this.pos++;
        expr = { kind: "attribute", value: expr, attr: name!.text };
      } else if (this.isOp("(")) {
        this.pos++;
        const args: PyExpr[] = [];
        const keywords: Array<[string, PyExpr]> = [];
        while (!this.isOp(")")) {
          const token = this.peek();
          if (token?.type === "name" && this.isOp("=", 1)) {
            this.pos += 2;
            keywords.push([token.text, this.parseExpr()]);
          } else if (this.isOp("*") || this.isOp("**")) {
            const double = this.isOp("**");
            this.pos++;
            args.push({ kind: "starred", value: this.parseExpr(), double });
          } else {
            args.push(this.parseExpr());
          }
          if (!this.isOp(")")) this.expectOp(",");
        }
        this.pos++;
        expr = { kind: "call", func: expr, args, keywords };
      } else if (this.isOp("[")) {
        this.pos++;
        const index: PyExpr[] = [];
        while (!this.isOp("]")) {
          index.push(this.parseExpr());
          if (!this.isOp("]")) this.expectOp(",");
        }
        this.pos++;
        if (index.length === 0) this.fail("empty subscript");
        expr = { kind: "subscript", value: expr, index };
      } else {
        return expr;
      }
    }
  }

  private parseAtom(): PyExpr {
    const token = this.peek();
    if (token === undefined) this.fail("expression expected");
    const t = token!;
    if (t.type === "name") {
      this.pos++;
      if (t.text === "None") return { kind: "constant", value: null };
      if (t.text === "True") return { kind: "constant", value: true };
      if (t.text === "False") return { kind: "constant", value: false };
      if (["lambda", "not", "and", "or", "if", "else", "for", "in", "is", "yield", "await"].includes(t.text))
        this.fail(`'${t.text}' expressions are not supported`, t);
      return { kind: "name", id: t.text };
    }
    if (t.type === "number") {
      this.pos++;
      const clean = t.text.replace(/_/g, "");
      if (/[jJ]$/.test(clean)) this.fail("complex numbers are not supported", t);
      const integer = /^(?:0[xXoObB]|\d+$)/.test(clean);
      const value = /^0[oO]/.test(clean)
        ? parseInt(clean.slice(2), 8)
        : /^0[bB]/.test(clean)
          ? parseInt(clean.slice(2), 2)
          : Number(clean);
      return { kind: "number", value, integer, text: t.text };
    }
    if (t.type === "string") {
      let value: string | undefined = "";
      const bytes = t.string!.bytes;
      while (this.peek()?.type === "string") {
        const part = this.peek()!.string!;
        if (part.bytes !== bytes) this.fail("cannot mix bytes and nonbytes literals", this.peek());
        value = value === undefined || part.value === undefined ? undefined : value + part.value;
        this.pos++;
      }
      return { kind: "string", value, bytes };
    }
    if (t.text === "...") {
      this.pos++;
      return { kind: "ellipsis" };
    }
    if (t.text === "(") {
      this.pos++;
      if (this.isOp(")")) {
        this.pos++;
        return { kind: "tuple", elements: [] };
      }
      const inner = this.parseTupleOrExpr(() => this.isOp(")"));
      this.expectOp(")");
      return inner;
    }
    if (t.text === "[") {
      this.pos++;
      const elements: PyExpr[] = [];
      while (!this.isOp("]")) {
        elements.push(this.parseExpr());
        if (!this.isOp("]")) this.expectOp(",");
      }
      this.pos++;
      return { kind: "list", elements };
    }
    if (t.text === "{") {
      this.pos++;
      const entries: Array<[PyExpr, PyExpr]> = [];
      const elements: PyExpr[] = [];
      while (!this.isOp("}")) {
        const key = this.parseExpr();
        if (this.isOp(":")) {
          this.pos++;
          entries.push([key, this.parseExpr()]);
        } else {
          elements.push(key);
        }
        if (!this.isOp("}")) this.expectOp(",");
      }
      this.pos++;
      if (entries.length > 0 && elements.length > 0) this.fail("mixed dict and set display", t);
      return elements.length > 0 ? { kind: "set", elements } : { kind: "dict", entries };
    }
    return this.fail(`unexpected '${t.text}'`, t);
  }
}

/** Parse an expression written as source text (an annotation, a default, a decorator…). */
export function parsePythonExpression(text: string, file = "<expression>"): PyExpr {
  if (pyIsSpace(text)) throw new PythonSyntaxError("expression expected", file, 1);
  // Inside brackets line breaks do not end the expression, and string literals keep theirs.
  const lines = tokenizePython(`(${text}\n)`, file);
  if (lines.length !== 1) throw new PythonSyntaxError(`expected one expression: ${text}`, file, 1);
  return parseTokens(lines[0]!.tokens, file);
}

function parseTokens(tokens: readonly PyToken[], file: string): PyExpr {
  return new ExpressionParser(tokens, (message, token) => {
    throw new PythonSyntaxError(message, file, token?.line ?? tokens[0]?.line ?? 1);
  }).parseAll();
}

/** Render tokens back to compact source text (`Literal["a", "b"]`, `is_tool(ToolType.READ)`). */
export function renderTokens(tokens: readonly PyToken[]): string {
  let out = "";
  let depth = 0;
  tokens.forEach((token, index) => {
    const prev = tokens[index - 1];
    const beforePrev = tokens[index - 2];
    const isOp = (t: PyToken | undefined, ...texts: string[]) => t?.type === "op" && texts.includes(t.text);
    const prevUnary =
      isOp(prev, "-", "+", "~", "*", "**") &&
      (beforePrev === undefined ||
        (beforePrev.type === "op" && !isOp(beforePrev, ")", "]", "}")) ||
        (beforePrev.type === "name" &&
          ["return", "in", "not", "and", "or", "lambda"].includes(beforePrev.text)));
    const tight =
      prev === undefined ||
      isOp(prev, "(", "[", "{", ".", "@") ||
      prevUnary ||
      isOp(token, ")", "]", "}", ",", ".", ":", ";") ||
      (isOp(token, "(", "[") && prev !== undefined && (prev.type !== "op" || isOp(prev, ")", "]", "}"))) ||
      (depth > 0 && (isOp(token, "=") || isOp(prev, "=")));
    out += (tight ? "" : " ") + token.text;
    if (isOp(token, "(", "[", "{")) depth++;
    if (isOp(token, ")", "]", "}")) depth--;
  });
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Module structure

/** A module- or class-level assignment: a string constant, or any other value kept as source text. */
export type PyValue = { kind: "string"; value: string } | { kind: "expression"; text: string };

export interface PyParameter {
  name: string;
  annotation: string | undefined;
  default: string | undefined;
}

export interface PyFunction {
  name: string;
  line: number;
  decorators: string[];
  /** Parameters in signature order, without `self`/`cls`, `*args`, `**kwargs` and the `*` / `/` markers. */
  parameters: PyParameter[];
  returns: string | undefined;
  /** The evaluated docstring (Python's raw `__doc__`), if the body starts with a string literal. */
  docstring: string | undefined;
  /** Functions defined inside the body, in source order. */
  nested: PyFunction[];
}

/**
 * A class-level assignment, in source order: `name = value`, `name: annotation = value` or a bare
 * `name: annotation` (a pydantic field without default). Annotation and value are source text.
 */
export interface PyClassMember {
  name: string;
  line: number;
  annotation: string | undefined;
  value: string | undefined;
}

export interface PyClass {
  name: string;
  line: number;
  bases: string | undefined;
  decorators: string[];
  docstring: string | undefined;
  constants: ReadonlyMap<string, PyValue>;
  /** Every class-level assignment and annotated name, in source order (fields, enum members, config). */
  members: PyClassMember[];
  methods: PyFunction[];
}

export interface PyModule {
  file: string;
  docstring: string | undefined;
  assignments: ReadonlyMap<string, PyValue>;
  classes: PyClass[];
  functions: PyFunction[];
}

interface Statement {
  line: LogicalLine;
  body: Statement[];
}

function isOpToken(token: PyToken | undefined, text: string): boolean {
  return token?.type === "op" && token.text === text;
}

function buildStatements(lines: LogicalLine[], file: string): Statement[] {
  const root: Statement[] = [];
  const stack: Array<{ indent: number; body: Statement[] }> = [{ indent: 0, body: root }];
  for (const line of lines) {
    let top = stack[stack.length - 1]!;
    if (line.indent > top.indent) {
      const owner = top.body[top.body.length - 1];
      const tokens = owner?.line.tokens;
      if (!owner || !isOpToken(tokens![tokens!.length - 1], ":"))
        throw new PythonSyntaxError("unexpected indent", file, line.line);
      stack.push({ indent: line.indent, body: owner.body });
      top = stack[stack.length - 1]!;
    } else {
      while (line.indent < top.indent) {
        stack.pop();
        top = stack[stack.length - 1]!;
      }
      if (line.indent !== top.indent)
        throw new PythonSyntaxError("unindent does not match any outer indentation level", file, line.line);
    }
    top.body.push({ line, body: [] });
  }
  const check = (statements: Statement[]) => {
    for (const statement of statements) {
      const tokens = statement.line.tokens;
      if (isOpToken(tokens[tokens.length - 1], ":") && statement.body.length === 0)
        throw new PythonSyntaxError("expected an indented block", file, statement.line.line);
      check(statement.body);
    }
  };
  check(root);
  return root;
}

/** Split tokens on top-level occurrences of an operator. */
function splitTopLevel(tokens: readonly PyToken[], separator: string): PyToken[][] {
  const parts: PyToken[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.type === "op") {
      if ("([{".includes(token.text)) depth++;
      else if (")]}".includes(token.text)) depth--;
      else if (depth === 0 && token.text === separator) {
        parts.push([]);
        continue;
      }
    }
    parts[parts.length - 1]!.push(token);
  }
  return parts;
}

function findClosing(tokens: readonly PyToken[], openIndex: number): number {
  let depth = 0;
  for (let i = openIndex; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type !== "op") continue;
    if ("([{".includes(token.text)) depth++;
    else if (")]}".includes(token.text) && --depth === 0) return i;
  }
  return -1;
}

/** The value of a string-literal expression (with `.strip()`-family calls), or undefined. */
function evaluateStringExpr(expr: PyExpr): string | undefined {
  if (expr.kind === "string") return expr.bytes ? undefined : expr.value;
  if (expr.kind === "call" && expr.func.kind === "attribute" && expr.keywords.length === 0) {
    const target = evaluateStringExpr(expr.func.value);
    if (target === undefined) return undefined;
    const method = expr.func.attr;
    if (expr.args.length === 0) {
      if (method === "strip") return pyStrip(target);
      if (method === "lstrip") return pyLstrip(target);
      if (method === "rstrip") return pyRstrip(target);
    }
    if (expr.args.length === 1 && ["strip", "lstrip", "rstrip"].includes(method)) {
      const chars = evaluateStringExpr(expr.args[0]!);
      if (chars === undefined) return undefined;
      if (method === "strip") return pyStripChars(target, chars);
      if (method === "lstrip") return pyStripChars(target + "\0", chars).slice(0, -1);
      return pyStripChars("\0" + target, chars).slice(1);
    }
  }
  return undefined;
}

function valueOf(tokens: readonly PyToken[], file: string): PyValue {
  try {
    const value = evaluateStringExpr(parseTokens(tokens, file));
    if (value !== undefined) return { kind: "string", value };
  } catch (error) {
    if (!(error instanceof PythonSyntaxError)) throw error;
  }
  return { kind: "expression", text: renderTokens(tokens) };
}

/** `NAME = value`, `NAME: annotation = value` or `A = B = value`: the target names and the value. */
function readAssignment(tokens: readonly PyToken[]): { targets: string[]; value: PyToken[] } | undefined {
  const parts = splitTopLevel(tokens, "=");
  if (parts.length < 2) return undefined;
  const value = parts[parts.length - 1]!;
  const targets: string[] = [];
  for (const part of parts.slice(0, -1)) {
    const first = part[0];
    if (first?.type !== "name") return undefined;
    if (part.length === 1 || (parts.length === 2 && isOpToken(part[1], ":"))) targets.push(first.text);
    else return undefined;
  }
  return value.length > 0 ? { targets, value } : undefined;
}

/** The docstring: the body's first statement if it is a plain string literal (not bytes, not f-string). */
function docstringOf(first: readonly PyToken[] | undefined): string | undefined {
  if (!first || first.length === 0) return undefined;
  let tokens = first;
  while (isOpToken(tokens[0], "(") && findClosing(tokens, 0) === tokens.length - 1)
    tokens = tokens.slice(1, -1);
  if (tokens.length === 0 || !tokens.every((t) => t.type === "string")) return undefined;
  if (tokens.some((t) => t.string!.bytes || t.string!.fstring)) return undefined;
  return tokens.map((t) => t.string!.value!).join("");
}

function readParameters(tokens: readonly PyToken[], dropFirst: boolean, file: string, line: number) {
  const parameters: PyParameter[] = [];
  let first = true;
  for (const part of splitTopLevel(tokens, ",")) {
    if (part.length === 0) continue;
    const head = part[0]!;
    if (head.type === "op") {
      if (head.text === "*" || head.text === "**" || head.text === "/") {
        first = false;
        continue;
      }
      throw new PythonSyntaxError(`invalid parameter '${renderTokens(part)}'`, file, line);
    }
    if (head.type !== "name")
      throw new PythonSyntaxError(`invalid parameter '${renderTokens(part)}'`, file, line);
    const [left, ...rest] = splitTopLevel(part, "=");
    const defaultText = rest.length > 0 ? renderTokens(part.slice(left!.length + 1)) : undefined;
    let annotation: string | undefined;
    if (left!.length > 1) {
      if (!isOpToken(left![1], ":") || left!.length < 3)
        throw new PythonSyntaxError(`invalid parameter '${renderTokens(part)}'`, file, line);
      annotation = renderTokens(left!.slice(2));
    }
    const skip = first && dropFirst;
    first = false;
    if (!skip) parameters.push({ name: head.text, annotation, default: defaultText });
  }
  return parameters;
}

function readFunction(
  statement: Statement,
  decorators: string[],
  isMethod: boolean,
  file: string,
): PyFunction {
  const { tokens, line } = statement.line;
  let index = tokens[0]?.text === "async" ? 1 : 0;
  const nameToken = tokens[index + 1];
  if (tokens[index]?.text !== "def" || nameToken?.type !== "name" || !isOpToken(tokens[index + 2], "("))
    throw new PythonSyntaxError("invalid function definition", file, line);
  const open = index + 2;
  const close = findClosing(tokens, open);
  if (close < 0) throw new PythonSyntaxError("unclosed parameter list", file, line);
  index = close + 1;
  let returns: string | undefined;
  let colon = index;
  if (isOpToken(tokens[index], "->")) {
    const afterArrow = tokens.slice(index + 1);
    const [annotation] = splitTopLevel(afterArrow, ":");
    if (annotation!.length === afterArrow.length) throw new PythonSyntaxError("expected ':'", file, line);
    returns = renderTokens(annotation!);
    colon = index + 1 + annotation!.length;
  }
  if (!isOpToken(tokens[colon], ":")) throw new PythonSyntaxError("expected ':'", file, line);
  const inline = tokens.slice(colon + 1);
  const isStatic = decorators.includes("staticmethod");
  const parameters = readParameters(tokens.slice(open + 1, close), isMethod && !isStatic, file, line);
  const docstring = docstringOf(
    inline.length > 0 ? splitTopLevel(inline, ";")[0] : statement.body[0]?.line.tokens,
  );
  return {
    name: nameToken.text,
    line,
    decorators,
    parameters,
    returns,
    docstring,
    nested: readNestedFunctions(statement.body, file),
  };
}

function isDef(tokens: readonly PyToken[]): boolean {
  return tokens[0]?.text === "def" || (tokens[0]?.text === "async" && tokens[1]?.text === "def");
}

/** Functions defined anywhere in a body (inside `if`/`for`/`with`… too), not inside nested classes. */
function readNestedFunctions(body: Statement[], file: string): PyFunction[] {
  const found: PyFunction[] = [];
  let decorators: string[] = [];
  for (const statement of body) {
    const tokens = statement.line.tokens;
    if (isOpToken(tokens[0], "@")) {
      decorators.push(renderTokens(tokens.slice(1)));
      continue;
    }
    if (isDef(tokens)) found.push(readFunction(statement, decorators, false, file));
    else if (tokens[0]?.text !== "class") found.push(...readNestedFunctions(statement.body, file));
    decorators = [];
  }
  return found;
}

function readClass(statement: Statement, decorators: string[], file: string): PyClass {
  const { tokens, line } = statement.line;
  const nameToken = tokens[1];
  if (nameToken?.type !== "name") throw new PythonSyntaxError("invalid class definition", file, line);
  let bases: string | undefined;
  let colon = 2;
  if (isOpToken(tokens[2], "(")) {
    const close = findClosing(tokens, 2);
    if (close < 0) throw new PythonSyntaxError("unclosed base list", file, line);
    bases = renderTokens(tokens.slice(2, close + 1)).slice(1, -1); // keyword spacing as in a call
    colon = close + 1;
  }
  if (!isOpToken(tokens[colon], ":")) throw new PythonSyntaxError("expected ':'", file, line);
  const inline = tokens.slice(colon + 1);
  const constants = new Map<string, PyValue>();
  const members: PyClassMember[] = [];
  const methods: PyFunction[] = [];
  let pending: string[] = [];
  for (const member of statement.body) {
    const memberTokens = member.line.tokens;
    if (isOpToken(memberTokens[0], "@")) {
      pending.push(renderTokens(memberTokens.slice(1)));
      continue;
    }
    if (isDef(memberTokens)) {
      methods.push(readFunction(member, pending, true, file));
    } else {
      const assignment = readAssignment(memberTokens);
      if (assignment) {
        const value = valueOf(assignment.value, file);
        for (const target of assignment.targets) constants.set(target, value);
      }
      const classMember = readClassMember(memberTokens, member.line.line);
      if (classMember) members.push(...classMember);
    }
    pending = [];
  }
  return {
    name: nameToken.text,
    line,
    bases,
    decorators,
    docstring: docstringOf(inline.length > 0 ? inline : statement.body[0]?.line.tokens),
    constants,
    members,
    methods,
  };
}

const KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

/** `a = b = value`, `name: annotation = value` and `name: annotation` as class members. */
function readClassMember(tokens: readonly PyToken[], line: number): PyClassMember[] | undefined {
  const head = tokens[0];
  if (head?.type !== "name" || KEYWORDS.has(head.text)) return undefined;
  if (isOpToken(tokens[1], ":")) {
    const [left, ...rest] = splitTopLevel(tokens, "=");
    if (rest.length > 1 || left!.length < 3) return undefined;
    const annotation = renderTokens(left!.slice(2));
    const value = rest.length === 1 ? tokens.slice(left!.length + 1) : undefined;
    if (value !== undefined && value.length === 0) return undefined;
    return [{ name: head.text, line, annotation, value: value && renderTokens(value) }];
  }
  const assignment = readAssignment(tokens);
  if (!assignment) return undefined;
  const value = renderTokens(assignment.value);
  return assignment.targets.map((name) => ({ name, line, annotation: undefined, value }));
}

/** Read a Python module's constants, classes and functions (see the file comment). */
export function readPythonModule(source: string, file: string): PyModule {
  const statements = buildStatements(tokenizePython(source, file), file);
  const assignments = new Map<string, PyValue>();
  const classes: PyClass[] = [];
  const functions: PyFunction[] = [];
  let pending: string[] = [];
  for (const statement of statements) {
    const tokens = statement.line.tokens;
    if (isOpToken(tokens[0], "@")) {
      pending.push(renderTokens(tokens.slice(1)));
      continue;
    }
    if (tokens[0]?.text === "class" && tokens[1]?.type === "name") {
      classes.push(readClass(statement, pending, file));
    } else if (isDef(tokens)) {
      functions.push(readFunction(statement, pending, false, file));
    } else {
      const assignment = readAssignment(tokens);
      if (assignment) {
        const value = valueOf(assignment.value, file);
        for (const target of assignment.targets) assignments.set(target, value);
      }
    }
    pending = [];
  }
  return { file, docstring: docstringOf(statements[0]?.line.tokens), assignments, classes, functions };
}
