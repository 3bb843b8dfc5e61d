import { decompose } from "./py-double.js";

// `x ** y` for finite x > 0 (x ≠ 1) and finite y ≠ 0, correctly rounded to the nearest double.
// CPython calls the C library's pow(), which on glibc is accurate to about half an ulp, i.e. gives
// the correctly rounded result; V8's Math.pow is often one ulp off for large results, which Python's
// round(…, 2) then shows (e.g. "1e+26" against "9.999999999999999e+25"). Integer powers are computed
// exactly with BigInt; other powers as exp(y·ln x) in 256-bit fixed point.

const PRECISION = 256n;
const ONE = 1n << PRECISION;
const MAX_EXACT_EXPONENT = 2048;

function bitLength(value: bigint): number {
  return value.toString(2).length;
}

/**
 * The double nearest to numerator / denominator × 2^exponent (ties to even), or Infinity. With
 * `nearTies`, a value within 2^-60 ulp of a halfway point counts as exactly halfway: approximations
 * of exact halfway results (which powers can have) then round as the exact value would.
 */
function roundToDouble(numerator: bigint, denominator: bigint, exponent: number, nearTies = false): number {
  const shift = Math.max(0, 120 - (bitLength(numerator) - bitLength(denominator)));
  const scaled = numerator << BigInt(shift);
  const quotient = scaled / denominator;
  const inexact = scaled % denominator !== 0n;
  const lsb = exponent - shift; // weight of the quotient's lowest bit
  const top = bitLength(quotient) - 1 + lsb;
  if (top > 1023) return Infinity;
  const drop = Math.max(bitLength(quotient) - 53, -1074 - lsb);
  if (drop <= 0) return Number(quotient) * 2 ** lsb;
  let kept = quotient >> BigInt(drop);
  const rest = quotient - (kept << BigInt(drop));
  const half = 1n << BigInt(drop - 1);
  const tolerance = nearTies && drop > 62 ? 1n << BigInt(drop - 61) : 0n;
  const distance = rest - half;
  const tie = (distance === 0n && !inexact) || (distance < 0n ? -distance : distance) < tolerance;
  if (tie ? (kept & 1n) === 1n : distance > 0n || (distance === 0n && inexact)) kept += 1n;
  const scale = lsb + drop;
  if (bitLength(kept) - 1 + scale > 1023) return Infinity;
  // Two steps, so that neither power of two under- or overflows on its own.
  const first = Math.trunc(scale / 2);
  return Number(kept) * 2 ** first * 2 ** (scale - first);
}

let ln2Cache: bigint | undefined;

/** ln(2) in fixed point. */
function ln2(): bigint {
  ln2Cache ??= atanhTimes2((ONE * 1n) / 3n);
  return ln2Cache;
}

/** 2·atanh(z) = ln((1+z)/(1-z)) for fixed-point |z| < 1/2. */
function atanhTimes2(z: bigint): bigint {
  const z2 = (z * z) >> PRECISION;
  let power = z;
  let sum = 0n;
  for (let n = 1n; power !== 0n; n += 2n) {
    sum += power / n;
    power = (power * z2) / ONE; // truncates toward zero, so negative terms also reach 0
  }
  return 2n * sum;
}

/** ln(x) in fixed point, for a positive finite double. */
function ln(x: number): bigint {
  const { mantissa, exponent } = decompose(x);
  // x = f × 2^k with f in [1/√2, √2), so that z = (f-1)/(f+1) is small.
  const bits = bitLength(mantissa);
  let k = exponent + bits - 1;
  let f = (mantissa << PRECISION) >> BigInt(bits - 1); // fixed point, in [1, 2)
  if (f * f > 2n * ONE * ONE) {
    f >>= 1n;
    k += 1;
  }
  const z = ((f - ONE) << PRECISION) / (f + ONE);
  return atanhTimes2(z) + BigInt(k) * ln2();
}

function floorDivide(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
}

/** e^t for fixed-point t, as a fixed-point mantissa and a power of two: e^t = m × 2^(e - PRECISION). */
function exp(t: bigint): { mantissa: bigint; exponent: number } {
  const log2 = ln2();
  const k = floorDivide(t + log2 / 2n, log2); // nearest integer to t / ln2
  const r = t - k * log2; // |r| ≤ ln2/2 (up to rounding)
  let term = ONE;
  let sum = ONE;
  for (let n = 1n; term !== 0n; n++) {
    term = (term * r) / (n << PRECISION);
    sum += term;
  }
  return { mantissa: sum, exponent: Number(k) };
}

/** Correctly rounded `x ** y` (x > 0, x ≠ 1, both finite, y ≠ 0); Infinity when it overflows. */
export function correctlyRoundedPow(x: number, y: number): number {
  const base = decompose(x);
  if (Number.isInteger(y) && Math.abs(y) <= MAX_EXACT_EXPONENT) {
    const power = base.mantissa ** BigInt(Math.abs(y));
    const exponent = base.exponent * y;
    return y > 0 ? roundToDouble(power, 1n, exponent) : roundToDouble(1n, power, exponent);
  }
  const { mantissa: ym, exponent: ye } = decompose(Math.abs(y));
  let t = ln(x) * ym;
  t = ye >= 0 ? t << BigInt(ye) : t >> BigInt(-ye);
  if (y < 0) t = -t;
  // Far outside the double range: no need to evaluate the series.
  const limit = 800n * ONE;
  if (t > limit) return Infinity;
  if (t < -limit) return 0;
  const { mantissa, exponent } = exp(t);
  return roundToDouble(mantissa, 1n, exponent - Number(PRECISION), true);
}
