import { pandasMean } from "../python/py-mean.js";
import { passHatK } from "./pass-hat-k.js";
import { pairedComparison, type PairedComparison, type PairedOptions } from "./statistics.js";
import { maxK, taskOutcomes, type ScoredSimulation, type TaskOutcome } from "./run-metrics.js";

export interface TaskComparison {
  domain: string;
  task_id: string;
  /** pass^k for k = 1…K in each run; `before` is run A, `after` run B. */
  before: number[];
  after: number[];
  /** after − before, per k. */
  difference: number[];
  /** Some pass^k is lower in B than in A. */
  regressed: boolean;
  /** Some pass^k is higher in B and none lower. */
  improved: boolean;
}

export interface RunComparison {
  /** The common K: the smaller of the two runs' K. */
  k: number;
  tasks: TaskComparison[];
  regressed: TaskComparison[];
  improved: TaskComparison[];
  /** Tasks evaluated in only one of the runs, as `domain/task_id`. */
  only_in_a: string[];
  only_in_b: string[];
  /** Mean pass^k over the common tasks, per k. */
  pass_hat_ks_a: Record<string, number>;
  pass_hat_ks_b: Record<string, number>;
  /** Is the difference real? A paired test of the per-task success rates over the common tasks. */
  significance: PairedComparison;
}

const key = (o: { domain: string; task_id: string }) => `${o.domain}/${o.task_id}`;

/**
 * Per-task pass^k differences between two runs (A = baseline, B = candidate) over the tasks both
 * evaluated, for k up to the smaller of their K; regressed tasks are listed worst first.
 */
export function compareRuns(
  a: { simulations: readonly ScoredSimulation[]; numTrials?: number | null },
  b: { simulations: readonly ScoredSimulation[]; numTrials?: number | null },
  options: PairedOptions = {},
): RunComparison {
  const outcomesA = new Map(taskOutcomes(a.simulations).map((o) => [key(o), o]));
  const outcomesB = new Map(taskOutcomes(b.simulations).map((o) => [key(o), o]));
  const common = [...outcomesA.keys()].filter((k) => outcomesB.has(k));
  const K = Math.min(maxK([...outcomesA.values()], a.numTrials), maxK([...outcomesB.values()], b.numTrials));
  const row = (o: TaskOutcome) => Array.from({ length: K }, (_, i) => passHatK(o.trials, o.successes, i + 1));
  const tasks = common.map((id): TaskComparison => {
    const before = row(outcomesA.get(id)!);
    const after = row(outcomesB.get(id)!);
    const difference = after.map((value, i) => value - before[i]!);
    const regressed = difference.some((d) => d < 0);
    return {
      domain: outcomesA.get(id)!.domain,
      task_id: outcomesA.get(id)!.task_id,
      before,
      after,
      difference,
      regressed,
      improved: !regressed && difference.some((d) => d > 0),
    };
  });
  const passA: Record<string, number> = {};
  const passB: Record<string, number> = {};
  // Without a task in common there is nothing to compare: no pass^k rather than a made-up 0.
  // Averaged as `computeMetrics` does, so that over the same tasks the numbers equal `report`'s.
  for (let k = 0; k < K && tasks.length > 0; k++) {
    passA[k + 1] = pandasMean(tasks.map((t) => t.before[k]))!;
    passB[k + 1] = pandasMean(tasks.map((t) => t.after[k]))!;
  }
  const worst = (t: TaskComparison) => Math.min(...t.difference);
  const rate = (o: TaskOutcome) => o.successes / o.trials;
  const significance = pairedComparison(
    common.map((id) => ({ a: rate(outcomesA.get(id)!), b: rate(outcomesB.get(id)!) })),
    Math.max(1, Math.min(...common.flatMap((id) => [outcomesA.get(id)!.trials, outcomesB.get(id)!.trials]))),
    options,
  );
  return {
    k: K,
    tasks,
    regressed: tasks.filter((t) => t.regressed).sort((x, y) => worst(x) - worst(y)),
    improved: tasks.filter((t) => t.improved),
    only_in_a: [...outcomesA.keys()].filter((k) => !outcomesB.has(k)),
    only_in_b: [...outcomesB.keys()].filter((k) => !outcomesA.has(k)),
    pass_hat_ks_a: passA,
    pass_hat_ks_b: passB,
    significance,
  };
}
