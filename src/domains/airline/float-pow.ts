// Exact-enough float arithmetic for the `calculate` tool. CPython's float `**` calls the C library's
// `pow`, which is (nearly always) correctly rounded; V8's `**` is often one ulp off for large results,
// and that shows in `str(float)`. So powers are computed here: integer exponents exactly with BigInt,
// others through 160-bit fixed-point logarithm and exponential, then rounded once.

const PRECISION = 160n;
const ONE = 1n << PRECISION;

/** `(numerator / denominator) · 2^exponent`, correctly rounded to a double (Infinity when too large). */
export function ratioToDouble(numerator: bigint, denominator: bigint, exponent: number): number {
  const negative = numerator < 0n !== denominator < 0n;
  if (numerator === 0n) return negative ? -0 : 0;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  // At least 66 quotient bits and a sticky bit for the remainder: one correct rounding by Number().
  const shift = Math.max(0, 66 - (bitLength(n) - bitLength(d)));
  let quotient = (n << BigInt(shift)) / d;
  let sticky = (n << BigInt(shift)) % d === 0n ? 0n : 1n;
  let scale = exponent - shift;
  const extra = bitLength(quotient) - 66;
  if (extra > 0) {
    if ((quotient & ((1n << BigInt(extra)) - 1n)) !== 0n) sticky = 1n;
    quotient >>= BigInt(extra);
    scale += extra;
  }
  const value = ldexp(Number((quotient << 1n) | sticky), scale - 1);
  return negative ? -value : value;
}

function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/** `value · 2^exponent`, in steps so that no intermediate power of two overflows. */
function ldexp(value: number, exponent: number): number {
  let result = value;
  let rest = exponent;
  while (rest > 1000) {
    result *= 2 ** 1000;
    rest -= 1000;
  }
  while (rest < -1000) {
    result *= 2 ** -1000;
    rest += 1000;
  }
  return result * 2 ** rest;
}

/** A finite double as `mantissa · 2^exponent` with an integer mantissa (exact). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const sign = bits >> 63n === 1n ? -1n : 1n;
  return { mantissa: sign * mantissa, exponent: (biased === 0 ? 1 : biased) - 1075 };
}

let ln2Cache: bigint | undefined;
/** ln 2 in fixed point: 2·atanh(1/3). */
function ln2(): bigint {
  ln2Cache ??= 2n * atanhFixed(ONE / 3n);
  return ln2Cache;
}

/** atanh(t) for a fixed-point t with |t| < 1/2: t + t³/3 + t⁵/5 + … */
function atanhFixed(t: bigint): bigint {
  const t2 = (t * t) >> PRECISION;
  let power = t;
  let sum = t;
  for (let k = 3n; power !== 0n; k += 2n) {
    power = (power * t2) >> PRECISION;
    sum += power / k;
  }
  return sum;
}

/** ln(x) in fixed point, for a finite x > 0. */
function lnFixed(x: number): bigint {
  const { mantissa, exponent } = decompose(x);
  const bits = bitLength(mantissa);
  // x = m · 2^e with m in [1, 2); ln m = 2·atanh((m - 1) / (m + 1)).
  const m = mantissa << (PRECISION - BigInt(bits - 1));
  const e = BigInt(exponent + bits - 1);
  return e * ln2() + 2n * atanhFixed(((m - ONE) * ONE) / (m + ONE));
}

/** e^z for a fixed-point z, as `mantissa · 2^exponent` (mantissa in fixed point). */
function expFixed(z: bigint): { mantissa: bigint; exponent: number } {
  const half = ln2() / 2n;
  const k = z >= 0n ? (z + half) / ln2() : -((half - z) / ln2());
  const r = z - k * ln2();
  let term = ONE;
  let sum = ONE;
  for (let n = 1n; term !== 0n; n++) {
    term = (term * r) / (n << PRECISION);
    sum += term;
  }
  return { mantissa: sum, exponent: Number(k) };
}

/** Largest |z| worth computing: e^800 overflows a double, e^-800 is below its smallest value. */
const EXP_LIMIT = 800n * ONE;

/**
 * |x|^y for finite x ≠ 0 and finite y ≠ 0: correctly rounded (Infinity on overflow, 0 on underflow).
 */
export function powMagnitude(x: number, y: number): number {
  const base = Math.abs(x);
  if (Number.isInteger(y) && Math.abs(y) * 53 <= 20_000) {
    const { mantissa, exponent } = decompose(base);
    const n = BigInt(Math.abs(y));
    const power = mantissa ** n;
    const scale = exponent * Math.abs(y);
    return y > 0 ? ratioToDouble(power, 1n, scale) : ratioToDouble(1n, power, -scale);
  }
  const { mantissa: my, exponent: ey } = decompose(y);
  const product = lnFixed(base) * my;
  const z = ey >= 0 ? product << BigInt(ey) : product >> BigInt(-ey);
  if (z > EXP_LIMIT) return Infinity;
  if (z < -EXP_LIMIT) return 0;
  const { mantissa, exponent } = expFixed(z);
  return ratioToDouble(mantissa, ONE, exponent);
}

/** Whether a float is an odd integer (its sign survives a power). */
export function isOddInteger(y: number): boolean {
  return Number.isInteger(y) && Math.abs(y) < 2 ** 53 && Math.abs(y % 2) === 1;
}
