import { pyFloatRepr } from "../../env/py-json.js";
import { isOddInteger, powMagnitude, ratioToDouble } from "./float-pow.js";
import { ToolError } from "../../env/world.js";

// The reference's `calculate` tool evaluates the expression with Python's `eval` (after allowing only
// digits, `+-*/(). ` and spaces), then prints `str(round(float(result), 2))`. This evaluates the same
// language with Python's number model: ints are exact (BigInt), floats are IEEE doubles, `/` is true
// division, `//` floors, `**` binds tighter than a unary sign on its left, and `()` is an empty tuple.

const ALLOWED = new Set("0123456789+-*/(). ");
const MAX_NESTING = 200;
/** Larger int results would take Python very long and then fail `float()`: treat them as overflow. */
const MAX_INT_BITS = 1_000_000;

type PyValue = bigint | number | { tuple: true } | { complex: true };
const EMPTY_TUPLE: PyValue = { tuple: true };
const COMPLEX: PyValue = { complex: true };

/** The text the reference's `calculate` returns for `expression` (throws its errors as ToolErrors). */
export function calculate(expression: string): string {
  for (const char of expression) {
    if (!ALLOWED.has(char)) throw new ToolError("Invalid characters in expression");
  }
  const value = evaluate(new Parser(tokenize(expression)).parseAll());
  return pyFloatStr(pyRound2(toFloat(value)));
}

// ---------------------------------------------------------------------------------------------------
// Tokens

type Token =
  { kind: "int"; value: bigint } | { kind: "float"; value: number } | { kind: "op"; value: string };

function syntaxError(message: string, line = 1): ToolError {
  return new ToolError(`${message} (<string>, line ${line})`, "SyntaxError");
}

/**
 * The tokens, and whether a parenthesis is left open. Python reports an unclosed parenthesis only
 * when the parser asks for the token after the last one, so that is left to the parser.
 */
function tokenize(text: string): { tokens: Token[]; unclosed: boolean } {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === " ") {
      i++;
      continue;
    }
    const number = /^(?:\d*\.\d+|\d+\.?)/.exec(text.slice(i));
    if (number && (char !== "." || /\d/.test(text[i + 1] ?? ""))) {
      const literal = number[0];
      if (literal.includes(".")) tokens.push({ kind: "float", value: Number(literal) });
      else {
        if (/^0+[1-9]/.test(literal))
          throw syntaxError(
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
          );
        tokens.push({ kind: "int", value: BigInt(literal) });
      }
      i += literal.length;
      continue;
    }
    const two = text.slice(i, i + 2);
    const op = two === "**" || two === "//" ? two : char;
    if (op === "(") {
      depth++;
      if (depth > MAX_NESTING) throw syntaxError("too many nested parentheses");
    } else if (op === ")") {
      if (depth === 0) throw syntaxError("unmatched ')'");
      depth--;
    }
    tokens.push({ kind: "op", value: op });
    i += op.length;
  }
  return { tokens, unclosed: depth > 0 };
}

// ---------------------------------------------------------------------------------------------------
// Grammar (Python's, restricted to these tokens). The whole expression is parsed before anything is
// evaluated, as Python compiles before it runs (a syntax error wins over a division by zero).
//   sum: term (('+' | '-') term)*      term: factor (('*' | '/' | '//') factor)*
//   factor: ('+' | '-') factor | power  power: primary ['**' factor]
//   primary: atom ('(' [sum] ')')*      atom: NUMBER | '(' sum ')' | '(' ')'

type Node =
  | { kind: "value"; value: PyValue }
  | { kind: "unary"; op: string; operand: Node }
  | { kind: "binary"; op: string; left: Node; right: Node }
  | { kind: "call"; callee: Node; argument: Node | undefined };

function evaluate(node: Node): PyValue {
  switch (node.kind) {
    case "value":
      return node.value;
    case "unary":
      return unary(node.op, evaluate(node.operand));
    case "binary": {
      const left = evaluate(node.left);
      return binary(node.op, left, evaluate(node.right));
    }
    case "call": {
      const callee = evaluate(node.callee);
      if (node.argument) evaluate(node.argument);
      throw new ToolError(`'${typeName(callee)}' object is not callable`, "TypeError");
    }
  }
}

class Parser {
  #position = 0;
  readonly #tokens: Token[];
  readonly #unclosed: boolean;
  constructor({ tokens, unclosed }: { tokens: Token[]; unclosed: boolean }) {
    this.#tokens = tokens;
    this.#unclosed = unclosed;
  }

  parseAll(): Node {
    if (this.#tokens.length === 0) throw syntaxError("invalid syntax", 0);
    const node = this.sum();
    // Outside parentheses Python says only "invalid syntax", even for two numbers side by side.
    if (this.#peek() !== undefined) throw syntaxError("invalid syntax");
    return node;
  }

  /** The next token; reading past the end with a parenthesis still open is Python's tokenizer error. */
  #peek(): Token | undefined {
    const token = this.#tokens[this.#position];
    if (token === undefined && this.#unclosed) throw syntaxError("'(' was never closed");
    return token;
  }

  #peekOp(...ops: string[]): string | undefined {
    const token = this.#peek();
    return token?.kind === "op" && ops.includes(token.value) ? token.value : undefined;
  }

  /**
   * Inside parentheses, Python hints at a missing comma when an operand follows a complete one. It
   * first parses that operand, so an unclosed parenthesis met on the way is reported instead.
   */
  #unexpected(): ToolError {
    const next = this.#peek();
    const startsOperand = next !== undefined && (next.kind !== "op" || next.value === "(");
    if (!startsOperand) return syntaxError("invalid syntax");
    try {
      this.sum();
      this.#peek();
    } catch (error) {
      if (error instanceof ToolError && error.message.startsWith("'(' was never closed")) return error;
    }
    return syntaxError("invalid syntax. Perhaps you forgot a comma?");
  }

  sum(): Node {
    let left = this.term();
    for (let op = this.#peekOp("+", "-"); op; op = this.#peekOp("+", "-")) {
      this.#position++;
      left = { kind: "binary", op, left, right: this.term() };
    }
    return left;
  }

  term(): Node {
    let left = this.factor();
    for (let op = this.#peekOp("*", "/", "//"); op; op = this.#peekOp("*", "/", "//")) {
      this.#position++;
      left = { kind: "binary", op, left, right: this.factor() };
    }
    return left;
  }

  factor(): Node {
    const op = this.#peekOp("+", "-");
    if (op) {
      this.#position++;
      return { kind: "unary", op, operand: this.factor() };
    }
    return this.power();
  }

  power(): Node {
    const left = this.primary();
    if (!this.#peekOp("**")) return left;
    this.#position++;
    return { kind: "binary", op: "**", left, right: this.factor() };
  }

  primary(): Node {
    let node = this.atom();
    while (this.#peekOp("(")) {
      this.#position++;
      const argument = this.#peekOp(")") ? undefined : this.sum();
      this.#expect(")");
      node = { kind: "call", callee: node, argument };
    }
    return node;
  }

  atom(): Node {
    const token = this.#peek();
    if (token === undefined) throw syntaxError("invalid syntax");
    if (token.kind !== "op") {
      this.#position++;
      return { kind: "value", value: token.value };
    }
    if (token.value !== "(") throw syntaxError("invalid syntax");
    this.#position++;
    if (this.#peekOp(")")) {
      this.#position++;
      return { kind: "value", value: EMPTY_TUPLE };
    }
    const inner = this.sum();
    this.#expect(")");
    return inner;
  }

  #expect(op: string): void {
    if (!this.#peekOp(op)) throw this.#unexpected();
    this.#position++;
  }
}

// ---------------------------------------------------------------------------------------------------
// Python arithmetic

function typeName(value: PyValue): string {
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float";
  return "tuple" in value ? "tuple" : "complex";
}

function unsupported(op: string, a: PyValue, b: PyValue): ToolError {
  const shown = op === "**" ? "** or pow()" : op;
  return new ToolError(
    `unsupported operand type(s) for ${shown}: '${typeName(a)}' and '${typeName(b)}'`,
    "TypeError",
  );
}

function unary(op: string, value: PyValue): PyValue {
  if (typeof value === "bigint") return op === "-" ? -value : value;
  if (typeof value === "number") return op === "-" ? -value : value;
  if ("tuple" in value) throw new ToolError(`bad operand type for unary ${op}: 'tuple'`, "TypeError");
  return value;
}

/** `float(int)`: correctly rounded, OverflowError beyond the float range. */
function intToFloat(value: bigint): number {
  const result = Number(value);
  if (!Number.isFinite(result)) throw new ToolError("int too large to convert to float", "OverflowError");
  return result;
}

function binary(op: string, a: PyValue, b: PyValue): PyValue {
  if (typeof a === "object" || typeof b === "object") return sequenceOrComplex(op, a, b);
  if (typeof a === "bigint" && typeof b === "bigint") return intOp(op, a, b);
  const x = typeof a === "bigint" ? intToFloat(a) : a;
  const y = typeof b === "bigint" ? intToFloat(b) : b;
  return floatOp(op, x, y);
}

function sequenceOrComplex(op: string, a: PyValue, b: PyValue): PyValue {
  const isTuple = (v: PyValue) => typeof v === "object" && "tuple" in v;
  if (isTuple(a) || isTuple(b)) {
    if (op === "+" && isTuple(a) && isTuple(b)) return EMPTY_TUPLE;
    if (op === "*" && (typeof a === "bigint" || typeof b === "bigint")) return EMPTY_TUPLE;
    if (op === "*" && (typeof a === "number" || typeof b === "number"))
      throw new ToolError("can't multiply sequence by non-int of type 'float'", "TypeError");
    if (op === "*" && isTuple(a) && isTuple(b))
      throw new ToolError("can't multiply sequence by non-int of type 'tuple'", "TypeError");
    if (op === "+" && isTuple(a))
      throw new ToolError(`can only concatenate tuple (not "${typeName(b)}") to tuple`, "TypeError");
    throw unsupported(op, a, b);
  }
  // Complex numbers only arise from a negative base raised to a fractional power; the result can
  // never pass `float()`, so only errors on the way there matter.
  if (op === "//") throw unsupported(op, a, b);
  if (op === "**" && (a === 0 || a === 0n))
    throw new ToolError("0.0 to a negative or complex power", "ZeroDivisionError");
  if (op === "/" && (b === 0 || b === 0n))
    throw new ToolError("complex division by zero", "ZeroDivisionError");
  return COMPLEX;
}

function intOp(op: string, a: bigint, b: bigint): PyValue {
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      if (b === 0n) throw new ToolError("division by zero", "ZeroDivisionError");
      return trueDivide(a, b);
    case "//": {
      if (b === 0n) throw new ToolError("integer division or modulo by zero", "ZeroDivisionError");
      const q = a / b;
      return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
    }
    default: {
      // "**"
      // A negative exponent makes it a float power (both sides converted first, as CPython does).
      if (b < 0n) return floatOp("**", intToFloat(a), intToFloat(b));
      const magnitude = a < 0n ? -a : a;
      if (magnitude > 1n && BigInt(magnitude.toString(2).length) * b > BigInt(MAX_INT_BITS))
        throw new ToolError("int too large to convert to float", "OverflowError");
      return a ** b;
    }
  }
}

/** int / int, correctly rounded like CPython (exact for any size). */
function trueDivide(a: bigint, b: bigint): number {
  const result = ratioToDouble(a, b, 0);
  if (!Number.isFinite(result))
    throw new ToolError("integer division result too large for a float", "OverflowError");
  return result;
}

function floatOp(op: string, x: number, y: number): PyValue {
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      if (y === 0) throw new ToolError("float division by zero", "ZeroDivisionError");
      return x / y;
    case "//":
      if (y === 0) throw new ToolError("float floor division by zero", "ZeroDivisionError");
      return floorDivide(x, y);
    default:
      return floatPower(x, y);
  }
}

/** CPython's float floor division (via fmod, so that `q * y + r == x` holds as closely as possible). */
function floorDivide(x: number, y: number): number {
  const mod = x % y;
  let div = (x - mod) / y;
  if (mod !== 0 && y < 0 !== mod < 0) div -= 1;
  if (div === 0) return Object.is(x / y, -0) || x / y < 0 ? -0 : 0;
  let floor = Math.floor(div);
  if (div - floor > 0.5) floor += 1;
  return floor;
}

/** CPython's `float.__pow__`: its special cases, then a correctly rounded power. */
function floatPower(x: number, y: number): PyValue {
  if (y === 0) return 1;
  if (Number.isNaN(x)) return x;
  if (Number.isNaN(y)) return x === 1 ? 1 : NaN;
  if (!Number.isFinite(y)) {
    const magnitude = Math.abs(x);
    if (magnitude === 1) return 1;
    return y > 0 === magnitude > 1 ? Infinity : 0;
  }
  if (!Number.isFinite(x)) {
    if (y > 0) return isOddInteger(y) ? x : Infinity;
    return isOddInteger(y) ? (x > 0 ? 0 : -0) : 0;
  }
  if (x === 0) {
    if (y < 0) throw new ToolError("0.0 cannot be raised to a negative power", "ZeroDivisionError");
    return isOddInteger(y) ? x : 0;
  }
  if (x < 0 && !Number.isInteger(y)) {
    // A complex result; CPython's complex power fails when its magnitude overflows.
    if (!Number.isFinite(powMagnitude(x, y))) throw new ToolError("complex exponentiation", "OverflowError");
    return COMPLEX;
  }
  if (Math.abs(x) === 1) return x < 0 && isOddInteger(y) ? -1 : 1;
  const magnitude = powMagnitude(x, y);
  if (!Number.isFinite(magnitude))
    throw new ToolError("(34, 'Numerical result out of range')", "OverflowError");
  return x < 0 && isOddInteger(y) ? -magnitude : magnitude;
}

function toFloat(value: PyValue): number {
  if (typeof value === "bigint") return intToFloat(value);
  if (typeof value === "number") return value;
  throw new ToolError(
    `float() argument must be a string or a real number, not '${typeName(value)}'`,
    "TypeError",
  );
}

/**
 * Python's `round(x, 2)`: the exact binary value rounded to two decimals, ties to even. `toFixed`
 * rounds the exact value too but breaks ties upwards; exact ties are the multiples of 1/8 that are not
 * multiples of 1/4 (x·8 odd), so those are settled here.
 */
export function pyRound2(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  const eighths = x * 8;
  if (Number.isInteger(eighths) && eighths % 2 !== 0) {
    // x·100 = eighths·25/2 lies exactly halfway between two integers: take the even one.
    const twice = BigInt(eighths) * 25n;
    const low = (twice - 1n) / 2n; // floor, exact since `twice` is odd
    const chosen = low % 2n === 0n ? low : low + 1n;
    const result = Number(`${chosen}e-2`);
    return result === 0 && x < 0 ? -0 : result;
  }
  const result = Number(x.toFixed(2));
  return result === 0 && (x < 0 || Object.is(x, -0)) ? -0 : result;
}

/** Python's `str(float)`. */
export function pyFloatStr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  return pyFloatRepr(x);
}
