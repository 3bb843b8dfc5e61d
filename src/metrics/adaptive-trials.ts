import { isSuccessful } from "./pass-hat-k.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import { normalQuantile } from "./statistics.js";

// Adaptive trials: how precisely a run knows the agent's mean success rate over *its* tasks, and where
// one more trial shrinks that uncertainty most. Pure functions; the runner (runner/adaptive-run.ts)
// loops over them.

/** What is known of one task: its evaluable trials and how many passed. */
export interface TrialTally {
  domain: string;
  task_id: string;
  trials: number;
  successes: number;
}

/** The run's mean success rate over its tasks, with a normal interval on the trial-to-trial noise. */
export interface MeanSuccessInterval {
  estimate: number;
  halfWidth: number;
  low: number;
  high: number;
  tasks: number;
  trials: number;
}

/**
 * The variance of a task's observed success rate r = s/n, as it would be after `trials` trials at the
 * same rate: p̃(1−p̃)/n with p̃ = (rn + 1)/(n + 2), the rate shrunk toward ½ (Laplace). A task seen to
 * pass (or fail) every time stays uncertain — two clean trials do not prove a rate of 1 — which the
 * adaptive design needs: it gives such tasks fewer trials, so an optimistic variance for them would
 * stop the run too early. Chosen by simulation (bench/adaptive-trials.ts, and populations from all-flaky
 * to mostly-decided): the adaptive run's 95% intervals cover the truth 93–100% of the time, where the
 * plug-in with a Jeffreys or uniform posterior fell to 86%.
 */
function varianceOf(t: TrialTally, trials = t.trials): number {
  const shrunk = ((t.successes / t.trials) * trials + 1) / (trials + 2);
  return (shrunk * (1 - shrunk)) / trials;
}

/**
 * Mean over tasks of each task's success rate s/n, and the half-width z·√(Σ vᵢ)/N of its interval
 * (vᵢ the variance of task i's rate, see `varianceOf`). Tasks are the run's own: the interval says how well the trials pin
 * down the agent's success rate on these tasks, which more trials can narrow — not how it would fare on
 * other tasks (the bootstrap band of pass^k says that).
 * @example meanSuccessInterval([{ domain: "d", task_id: "a", trials: 4, successes: 2 }]).estimate // 0.5
 */
export function meanSuccessInterval(tallies: readonly TrialTally[], level = 0.95): MeanSuccessInterval {
  const tasks = tallies.filter((t) => t.trials > 0);
  if (tasks.length === 0) return { estimate: 0, halfWidth: 1, low: 0, high: 1, tasks: 0, trials: 0 };
  const z = normalQuantile(1 - (1 - level) / 2);
  const n = tasks.length;
  const estimate = tasks.reduce((sum, t) => sum + t.successes / t.trials, 0) / n;
  const variance = tasks.reduce((sum, t) => sum + varianceOf(t), 0) / (n * n);
  const halfWidth = z * Math.sqrt(variance);
  return {
    estimate,
    halfWidth,
    low: Math.max(0, estimate - halfWidth),
    high: Math.min(1, estimate + halfWidth),
    tasks: n,
    trials: tasks.reduce((sum, t) => sum + t.trials, 0),
  };
}

/**
 * The next `count` trials to run: greedily, each goes to the task whose next trial removes the most
 * variance from the mean (vᵢ at n trials minus vᵢ at n + 1) — undecided tasks with few trials first, tasks that
 * always pass or fail last. A task never gets more than `maxTrials`. Returns one entry per trial to add.
 */
export function nextTrials(
  tallies: readonly TrialTally[],
  options: { count: number; maxTrials: number },
): TrialTally[] {
  const planned = new Map<TrialTally, number>();
  const picks: TrialTally[] = [];
  for (let i = 0; i < options.count; i++) {
    let best: TrialTally | undefined;
    let bestGain = 0;
    for (const t of tallies) {
      const n = t.trials + (planned.get(t) ?? 0);
      if (n >= options.maxTrials) continue;
      const gain = t.trials === 0 ? Infinity : varianceOf(t, n) - varianceOf(t, n + 1);
      if (gain > bestGain) {
        best = t;
        bestGain = gain;
      }
    }
    if (!best) break;
    planned.set(best, (planned.get(best) ?? 0) + 1);
    picks.push(best);
  }
  return picks;
}

/**
 * Trials per task a fixed design (every task the same number of trials) would need to report the same
 * half-width, projected from the rates observed: each task keeps its success rate sᵢ/nᵢ, and the smallest
 * k is found whose interval, computed as `meanSuccessInterval` would from k trials per task at those
 * rates, is no wider. At least `minTrials`; at most `limit` (returned when never reached).
 */
export function fixedDesignTrials(
  tallies: readonly TrialTally[],
  halfWidth: number,
  options: { level?: number; minTrials?: number; limit?: number } = {},
): number {
  const tasks = tallies.filter((t) => t.trials > 0);
  const minTrials = options.minTrials ?? 1;
  const limit = options.limit ?? 10_000;
  if (tasks.length === 0 || !(halfWidth > 0)) return minTrials;
  const z = normalQuantile(1 - (1 - (options.level ?? 0.95)) / 2);
  for (let k = minTrials; k < limit; k++) {
    const variance = tasks.reduce((sum, t) => sum + varianceOf(t, k), 0);
    if ((z * Math.sqrt(variance)) / tasks.length <= halfWidth + 1e-12) return k;
  }
  return limit;
}

/**
 * The tallies of a run's planned tasks from its simulations: evaluable trials and successes (an
 * infrastructure error is no trial of the agent). Tasks with no simulation yet have zero trials.
 */
export function trialTallies(
  simulations: ReadonlyArray<{
    domain: string;
    task_id: string;
    termination_reason: string;
    reward_info?: { reward?: number | null } | null;
  }>,
  domains: ReadonlyArray<{ domain: string; tasks: ReadonlyArray<{ id: string }> }>,
): TrialTally[] {
  const tallies = new Map<string, TrialTally>();
  for (const { domain, tasks } of domains)
    for (const task of tasks)
      tallies.set(`${domain}\u0000${task.id}`, { domain, task_id: task.id, trials: 0, successes: 0 });
  for (const s of simulations) {
    if (NON_EVALUABLE_TERMINATIONS.has(s.termination_reason)) continue;
    const tally = tallies.get(`${s.domain}\u0000${s.task_id}`);
    if (!tally) continue;
    tally.trials++;
    if (isSuccessful(s.reward_info?.reward)) tally.successes++;
  }
  return [...tallies.values()];
}

/** What an adaptive run measured and what it saved, in three lines. */
export function describeAdaptive(
  tallies: readonly TrialTally[],
  plan: { minTrials: number; maxTrials: number; targetCi: number },
): string {
  const interval = meanSuccessInterval(tallies);
  const reached = interval.halfWidth <= plan.targetCi;
  const perTask = new Map<number, number>();
  for (const t of tallies) perTask.set(t.trials, (perTask.get(t.trials) ?? 0) + 1);
  const distribution = [...perTask]
    .sort((a, b) => a[0] - b[0])
    .map(([trials, tasks]) => `${trials} trials × ${tasks} task${tasks === 1 ? "" : "s"}`)
    .join(", ");
  const atMax = tallies.every((t) => t.trials >= plan.maxTrials);
  const fixedK = fixedDesignTrials(tallies, interval.halfWidth, { minTrials: plan.minTrials });
  const fixedTotal = fixedK * interval.tasks;
  const saved = fixedTotal - interval.trials;
  return [
    `adaptive: mean success rate ${interval.estimate.toFixed(3)} ± ${interval.halfWidth.toFixed(3)} ` +
      `(95%, over these tasks' trials) — target ± ${plan.targetCi} ` +
      (reached
        ? "reached"
        : `not reached (${atMax ? `every task has --max-trials ${plan.maxTrials}` : "the run stopped first"})`),
    `trials per task: ${distribution} — ${interval.trials} graded conversations; pass^k is reported up to k = ${plan.minTrials}, each task's from all its trials`,
    `a fixed design needs ${fixedK} trials per task (${fixedTotal} conversations) for the same interval: ` +
      (saved > 0
        ? `adaptive saved ${saved} (${((100 * saved) / fixedTotal).toFixed(0)}%)`
        : `adaptive saved none (${-saved} more)`),
  ].join("\n");
}
