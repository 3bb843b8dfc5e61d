import { compareRuns } from "./compare-runs.js";
import type { ScoredSimulation } from "./run-metrics.js";
import { pairedComparison, type Interval, type PairedOptions } from "./statistics.js";

/** One row of the robustness table: a perturbation against the clean baseline on the same tasks and seeds. */
export interface RobustnessRow {
  /** The perturbation's spec (`tool-faults@1:rate=0.2`). */
  perturbation: string;
  /** The k of pass^k: the common trial count of both runs (at most 32). */
  k: number;
  /** Tasks both runs evaluated. */
  tasks: number;
  /** pass^k of the clean baseline and under the perturbation, over those tasks. */
  clean: number | null;
  perturbed: number | null;
  /** clean − perturbed: how much reliability the perturbation costs. */
  drop: number | null;
  /** Paired bootstrap interval of the drop (tasks resampled, each task's pair kept). */
  drop_interval: Interval | null;
  /** Sign-flip p-value of the drop (see `pairedComparison`). */
  p_value: number | null;
  /** perturbed ÷ clean: the share of the clean pass^k kept (null when the clean pass^k is 0). */
  robustness: number | null;
  /** Tasks whose pass^k fell under the perturbation, as `domain/task_id`, worst first. */
  broke: string[];
  /** The stored runs compared, when they come from a store. */
  run_id?: string;
  baseline_run_id?: string;
}

/**
 * The robustness of an agent to one perturbation: pass^k under it and clean, on the tasks both runs
 * evaluated, the drop with a paired interval, and the tasks that broke.
 * @example robustnessRow("tool-faults@1", clean.simulations, perturbed.simulations, { numTrials: 4 })
 */
export function robustnessRow(
  perturbation: string,
  clean: readonly ScoredSimulation[],
  perturbed: readonly ScoredSimulation[],
  options: { numTrials?: number | null } & PairedOptions = {},
): RobustnessRow {
  const numTrials = options.numTrials ?? null;
  const comparison = compareRuns(
    { simulations: clean, numTrials },
    { simulations: perturbed, numTrials },
    options,
  );
  const k = comparison.k;
  const cleanPass = comparison.pass_hat_ks_a[k] ?? null;
  const perturbedPass = comparison.pass_hat_ks_b[k] ?? null;
  if (k === 0 || cleanPass === null || perturbedPass === null)
    return {
      perturbation,
      k,
      tasks: 0,
      clean: null,
      perturbed: null,
      drop: null,
      drop_interval: null,
      p_value: null,
      robustness: null,
      broke: [],
    };
  // The paired test over the tasks' pass^k, so that the interval is of the drop the table shows.
  const paired = pairedComparison(
    comparison.tasks.map((t) => ({ a: t.before[k - 1]!, b: t.after[k - 1]! })),
    k,
    options,
  );
  return {
    perturbation,
    k,
    tasks: comparison.tasks.length,
    clean: cleanPass,
    perturbed: perturbedPass,
    drop: cleanPass - perturbedPass,
    // `0 - x`, not `-x`: a zero bound stays 0, never -0.
    drop_interval: { low: 0 - paired.interval.high, high: 0 - paired.interval.low },
    p_value: paired.p_value,
    robustness: cleanPass === 0 ? null : perturbedPass / cleanPass,
    broke: comparison.regressed.map((t) => `${t.domain}/${t.task_id}`),
  };
}
