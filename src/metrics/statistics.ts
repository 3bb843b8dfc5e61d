import { seededRandom } from "../core/seeded-random.js";
import { percentile } from "./bootstrap.js";

// Statistics that say what a number means: an interval for each task's success rate, a paired test
// for a difference between two runs, and the size a run needs to see a given difference. Pure
// functions; each states its method in one line (the README repeats them).

/** The standard normal quantile: normalQuantile(0.975) ≈ 1.959964. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must lie in (0, 1), got ${p}`);
  // Acklam's rational approximation: relative error below 1.2e-9, far below what an interval needs.
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  return x;
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval for a success rate of `successes` out of `n` — better behaved than the normal
 * interval at 0 or n successes and for few trials.
 */
export function wilsonInterval(successes: number, n: number, level = 0.95): Interval {
  if (!(Number.isInteger(n) && n > 0 && Number.isInteger(successes) && successes >= 0 && successes <= n))
    throw new RangeError(`wilsonInterval: need 0 ≤ successes ≤ n, n ≥ 1 (got ${successes} of ${n})`);
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / n;
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/** Per task: its success rate with a Wilson interval, and whether it is flaky (passes and fails). */
export interface TaskStatistics {
  domain: string;
  task_id: string;
  trials: number;
  successes: number;
  success_rate: number;
  interval: Interval;
  flaky: boolean;
}

export function taskStatistics(
  outcomes: ReadonlyArray<{ domain: string; task_id: string; trials: number; successes: number }>,
  level = 0.95,
): TaskStatistics[] {
  return outcomes
    .filter((o) => o.trials > 0)
    .map((o) => ({
      domain: o.domain,
      task_id: o.task_id,
      trials: o.trials,
      successes: o.successes,
      success_rate: o.successes / o.trials,
      interval: wilsonInterval(o.successes, o.trials, level),
      flaky: o.successes > 0 && o.successes < o.trials,
    }));
}

/** The outcome of a paired comparison of two runs over their common tasks. */
export interface PairedComparison {
  /** Tasks in both runs. */
  tasks: number;
  /** Mean over tasks of B's success rate minus A's. */
  difference: number;
  /** Percentile-bootstrap interval of that difference (tasks resampled, pairs kept). */
  interval: Interval;
  /** Two-sided p-value of the sign-flip permutation test (exact McNemar when each task had 1 trial). */
  p_value: number;
  /** "exact" (all sign flips enumerated) or "monte-carlo" (seeded resamples). */
  p_method: "exact" | "monte-carlo";
  /** Whether the difference is distinguishable from none at `alpha`. */
  distinguishable: boolean;
  alpha: number;
  /** The smallest difference this design detects with 80% power at `alpha` (see minimumDetectableDifference). */
  minimum_detectable_difference: number;
}

export interface PairedOptions {
  alpha?: number;
  seed?: number;
  /** Monte-Carlo resamples when there are too many sign patterns to enumerate (default 20,000). */
  resamples?: number;
  /** Bootstrap resamples for the interval (default 2,000). */
  bootstrap?: number;
}

/** Enumerate every sign pattern up to this many non-zero differences (2^20 ≈ a million sums). */
const EXACT_LIMIT = 20;

/**
 * Paired comparison of per-task success rates (A, B) over common tasks: the mean difference, a
 * bootstrap interval, and the sign-flip permutation test — under "no difference" each task's
 * difference is as likely positive as negative. With one trial per task this is the exact McNemar test.
 */
export function pairedComparison(
  pairs: ReadonlyArray<{ a: number; b: number }>,
  trialsPerTask: number,
  options: PairedOptions = {},
): PairedComparison {
  const alpha = options.alpha ?? 0.05;
  const n = pairs.length;
  const differences = pairs.map((p) => p.b - p.a);
  const mean = n === 0 ? 0 : differences.reduce((s, d) => s + d, 0) / n;
  const random = seededRandom(options.seed ?? 0);
  const { p, method } = signFlipPValue(differences, random, options.resamples ?? 20_000);
  const interval =
    n === 0
      ? { low: 0, high: 0 }
      : bootstrapMeanInterval(differences, random, options.bootstrap ?? 2_000, 1 - alpha);
  const pooled = n === 0 ? 0.5 : pairs.reduce((s, x) => s + x.a + x.b, 0) / (2 * n);
  return {
    tasks: n,
    difference: mean,
    interval,
    p_value: p,
    p_method: method,
    distinguishable: n > 0 && p < alpha,
    alpha,
    minimum_detectable_difference: minimumDetectableDifference({
      tasks: Math.max(1, n),
      trialsPerTask,
      successRate: pooled,
      alpha,
    }),
  };
}

/** Two-sided p-value of the sign-flip test on the differences' sum (exact when few are non-zero). */
export function signFlipPValue(
  differences: readonly number[],
  random: () => number = seededRandom(0),
  resamples = 20_000,
): { p: number; method: "exact" | "monte-carlo" } {
  const nonzero = differences.filter((d) => d !== 0).map(Math.abs);
  if (nonzero.length === 0) return { p: 1, method: "exact" };
  const observed = Math.abs(differences.reduce((s, d) => s + d, 0));
  // A tiny tolerance: sums of rates like 1/3 differ in the last bits between orders.
  const atLeast = (sum: number) => Math.abs(sum) >= observed - 1e-9;
  if (nonzero.length <= EXACT_LIMIT) {
    let count = 0;
    const patterns = 2 ** nonzero.length;
    for (let mask = 0; mask < patterns; mask++) {
      let sum = 0;
      for (let i = 0; i < nonzero.length; i++) sum += mask & (1 << i) ? nonzero[i]! : -nonzero[i]!;
      if (atLeast(sum)) count++;
    }
    return { p: count / patterns, method: "exact" };
  }
  let count = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (const d of nonzero) sum += random() < 0.5 ? d : -d;
    if (atLeast(sum)) count++;
  }
  // The observed pattern counts as one of the resamples, so p is never 0.
  return { p: (count + 1) / (resamples + 1), method: "monte-carlo" };
}

function bootstrapMeanInterval(
  values: readonly number[],
  random: () => number,
  resamples: number,
  level: number,
): Interval {
  const means = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[Math.floor(random() * values.length)]!;
    means[r] = sum / values.length;
  }
  means.sort((x, y) => x - y);
  const tail = ((1 - level) / 2) * 100;
  return { low: percentile(means, tail), high: percentile(means, 100 - tail) };
}

export interface DesignOptions {
  tasks: number;
  trialsPerTask: number;
  /** The success rate the runs are near (0.5 is the worst case). */
  successRate?: number;
  alpha?: number;
  /** Chance of detecting a true difference of the returned size (default 0.8). */
  power?: number;
}

/**
 * The smallest difference in mean success rate between two runs of this size that a two-sided test
 * at `alpha` detects with the given power: (z₁₋α/₂ + z_power) · √(2·p(1−p)/k) / √N, treating each
 * task's k trials in each run as binomial at rate p (between-task differences cancel in the pairing).
 */
export function minimumDetectableDifference(options: DesignOptions): number {
  const { tasks, trialsPerTask } = options;
  if (!(tasks >= 1 && trialsPerTask >= 1))
    throw new RangeError("minimumDetectableDifference: tasks and trials ≥ 1");
  const p = options.successRate ?? 0.5;
  const z = normalQuantile(1 - (options.alpha ?? 0.05) / 2) + normalQuantile(options.power ?? 0.8);
  return (z * Math.sqrt((2 * p * (1 - p)) / trialsPerTask)) / Math.sqrt(tasks);
}

/** The fewest trials per task for which {@link minimumDetectableDifference} is at most `detect`. */
export function trialsToDetect(options: Omit<DesignOptions, "trialsPerTask"> & { detect: number }): number {
  if (!(options.detect > 0 && options.detect <= 1))
    throw new RangeError("trialsToDetect: detect must lie in (0, 1]");
  const p = options.successRate ?? 0.5;
  const z = normalQuantile(1 - (options.alpha ?? 0.05) / 2) + normalQuantile(options.power ?? 0.8);
  const k = Math.ceil((2 * p * (1 - p) * z * z) / (options.tasks * options.detect * options.detect) - 1e-9);
  return Math.max(1, k);
}

/** A trials plan: the trials per task needed, and beside it the usual choices with what each detects. */
export interface TrialsPlan {
  trials: number;
  /** The needed count and 1, 2, 4 … 32 trials per task, ascending: conversations per run, detectable difference. */
  choices: Array<{ trials: number; conversations: number; detectable: number }>;
}

/** How many trials per task two runs need to detect `detect` ({@link trialsToDetect}), with the alternatives. */
export function planTrials(options: Omit<DesignOptions, "trialsPerTask"> & { detect: number }): TrialsPlan {
  const trials = trialsToDetect(options);
  const choices = [trials, ...[1, 2, 4, 8, 16, 32].filter((n) => n !== trials)]
    .sort((x, y) => x - y)
    .map((n) => ({
      trials: n,
      conversations: n * options.tasks,
      detectable: minimumDetectableDifference({ ...options, trialsPerTask: n }),
    }));
  return { trials, choices };
}

const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`;

/** One paragraph: the difference, its interval, the test, and what this run size can detect. */
export function describeSignificance(s: PairedComparison): string {
  if (s.tasks === 0) return "no task in common: nothing to compare";
  const test = `p = ${s.p_value < 0.001 ? "< 0.001" : s.p_value.toFixed(3)}, paired sign-flip test over ${s.tasks} tasks${s.p_method === "exact" ? ", exact" : ""}`;
  const level = Math.round((1 - s.alpha) * 100);
  const head = `B − A success rate: ${signed(s.difference)} [${level}% CI ${signed(s.interval.low)}, ${signed(s.interval.high)}] (${test})`;
  return s.distinguishable
    ? `${head}: the difference is real at α = ${s.alpha}.`
    : `${head}: not distinguishable at α = ${s.alpha}. With this many tasks and trials, differences below ` +
        `${s.minimum_detectable_difference.toFixed(3)} go undetected (80% power); \`passk plan\` says what would see them.`;
}

/** How many tasks always pass, always fail, or are flaky (pass in some trials and fail in others). */
export function describeTaskStability(tasks: readonly TaskStatistics[]): string {
  const flaky = tasks.filter((t) => t.flaky);
  const always = tasks.filter((t) => t.successes === t.trials).length;
  const never = tasks.filter((t) => t.successes === 0).length;
  const line = `tasks: ${always} always pass, ${never} always fail, ${flaky.length} flaky (pass in some trials, fail in others)`;
  if (flaky.length === 0) return line;
  const shown = flaky
    .slice(0, 5)
    .map(
      (t) =>
        `${t.task_id} ${t.successes}/${t.trials} [95% CI ${t.interval.low.toFixed(2)}, ${t.interval.high.toFixed(2)}]`,
    );
  return `${line}: ${shown.join("; ")}${flaky.length > 5 ? "; …" : ""}`;
}
