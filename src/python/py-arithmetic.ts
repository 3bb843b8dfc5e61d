import { PyException } from "./py-exception.js";
import { pyFloatStr } from "./py-values.js";
import { correctlyRoundedPow } from "./py-pow.js";

// The values a `calculate` expression can produce in Python, and CPython 3.11's arithmetic on them:
// ints are unbounded (BigInt), floats are doubles, negative numbers raised to fractional powers give
// complex numbers, `()` is the empty tuple and `...` is Ellipsis. Each operation raises the exception
// (type and text) CPython raises, as a PyException, because the tool's error text is what the agent
// sees. The expression grammar itself stays with the tool (domains/shared/calculator/).

export type PyValue =
  | { type: "int"; value: bigint }
  | { type: "float"; value: number }
  | { type: "complex"; re: number; im: number }
  | { type: "tuple" }
  | { type: "ellipsis" };

export type BinaryOperator = "+" | "-" | "*" | "/" | "//" | "**";

/** Ints bigger than this many bits are not built (Python would grind on them for minutes). */
const MAX_INT_BITS = 1 << 22;

export const int = (value: bigint): PyValue => ({ type: "int", value });
export const float = (value: number): PyValue => ({ type: "float", value });
const complex = (re: number, im: number): PyValue => ({ type: "complex", re, im });
const TUPLE: PyValue = { type: "tuple" };

function typeError(message: string): PyException {
  return new PyException(message, "TypeError");
}

function overflow(message: string): PyException {
  return new PyException(message, "OverflowError");
}

function zeroDivision(message: string): PyException {
  return new PyException(message, "ZeroDivisionError");
}

/** `float(int)`, which raises instead of giving infinity. */
export function intToFloat(value: bigint): number {
  const result = Number(value);
  if (!Number.isFinite(result)) throw overflow("int too large to convert to float");
  return result;
}

function bitLength(value: bigint): number {
  return value === 0n ? 0 : (value < 0n ? -value : value).toString(2).length;
}

/** `float(x)` of the final value, as `calculate` does before rounding. */
export function toFloat(value: PyValue): number {
  if (value.type === "int") return intToFloat(value.value);
  if (value.type === "float") return value.value;
  throw typeError(`float() argument must be a string or a real number, not '${value.type}'`);
}

/** `str(value)` (CPython quotes it in some error messages). */
export function pyValueStr(value: PyValue): string {
  switch (value.type) {
    case "int":
      return value.value.toString();
    case "float":
      return pyFloatStr(value.value);
    case "tuple":
      return "()";
    case "ellipsis":
      return "Ellipsis";
    case "complex": {
      const part = (x: number) => pyFloatStr(x).replace(/\.0$/, "");
      if (value.re === 0 && !Object.is(value.re, -0)) return `${part(value.im)}j`;
      const im = part(value.im);
      return `(${part(value.re)}${im.startsWith("-") || im === "nan" ? "" : "+"}${im}j)`;
    }
  }
}

/**
 * Python's `round(x, 2)` for a float: the correctly rounded decimal, ties (values exactly halfway in
 * binary, such as 0.125) to even. `toFixed` rounds exact ties away from zero instead.
 */
export function pyRound2(value: number): number {
  if (value === 0 || !Number.isFinite(value) || Math.abs(value) >= 1e21) return value;
  const eighths = value * 8;
  if (Number.isInteger(eighths) && !Number.isInteger(value * 4)) {
    // value = n/8 with n odd: exactly halfway between two cents.
    const twice = BigInt(eighths) * 25n; // 2 × value × 100, odd
    const lower = (twice - 1n) / 2n;
    const upper = (twice + 1n) / 2n;
    const cents = lower % 2n === 0n ? lower : upper;
    return Number(`${cents}e-2`);
  }
  return Number(value.toFixed(2));
}

function isOddInteger(x: number): boolean {
  return Math.abs(x) % 2 === 1;
}

/** CPython's `float_pow`, special cases included. */
function floatPow(base: number, exponent: number): PyValue {
  if (exponent === 0) return float(1);
  if (Number.isNaN(base)) return float(base);
  if (Number.isNaN(exponent)) return float(base === 1 ? 1 : exponent);
  if (!Number.isFinite(exponent)) {
    const magnitude = Math.abs(base);
    if (magnitude === 1) return float(1);
    return float(exponent > 0 === magnitude > 1 ? Infinity : 0);
  }
  if (!Number.isFinite(base)) {
    const odd = isOddInteger(exponent);
    if (exponent > 0) return float(odd ? base : Math.abs(base));
    return float(odd ? (base < 0 ? -0 : 0) : 0);
  }
  if (base === 0) {
    if (exponent < 0) throw zeroDivision("0.0 cannot be raised to a negative power");
    return float(isOddInteger(exponent) ? base : 0);
  }
  let negate = false;
  let magnitude = base;
  if (base < 0) {
    if (exponent !== Math.floor(exponent)) return complexPow(base, 0, exponent, 0);
    magnitude = -base;
    negate = isOddInteger(exponent);
  }
  if (magnitude === 1) return float(negate ? -1 : 1);
  const result = correctlyRoundedPow(magnitude, exponent);
  if (!Number.isFinite(result)) throw overflow("(34, 'Numerical result out of range')");
  return float(negate ? -result : result);
}

function complexProduct(ar: number, ai: number, br: number, bi: number): [number, number] {
  return [ar * br - ai * bi, ar * bi + ai * br];
}

/** CPython's `_Py_c_quot`. */
function complexQuotient(ar: number, ai: number, br: number, bi: number): [number, number] {
  const absRe = Math.abs(br);
  const absIm = Math.abs(bi);
  if (absRe >= absIm) {
    if (absRe === 0) throw zeroDivision("complex division by zero");
    const ratio = bi / br;
    const denominator = br + bi * ratio;
    return [(ar + ai * ratio) / denominator, (ai - ar * ratio) / denominator];
  }
  if (absIm >= absRe) {
    const ratio = br / bi;
    const denominator = br * ratio + bi;
    return [(ar * ratio + ai) / denominator, (ai * ratio - ar) / denominator];
  }
  return [NaN, NaN];
}

/** CPython's `complex_pow` (integer powers up to 100 by repeated squaring, others in polar form). */
function complexPow(ar: number, ai: number, br: number, bi: number): PyValue {
  let re: number;
  let im: number;
  if (bi === 0 && br === Math.trunc(br) && Math.abs(br) <= 100) {
    let n = Math.abs(br);
    let [pr, pi] = [ar, ai];
    [re, im] = [1, 0];
    while (n > 0) {
      if (n & 1) [re, im] = complexProduct(re, im, pr, pi);
      [pr, pi] = complexProduct(pr, pi, pr, pi);
      n >>= 1;
    }
    if (br < 0) [re, im] = complexQuotient(1, 0, re, im);
  } else if (br === 0 && bi === 0) {
    [re, im] = [1, 0];
  } else if (ar === 0 && ai === 0) {
    if (bi !== 0 || br < 0) throw zeroDivision("0.0 to a negative or complex power");
    [re, im] = [0, 0];
  } else {
    const size = Math.hypot(ar, ai);
    let length = Math.pow(size, br);
    const angle = Math.atan2(ai, ar);
    let phase = angle * br;
    if (bi !== 0) {
      length /= Math.exp(angle * bi);
      phase += bi * Math.log(size);
    }
    [re, im] = [length * Math.cos(phase), length * Math.sin(phase)];
  }
  if (!Number.isFinite(re) || !Number.isFinite(im)) {
    if (Number.isNaN(re) || Number.isNaN(im)) return complex(re, im);
    throw overflow("complex exponentiation");
  }
  return complex(re, im);
}

/** CPython's float floor division (`_float_div_mod`). */
function floatFloorDivide(x: number, y: number): number {
  if (y === 0) throw zeroDivision("float floor division by zero");
  let mod = x % y;
  let quotient = (x - mod) / y;
  if (mod) {
    if (y < 0 !== mod < 0) {
      mod += y;
      quotient -= 1;
    }
  }
  if (!quotient) {
    const exact = x / y;
    return exact < 0 || Object.is(exact, -0) ? -0 : 0;
  }
  let floored = Math.floor(quotient);
  if (quotient - floored > 0.5) floored += 1;
  return floored;
}

/** `int / int`: the correctly rounded quotient, as CPython computes it for ints of any size. */
function intTrueDivide(a: bigint, b: bigint): number {
  if (b === 0n) throw zeroDivision("division by zero");
  const limit = 1n << 53n;
  const absA = a < 0n ? -a : a;
  const absB = b < 0n ? -b : b;
  if (absA <= limit && absB <= limit) return Number(a) / Number(b);
  const negative = a < 0n !== b < 0n;
  // Scale so the quotient has ~64 bits; a sticky low bit makes Number() round as if exact.
  const shift = 64 - (bitLength(absA) - bitLength(absB));
  const numerator = shift > 0 ? absA << BigInt(shift) : absA;
  const denominator = shift < 0 ? absB << BigInt(-shift) : absB;
  let quotient = numerator / denominator;
  if (numerator % denominator !== 0n) quotient |= 1n;
  let result = Number(quotient);
  // Scale by 2^-shift in two steps so that neither factor under- or overflows on its own.
  const half = Math.trunc(shift / 2);
  result = result * Math.pow(2, -half) * Math.pow(2, -(shift - half));
  if (!Number.isFinite(result)) throw overflow("integer division result too large for a float");
  return negative ? -result : result;
}

function intPow(base: bigint, exponent: bigint): PyValue {
  if (exponent < 0n) return floatPow(intToFloat(base), intToFloat(exponent));
  const bits = bitLength(base);
  if (bits > 1 && Number(exponent) * bits > MAX_INT_BITS) {
    throw overflow("int too large to convert to float");
  }
  return int(base ** exponent);
}

function floorDivide(a: bigint, b: bigint): bigint {
  if (b === 0n) throw zeroDivision("integer division or modulo by zero");
  const quotient = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
}

function unsupported(operator: BinaryOperator, a: PyValue, b: PyValue): PyException {
  const symbol = operator === "**" ? "** or pow()" : operator;
  return typeError(`unsupported operand type(s) for ${symbol}: '${a.type}' and '${b.type}'`);
}

type Numeric = Extract<PyValue, { type: "int" | "float" | "complex" }>;

function isNumeric(value: PyValue): value is Numeric {
  return value.type === "int" || value.type === "float" || value.type === "complex";
}

/** `a <operator> b` in Python. */
export function binary(operator: BinaryOperator, a: PyValue, b: PyValue): PyValue {
  if (a.type === "tuple" || b.type === "tuple") return tupleOperation(operator, a, b);
  if (!isNumeric(a) || !isNumeric(b)) throw unsupported(operator, a, b);
  if (a.type === "int" && b.type === "int") return intOperation(operator, a.value, b.value);
  if (a.type === "complex" || b.type === "complex") {
    if (operator === "//") throw unsupported(operator, a, b);
    const [ar, ai] = asComplex(a);
    const [br, bi] = asComplex(b);
    switch (operator) {
      case "+":
        return complex(ar + br, ai + bi);
      case "-":
        return complex(ar - br, ai - bi);
      case "*":
        return complex(...complexProduct(ar, ai, br, bi));
      case "/":
        return complex(...complexQuotient(ar, ai, br, bi));
      case "**":
        return complexPow(ar, ai, br, bi);
    }
  }
  const x = a.type === "int" ? intToFloat(a.value) : (a as { value: number }).value;
  const y = b.type === "int" ? intToFloat(b.value) : (b as { value: number }).value;
  switch (operator) {
    case "+":
      return float(x + y);
    case "-":
      return float(x - y);
    case "*":
      return float(x * y);
    case "/":
      if (y === 0) throw zeroDivision("float division by zero");
      return float(x / y);
    case "//":
      return float(floatFloorDivide(x, y));
    case "**":
      return floatPow(x, y);
  }
}

function asComplex(value: Numeric): [number, number] {
  if (value.type === "complex") return [value.re, value.im];
  return [value.type === "int" ? intToFloat(value.value) : value.value, 0];
}

function intOperation(operator: BinaryOperator, a: bigint, b: bigint): PyValue {
  switch (operator) {
    case "+":
      return int(a + b);
    case "-":
      return int(a - b);
    case "*":
      if (bitLength(a) + bitLength(b) > MAX_INT_BITS) throw overflow("int too large to convert to float");
      return int(a * b);
    case "/":
      return float(intTrueDivide(a, b));
    case "//":
      return int(floorDivide(a, b));
    case "**":
      return intPow(a, b);
  }
}

/** Tuples concatenate with tuples and repeat by ints; everything else is a TypeError. */
function tupleOperation(operator: BinaryOperator, a: PyValue, b: PyValue): PyValue {
  if (operator === "+") {
    if (a.type !== "tuple") throw unsupported(operator, a, b);
    if (b.type !== "tuple") throw typeError(`can only concatenate tuple (not "${b.type}") to tuple`);
    return TUPLE;
  }
  if (operator === "*") {
    const count = a.type === "tuple" ? b : a;
    if (count.type !== "int") throw typeError(`can't multiply sequence by non-int of type '${count.type}'`);
    if (count.value >= 1n << 63n || count.value < -(1n << 63n)) {
      throw new PyException("cannot fit 'int' into an index-sized integer", "OverflowError");
    }
    return TUPLE;
  }
  throw unsupported(operator, a, b);
}

/** `-x` / `+x` in Python. */
export function unary(operator: "+" | "-", value: PyValue): PyValue {
  const sign = operator === "-" ? -1 : 1;
  switch (value.type) {
    case "int":
      return int(operator === "-" ? -value.value : value.value);
    case "float":
      return float(sign * value.value);
    case "complex":
      return complex(sign * value.re, sign * value.im);
    default:
      throw typeError(`bad operand type for unary ${operator}: '${value.type}'`);
  }
}
