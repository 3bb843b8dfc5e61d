import type { BinaryOperator } from "../../../python/py-arithmetic.js";
import { tokenize, type Token } from "./tokenize.js";

// A parser for the Python expressions `calculate` can receive, following the rules of CPython 3.11's
// PEG grammar that these characters can reach (sum, term, factor, power, calls, groups, `()`, `...`).
// It reproduces CPython's choice of SyntaxError text: a lexical error wins once the parser has read
// up to it or anywhere after a parse failure, then "Perhaps you forgot a comma?" for two expressions
// side by side inside parentheses, then plain "invalid syntax".

export type Expression =
  | { kind: "number"; text: string }
  | { kind: "ellipsis" }
  | { kind: "tuple" }
  | { kind: "unary"; operator: "+" | "-"; operand: Expression }
  | { kind: "binary"; operator: BinaryOperator; left: Expression; right: Expression }
  | { kind: "call"; callee: Expression; argument?: { unpack: "" | "*" | "**"; value: Expression } };

export class PySyntaxError extends Error {}

/** Parse `source` as `eval` does (leading spaces and tabs ignored); throws `PySyntaxError`. */
export function parseExpression(source: string): Expression {
  const stripped = source.replace(/^[ \t]+/, "");
  const line = stripped === "" ? 0 : 1;
  const tokens = tokenize(stripped);
  const parser = new Parser(tokens);
  let message: string;
  try {
    const expression = parser.parseEval();
    if (expression) return expression;
    message = "invalid syntax";
  } catch (error) {
    if (!(error instanceof LexicalError || error instanceof GrammarError)) throw error;
    if (error instanceof LexicalError) throw new PySyntaxError(`${error.message} (<string>, line ${line})`);
    message = error.message;
  }
  // After a parse failure CPython tokenizes the rest of the input; a lexical error there wins.
  const last = tokens[tokens.length - 1]!;
  if (last.kind === "error" && !last.atEnd) message = last.message;
  throw new PySyntaxError(`${message} (<string>, line ${line})`);
}

/** A lexical error reached by the parser. */
class LexicalError extends Error {}
/** An error one of CPython's `invalid_*` rules raises. */
class GrammarError extends Error {}

type OpText = Extract<Token, { kind: "op" }>["text"];

class Parser {
  #tokens: Token[];
  #position = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  /** The token at the current position; reaching a lexical error raises it, as CPython does. */
  #peek(): Token {
    const token = this.#tokens[this.#position]!;
    if (token.kind === "error") throw new LexicalError(token.message);
    return token;
  }

  #isOp(...texts: OpText[]): OpText | undefined {
    const token = this.#peek();
    return token.kind === "op" && texts.includes(token.text) ? token.text : undefined;
  }

  #expect(text: OpText): boolean {
    if (!this.#isOp(text)) return false;
    this.#position++;
    return true;
  }

  /** Run `parse`, rewinding when it fails. */
  #attempt<T>(parse: () => T | undefined): T | undefined {
    const start = this.#position;
    const result = parse();
    if (result === undefined) this.#position = start;
    return result;
  }

  parseEval(): Expression | undefined {
    const expression = this.#expression();
    if (!expression || this.#peek().kind !== "end") return undefined;
    return expression;
  }

  /** `expression`, with CPython's second-pass rule `invalid_expression`. */
  #expression(): Expression | undefined {
    const start = this.#position;
    if (this.#sum(true) && this.#sum(false)) {
      const lastToken = this.#tokens[this.#position - 1]!;
      if (lastToken.level > 0) throw new GrammarError("invalid syntax. Perhaps you forgot a comma?");
    }
    this.#position = start;
    return this.#attempt(() => this.#sum(true));
  }

  /** `sum` results by start position and mode, as CPython memoises rules (keeps nesting linear). */
  #memo = new Map<string, { result: Expression | undefined; end: number }>();

  #sum(checks: boolean): Expression | undefined {
    const key = `${this.#position}:${checks}`;
    const known = this.#memo.get(key);
    if (known) {
      this.#position = known.end;
      return known.result;
    }
    const result = this.#parseSum(checks);
    this.#memo.set(key, { result, end: this.#position });
    return result;
  }

  #parseSum(checks: boolean): Expression | undefined {
    let left = this.#term(checks);
    while (left) {
      const operator = this.#isOp("+", "-");
      if (!operator) break;
      const save = this.#position++;
      const right = this.#term(checks);
      if (!right) {
        this.#position = save;
        break;
      }
      left = { kind: "binary", operator: operator as "+" | "-", left, right };
    }
    return left;
  }

  #term(checks: boolean): Expression | undefined {
    let left = this.#factor(checks);
    while (left) {
      const operator = this.#isOp("*", "/", "//");
      if (!operator) break;
      const save = this.#position++;
      const right = this.#factor(checks);
      if (!right) {
        this.#position = save;
        break;
      }
      left = { kind: "binary", operator: operator as "*" | "/" | "//", left, right };
    }
    return left;
  }

  #factor(checks: boolean): Expression | undefined {
    const operator = this.#isOp("+", "-");
    if (operator) {
      return this.#attempt(() => {
        this.#position++;
        const operand = this.#factor(checks);
        return operand && { kind: "unary", operator: operator as "+" | "-", operand };
      });
    }
    return this.#power(checks);
  }

  #power(checks: boolean): Expression | undefined {
    const base = this.#primary(checks);
    if (!base || !this.#isOp("**")) return base;
    const save = this.#position++;
    const exponent = this.#factor(checks);
    if (!exponent) {
      this.#position = save;
      return base;
    }
    return { kind: "binary", operator: "**", left: base, right: exponent };
  }

  #primary(checks: boolean): Expression | undefined {
    let callee = this.#atom(checks);
    while (callee) {
      const token = this.#peek();
      if (token.kind === "dot") {
        // `primary '.' NAME`: no names can occur, so this only reads one token further and fails.
        this.#position++;
        this.#peek();
        this.#position--;
        break;
      }
      if (token.kind !== "op" || token.text !== "(") break;
      const target: Expression = callee;
      const call = this.#attempt(() => this.#call(target, checks));
      if (!call) break;
      callee = call;
    }
    return callee;
  }

  #call(callee: Expression, checks: boolean): Expression | undefined {
    this.#position++; // "("
    if (this.#expect(")")) return { kind: "call", callee };
    const unpack = this.#isOp("*", "**") ?? "";
    if (unpack) this.#position++;
    const value = checks ? this.#expression() : this.#attempt(() => this.#sum(false));
    if (!value || !this.#expect(")")) return undefined;
    return { kind: "call", callee, argument: { unpack: unpack as "" | "*" | "**", value } };
  }

  #atom(checks: boolean): Expression | undefined {
    const token = this.#peek();
    if (token.kind === "number") {
      this.#position++;
      return { kind: "number", text: token.text };
    }
    if (token.kind === "ellipsis") {
      this.#position++;
      return { kind: "ellipsis" };
    }
    if (token.kind !== "op" || token.text !== "(") return undefined;
    return this.#attempt(() => this.#parenthesized(checks));
  }

  /** `tuple | group | genexp`, and the second-pass rule `invalid_group`. */
  #parenthesized(checks: boolean): Expression | undefined {
    this.#position++; // "("
    if (this.#expect(")")) return { kind: "tuple" };
    const start = this.#position;
    const starred = this.#isOp("*", "**");
    if (starred === "*") {
      // The tuple rule reads `'*' bitwise_or` and then wants a ',' that cannot come.
      this.#position++;
      this.#attempt(() => this.#sum(checks));
      this.#peek();
      this.#position = start;
    }
    const inner = checks ? this.#expression() : this.#attempt(() => this.#sum(false));
    if (inner) return this.#expect(")") ? inner : undefined;
    if (!starred || !checks) return undefined;
    this.#position++;
    if (this.#expression() && this.#expect(")")) {
      throw new GrammarError(
        starred === "*" ? "cannot use starred expression here" : "cannot use double starred expression here",
      );
    }
    return undefined;
  }
}
