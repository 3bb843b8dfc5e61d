import { decompose } from "./py-double.js";

// Natural logarithm correctly rounded to the nearest double, as CPython's `math.log` gives it on glibc.
// V8's Math.log is off by one ulp for about 2 % of the arguments BM25's idf takes (e.g. ln 23.5), which
// would change scores in their last bit. The logarithm is computed in 192-bit fixed point with BigInt
// (ln x = k·ln 2 + 2·atanh((m−1)/(m+1)), m in [√½, √2)) and rounded once.

const BITS = 192n;
const ONE = 1n << BITS;

/** 2·atanh(s) for a fixed-point s with |s| ≤ 1/3, in fixed point. */
function twiceAtanh(s: bigint): bigint {
  if (s < 0n) return -twiceAtanh(-s); // shifts round toward −∞: the series runs on |s|
  const square = (s * s) >> BITS;
  let term = s;
  let sum = 0n;
  for (let denominator = 1n; term !== 0n; denominator += 2n) {
    sum += term / denominator;
    term = (term * square) >> BITS;
  }
  return 2n * sum;
}

const LN2 = twiceAtanh(ONE / 3n);
const memo = new Map<number, number>();

/**
 * ln(x), correctly rounded, for finite x > 0; NaN, ±Infinity, 0 and negatives as Math.log gives them.
 *
 * @example
 * correctlyRoundedLog(23.5) // 3.1570004211501135 (Math.log gives 3.157000421150113)
 */
export function correctlyRoundedLog(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) return Math.log(x);
  if (x === 1) return 0;
  const known = memo.get(x);
  if (known !== undefined) return known;
  const { mantissa, exponent } = decompose(x);
  // x = mantissa · 2^exponent with a 53-bit mantissa (subnormals normalised): m = mantissa / 2^52.
  const shift = 53 - mantissa.toString(2).length;
  const normalised = mantissa << BigInt(shift);
  let m = normalised << (BITS - 52n);
  let k = exponent - shift + 52;
  if (Number(normalised) / 2 ** 52 >= Math.SQRT2) {
    m >>= 1n; // m in [√½, 1)
    k += 1;
  }
  const s = ((m - ONE) << BITS) / (m + ONE);
  const fixed = BigInt(k) * LN2 + twiceAtanh(s);
  // Number(bigint) rounds to nearest (ties to even); the power-of-two scaling is exact.
  const result = Number(fixed) / 2 ** Number(BITS);
  if (memo.size < 65536) memo.set(x, result); // BM25 asks for few distinct values; keep memory bounded
  return result;
}
