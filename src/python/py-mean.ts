/**
 * Means computed the way τ²'s metrics get them: pandas `Series.mean()`, i.e. numpy's `add.reduce`
 * (identity 0.0, then pairwise summation with 8 accumulators over blocks of ≤ 128) divided by the
 * number of values, NaN/None skipped. Summation order changes the last bits of a float sum, and
 * passk's numbers must equal the reference's exactly.
 */

const BLOCK = 128;

function pairwiseSum(values: readonly number[], start: number, n: number): number {
  if (n < 8) {
    let sum = -0.0;
    for (let i = 0; i < n; i++) sum += values[start + i]!;
    return sum;
  }
  if (n <= BLOCK) {
    const r = values.slice(start, start + 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j]! += values[start + i + j]!;
    }
    let sum = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) sum += values[start + i]!;
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwiseSum(values, start, half) + pairwiseSum(values, start + half, n - half);
}

/** numpy's float64 `sum` of the values. */
export function numpySum(values: readonly number[]): number {
  return 0.0 + pairwiseSum(values, 0, values.length);
}

/** pandas' `mean()`: missing values skipped; `null` when none remain (pandas gives NaN). */
export function pandasMean(values: ReadonlyArray<number | null | undefined>): number | null {
  const present: number[] = [];
  for (const value of values) {
    if (value !== null && value !== undefined && !Number.isNaN(value)) present.push(value);
  }
  return present.length === 0 ? null : numpySum(present) / present.length;
}
