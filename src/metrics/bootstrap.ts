import { seededRandom } from "../core/seeded-random.js";

// Percentile-bootstrap confidence intervals over tasks, with a seeded generator so that a report
// prints the same interval every time.

/** numpy's default (linear) percentile of sorted values, q in [0, 100]. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError("percentile of no values");
  const position = (q / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.min(lower + 1, sorted.length - 1);
  const fraction = position - lower;
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * fraction;
}

export interface BootstrapOptions {
  /** Number of resamples (default 1000). */
  resamples?: number;
  /** Confidence level (default 0.95). */
  level?: number;
  /** Seed of the generator (default 0). */
  seed?: number;
}

export interface ConfidenceInterval {
  low: number;
  high: number;
  level: number;
}

/**
 * Bootstrap intervals for the means of several statistics measured on the same units (tasks):
 * `rows[i][s]` is statistic `s` on unit `i`. Each resample draws units with replacement, once for
 * all statistics, so the intervals of pass^1…pass^K stay consistent with each other.
 * @example bootstrapMeanIntervals([[1], [0], [1]], { seed: 1 })[0] // { low, high, level: 0.95 }
 */
export function bootstrapMeanIntervals(
  rows: readonly (readonly number[])[],
  options: BootstrapOptions = {},
): ConfidenceInterval[] {
  const resamples = options.resamples ?? 1000;
  const level = options.level ?? 0.95;
  const width = rows[0]?.length ?? 0;
  if (rows.length === 0 || width === 0 || resamples <= 0) return [];
  const random = seededRandom(options.seed ?? 0);
  const means = Array.from({ length: width }, () => new Array<number>(resamples));
  const sums = new Array<number>(width);
  for (let r = 0; r < resamples; r++) {
    sums.fill(0);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[Math.floor(random() * rows.length)]!;
      for (let s = 0; s < width; s++) sums[s]! += row[s]!;
    }
    for (let s = 0; s < width; s++) means[s]![r] = sums[s]! / rows.length;
  }
  const tail = ((1 - level) / 2) * 100;
  return means.map((values) => {
    values.sort((a, b) => a - b);
    return { low: percentile(values, tail), high: percentile(values, 100 - tail), level };
  });
}
