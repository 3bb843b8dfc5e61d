import { NON_EVALUABLE_TERMINATIONS, type RewardInfo } from "../core/simulation.js";
import { bootstrapMeanIntervals, type BootstrapOptions, type ConfidenceInterval } from "./bootstrap.js";
import { failedChecks } from "./failed-checks.js";
import { pandasMean } from "../python/py-mean.js";
import { isSuccessful, passAtK, passHatK } from "./pass-hat-k.js";

/** What metrics need of one simulation (a τ² `SimulationRun` without its messages, plus its domain). */
export interface ScoredSimulation {
  domain: string;
  task_id: string;
  trial?: number | null;
  termination_reason: string;
  reward_info?: RewardInfo | null;
  agent_cost?: number | null;
  user_cost?: number | null;
  duration?: number | null;
}

/** What metrics need of a results file's simulations (τ² `SimulationRun`s), in one domain. */
export function scoredSimulations(
  simulations: ReadonlyArray<Omit<ScoredSimulation, "domain"> & { reward_info?: RewardInfo | null }>,
  domain: string,
): ScoredSimulation[] {
  return simulations.map((s) => ({
    domain,
    task_id: s.task_id,
    trial: s.trial ?? null,
    termination_reason: s.termination_reason,
    reward_info: s.reward_info ?? null,
    agent_cost: s.agent_cost ?? null,
    user_cost: s.user_cost ?? null,
    duration: s.duration ?? null,
  }));
}

/**
 * Metrics of a set of simulations, named as τ²'s `AgentMetrics` where they mirror it
 * (`avg_reward`, `pass_hat_ks`, `avg_agent_cost`…); passk adds pass@k, bootstrap intervals over
 * tasks and the full termination-reason counts.
 */
export interface Metrics {
  avg_reward: number;
  /** pass^k for k = 1…K, K = min(num_trials, fewest evaluable trials of any task), as τ². */
  pass_hat_ks: Record<string, number>;
  pass_at_ks: Record<string, number>;
  /** Bootstrap interval (over tasks) of each pass^k. */
  pass_hat_k_cis: Record<string, ConfidenceInterval>;
  avg_agent_cost: number | null;
  avg_user_cost: number | null;
  avg_total_cost: number | null;
  /**
   * Evaluable simulations whose agent (user) cost is unknown: a model's price is not in the table.
   * The averages above skip them (as pandas does), so when these are not 0 the averages undercount.
   */
  unknown_agent_costs: number;
  unknown_user_costs: number;
  avg_duration: number | null;
  /** Evaluable simulations and tasks (infrastructure errors excluded). */
  total_simulations: number;
  total_tasks: number;
  infra_error_count: number;
  successful_simulations: number;
  /** Every termination reason seen, infrastructure errors included. */
  termination_reasons: Record<string, number>;
  /** τ²'s grouping: user_stop, agent_stop, max_steps, error (too_many_errors/agent_error/user_error). */
  termination_user_stop: number;
  termination_agent_stop: number;
  termination_max_steps: number;
  termination_error: number;
  termination_infrastructure_error: number;
  /** Gold actions of read (write) tools over evaluable simulations, and how many were matched (τ²'s counts). */
  total_read_actions: number;
  correct_read_actions: number;
  total_write_actions: number;
  correct_write_actions: number;
  /** Evaluable simulations whose final database matched the gold one, did not, or was not checked. */
  db_match_count: number;
  db_mismatch_count: number;
  db_not_checked: number;
}

export interface RunMetrics extends Metrics {
  /** The same metrics per domain (a run may span several). */
  by_domain: Record<string, Metrics>;
}

export interface MetricsOptions {
  /** Trials per task the run asked for (τ² `info.num_trials`); caps K. */
  numTrials?: number | null;
  bootstrap?: BootstrapOptions;
}

export interface TaskOutcome {
  domain: string;
  task_id: string;
  trials: number;
  successes: number;
}

const rewardOf = (s: ScoredSimulation) => s.reward_info?.reward ?? null;
const taskKey = (s: { domain: string; task_id: string }) => `${s.domain}\u0000${s.task_id}`;

/**
 * Successes over evaluable trials per task, in task-id order — the order of τ²'s `groupby("task_id")`,
 * which its averages over tasks sum in (so the means agree to the last bit).
 */
export function taskOutcomes(simulations: readonly ScoredSimulation[]): TaskOutcome[] {
  const byTask = new Map<string, TaskOutcome>();
  for (const s of simulations) {
    if (NON_EVALUABLE_TERMINATIONS.has(s.termination_reason)) continue;
    const key = taskKey(s);
    let outcome = byTask.get(key);
    if (!outcome) {
      outcome = { domain: s.domain, task_id: s.task_id, trials: 0, successes: 0 };
      byTask.set(key, outcome);
    }
    outcome.trials++;
    if (isSuccessful(rewardOf(s))) outcome.successes++;
  }
  return [...byTask.values()].sort(
    (a, b) => compareCodePoints(a.task_id, b.task_id) || compareCodePoints(a.domain, b.domain),
  );
}

/** Python's string order (by code point). */
function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/** τ²'s action and database counts over evaluable simulations. */
function checkCounts(evaluated: readonly ScoredSimulation[]) {
  const counts = {
    total_read_actions: 0,
    correct_read_actions: 0,
    total_write_actions: 0,
    correct_write_actions: 0,
    db_match_count: 0,
    db_mismatch_count: 0,
    db_not_checked: 0,
  };
  for (const s of evaluated) {
    for (const check of s.reward_info?.action_checks ?? []) {
      if (check.tool_type === "read") {
        counts.total_read_actions++;
        if (check.action_match) counts.correct_read_actions++;
      } else if (check.tool_type === "write") {
        counts.total_write_actions++;
        if (check.action_match) counts.correct_write_actions++;
      }
    }
    const db = s.reward_info?.db_check;
    if (!db) counts.db_not_checked++;
    else if (db.db_match) counts.db_match_count++;
    else counts.db_mismatch_count++;
  }
  return counts;
}

/**
 * The largest k reported. τ² reports every k up to the trial count; past a few dozen the numbers say
 * nothing more (and each k costs a pass over every task), so a run of thousands of trials stays linear.
 */
export const MAX_REPORTED_K = 32;

/**
 * τ²'s K: the run's trial count, lowered to the fewest evaluable trials any task has — and to
 * {@link MAX_REPORTED_K}.
 */
export function maxK(outcomes: readonly TaskOutcome[], numTrials?: number | null): number {
  if (outcomes.length === 0) return 0;
  let fewest = Infinity;
  for (const o of outcomes) fewest = Math.min(fewest, o.trials);
  const K = numTrials === null || numTrials === undefined ? fewest : Math.min(numTrials, fewest);
  return Math.min(K, MAX_REPORTED_K);
}

function countReasons(simulations: readonly ScoredSimulation[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of simulations) counts[s.termination_reason] = (counts[s.termination_reason] ?? 0) + 1;
  return counts;
}

/** Metrics of one group of simulations (see {@link computeRunMetrics}). */
export function computeMetrics(
  simulations: readonly ScoredSimulation[],
  options: MetricsOptions = {},
): Metrics {
  const evaluated = simulations.filter((s) => !NON_EVALUABLE_TERMINATIONS.has(s.termination_reason));
  const reasons = countReasons(simulations);
  const outcomes = taskOutcomes(evaluated);
  const K = maxK(outcomes, options.numTrials);
  const passHat: Record<string, number> = {};
  const passAt: Record<string, number> = {};
  const cis: Record<string, ConfidenceInterval> = {};
  if (K > 0) {
    const perTask = outcomes.map((o) =>
      Array.from({ length: K }, (_, i) => passHatK(o.trials, o.successes, i + 1)),
    );
    const intervals = bootstrapMeanIntervals(perTask, options.bootstrap);
    for (let k = 1; k <= K; k++) {
      passHat[k] = pandasMean(perTask.map((row) => row[k - 1]!))!;
      passAt[k] = pandasMean(outcomes.map((o) => passAtK(o.trials, o.successes, k)))!;
      const interval = intervals[k - 1];
      if (interval) cis[k] = interval;
    }
  }
  const count = (...names: string[]) => names.reduce((n, name) => n + (reasons[name] ?? 0), 0);
  return {
    avg_reward: pandasMean(evaluated.map(rewardOf)) ?? 0,
    pass_hat_ks: passHat,
    pass_at_ks: passAt,
    pass_hat_k_cis: cis,
    avg_agent_cost: pandasMean(evaluated.map((s) => s.agent_cost)),
    avg_user_cost: pandasMean(evaluated.map((s) => s.user_cost)),
    avg_total_cost: pandasMean(
      evaluated.map((s) =>
        s.agent_cost !== null &&
        s.agent_cost !== undefined &&
        s.user_cost !== null &&
        s.user_cost !== undefined
          ? s.agent_cost + s.user_cost
          : null,
      ),
    ),
    unknown_agent_costs: evaluated.filter((s) => s.agent_cost === null || s.agent_cost === undefined).length,
    unknown_user_costs: evaluated.filter((s) => s.user_cost === null || s.user_cost === undefined).length,
    avg_duration: pandasMean(evaluated.map((s) => s.duration)),
    total_simulations: evaluated.length,
    total_tasks: outcomes.length,
    infra_error_count: simulations.length - evaluated.length,
    successful_simulations: evaluated.filter((s) => isSuccessful(rewardOf(s))).length,
    termination_reasons: reasons,
    termination_user_stop: count("user_stop"),
    termination_agent_stop: count("agent_stop"),
    termination_max_steps: count("max_steps"),
    termination_error: count("too_many_errors", "agent_error", "user_error"),
    termination_infrastructure_error: count("infrastructure_error"),
    ...checkCounts(evaluated),
  };
}

/**
 * Metrics of a run: over all its simulations and per domain. Infrastructure errors are excluded
 * from every score and counted in `infra_error_count`.
 * @example computeRunMetrics(sims, { numTrials: 4 }).pass_hat_ks[2]
 */
export function computeRunMetrics(
  simulations: readonly ScoredSimulation[],
  options: MetricsOptions = {},
): RunMetrics {
  const domains = [...new Set(simulations.map((s) => s.domain))].sort();
  const byDomain: Record<string, Metrics> = {};
  for (const domain of domains) {
    byDomain[domain] = computeMetrics(
      simulations.filter((s) => s.domain === domain),
      options,
    );
  }
  return { ...computeMetrics(simulations, options), by_domain: byDomain };
}

/** A task's failures with the checks that failed, counted over its trials. */
export interface TaskFailures {
  domain: string;
  task_id: string;
  trials: number;
  failures: number;
  checks: Array<{ kind: string; check: string; count: number }>;
}

/**
 * Tasks with at least one failed evaluable trial, most failures (by rate, then count) first, each
 * with the checks that failed and how often.
 */
export function failingTasks(simulations: readonly ScoredSimulation[]): TaskFailures[] {
  const byTask = new Map<
    string,
    TaskFailures & { checkCounts: Map<string, { kind: string; check: string; count: number }> }
  >();
  for (const s of simulations) {
    if (NON_EVALUABLE_TERMINATIONS.has(s.termination_reason)) continue;
    const key = taskKey(s);
    let entry = byTask.get(key);
    if (!entry) {
      entry = {
        domain: s.domain,
        task_id: s.task_id,
        trials: 0,
        failures: 0,
        checks: [],
        checkCounts: new Map(),
      };
      byTask.set(key, entry);
    }
    entry.trials++;
    if (isSuccessful(rewardOf(s))) continue;
    entry.failures++;
    for (const failed of failedChecks(s.reward_info, s.termination_reason)) {
      const checkKey = `${failed.kind}\u0000${failed.check}`;
      const counted = entry.checkCounts.get(checkKey) ?? { ...failed, count: 0 };
      counted.count++;
      entry.checkCounts.set(checkKey, counted);
    }
  }
  return [...byTask.values()]
    .filter((t) => t.failures > 0)
    .map(({ checkCounts, ...task }) => ({
      ...task,
      checks: [...checkCounts.values()].sort((a, b) => b.count - a.count),
    }))
    .sort((a, b) => b.failures / b.trials - a.failures / a.trials || b.failures - a.failures);
}
