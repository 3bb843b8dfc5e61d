import { PythonSyntaxError } from "./errors.js";
import { tokenizePython, type PyToken } from "./tokenize.js";
import { pyIsSpace } from "../py-str.js";

// Python expressions: the subset annotations, defaults, decorators and constants use.

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

export function parseTokens(tokens: readonly PyToken[], file: string): PyExpr {
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
