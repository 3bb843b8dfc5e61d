/**
 * pass^k and pass@k for one task from its trial counts (Yao et al. 2024, arXiv:2406.12045).
 *
 * pass^k = C(c, k) / C(n, k): the chance that k trials drawn without replacement from the n trials
 * all succeed. pass@k = 1 − C(n − c, k) / C(n, k): the chance that at least one of them succeeds.
 * Binomials are exact (BigInt) and the quotient correctly rounded, as Python's `math.comb(c, k) /
 * math.comb(n, k)` is, so the numbers equal τ²'s `pass_hat_k` bit for bit.
 */

/** Exact binomial coefficient C(n, k) (0 when k > n). */
export function binomial(n: number, k: number): bigint {
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0 || k < 0) {
    throw new RangeError(`binomial(${n}, ${k}): both arguments must be non-negative integers`);
  }
  if (k > n) return 0n;
  const m = Math.min(k, n - k);
  let result = 1n;
  for (let i = 1; i <= m; i++) result = (result * BigInt(n - m + i)) / BigInt(i);
  return result;
}

const EXACT = 2n ** 53n;

/** a / b correctly rounded to the nearest double (Python's int / int). */
export function divideExact(a: bigint, b: bigint): number {
  if (b === 0n) throw new RangeError("division by zero");
  if (a === 0n) return 0;
  // Both operands exact doubles: IEEE division is correctly rounded already.
  if (a < EXACT && b < EXACT) return Number(a) / Number(b);
  // Otherwise take a quotient with ≥ 64 significant bits plus a sticky bit, so that the single
  // rounding in Number() is the correct one.
  const shift = BigInt(Math.max(0, 64 + b.toString(2).length - a.toString(2).length));
  const scaled = a << shift;
  let quotient = scaled / b;
  if (scaled % b !== 0n) quotient |= 1n;
  return Number(quotient) / 2 ** Number(shift);
}

function checkCounts(numTrials: number, successCount: number, k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  if (successCount < 0 || successCount > numTrials) {
    throw new RangeError(`success count ${successCount} must lie between 0 and the ${numTrials} trials`);
  }
  if (numTrials < k) throw new RangeError(`number of trials ${numTrials} is less than k ${k}`);
}

/**
 * pass^k of one task: the probability that k of its n trials, drawn without replacement, all pass.
 * @example passHatK(4, 3, 2) // C(3,2)/C(4,2) = 3/6 = 0.5
 */
export function passHatK(numTrials: number, successCount: number, k: number): number {
  checkCounts(numTrials, successCount, k);
  return divideExact(binomial(successCount, k), binomial(numTrials, k));
}

/**
 * pass@k of one task: the probability that at least one of k of its n trials passes.
 * @example passAtK(4, 1, 2) // 1 − C(3,2)/C(4,2) = 0.5
 */
export function passAtK(numTrials: number, successCount: number, k: number): number {
  checkCounts(numTrials, successCount, k);
  const allFail = binomial(numTrials - successCount, k);
  const total = binomial(numTrials, k);
  return divideExact(total - allFail, total);
}

/** τ²'s success test: a reward within 1e-6 of 1. Missing rewards are failures. */
export function isSuccessful(reward: number | null | undefined): boolean {
  return reward !== null && reward !== undefined && reward >= 1 - 1e-6 && reward <= 1 + 1e-6;
}
