import { ConfigError } from "../core/errors.js";
import { robustnessRow, type RobustnessRow } from "../metrics/robustness.js";
import { scoredSimulations } from "../metrics/run-metrics.js";
import {
  explainRecordedCall,
  interactionPanel,
  readExploredVoiceRun,
  runInteractionConfig,
  voicePassHatK,
  type ExploredVoiceRun,
  type InteractionMetricRow,
} from "../voice/voice-run-views.js";

// How much an agent's reliability on the phone depends on the line: two voice run directories of the
// same agent, domain, tasks and trials (e.g. `control` and `regular`) paired task by task — pass^k of
// each, the paired difference with its bootstrap interval and sign-flip p-value (the text robustness
// table's statistics), the interaction metrics side by side, and the tasks that flipped with why.

/** One side of the pair, as read from its directory. */
export interface VoiceRobustnessSide {
  folder: string;
  speechComplexity: string | null;
  agent: string | null;
  numTrials: number | null;
  /** pass^k (k = 1…trials) over its tasks with every trial graded, and the average reward. */
  passHatK: Record<string, number>;
  averageReward: number | null;
}

/** One interaction metric of both runs. */
export interface VoiceInteractionComparison {
  key: InteractionMetricRow["key"];
  symbol: string;
  name: string;
  unit: InteractionMetricRow["unit"];
  better: InteractionMetricRow["better"];
  baseline: number | null;
  other: number | null;
  /** Events behind each value. */
  baselineEvents: number;
  otherEvents: number;
}

/** A task whose pass^k differs between the runs, and why its calls that failed did. */
export interface FlippedVoiceTask {
  task_id: string;
  /** `broke`: lower in the other run; `fixed`: higher. */
  direction: "broke" | "fixed";
  baseline: number;
  other: number;
  /** The failed calls of the run it is worse in, each explained (a misheard value, else the failed checks). */
  failures: Array<{ trial: number | null; reward: number; explanation: string | null }>;
}

export interface VoiceRobustnessReport {
  baseline: VoiceRobustnessSide;
  other: VoiceRobustnessSide;
  /** The robustness table's row: pass^k of each, the drop (baseline − other) with its paired interval. */
  row: RobustnessRow;
  /** null when either run has no ticks to measure. */
  interaction: VoiceInteractionComparison[] | null;
  flipped: FlippedVoiceTask[];
}

const taskIds = (run: ExploredVoiceRun) => [...new Set(run.simulations.map((s) => s.task_id))].sort();

/**
 * Why two voice runs cannot be paired, in sentences: a different domain, agent, trial count or set of
 * tasks (none when they can).
 */
export function voiceRunDifferences(a: ExploredVoiceRun, b: ExploredVoiceRun): string[] {
  const problems: string[] = [];
  if (a.domain !== b.domain) problems.push(`the domains differ (${a.domain} and ${b.domain})`);
  if (a.agent !== b.agent)
    problems.push(`the agents differ (${a.agent ?? "unrecorded"} and ${b.agent ?? "unrecorded"})`);
  if (a.numTrials !== b.numTrials)
    problems.push(
      `the trials per task differ (${a.numTrials ?? "unrecorded"} and ${b.numTrials ?? "unrecorded"})`,
    );
  const ta = taskIds(a);
  const tb = new Set(taskIds(b));
  const onlyA = ta.filter((id) => !tb.has(id));
  const onlyB = [...tb].filter((id) => !ta.includes(id));
  const some = (ids: string[]) => `${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ", …" : ""}`;
  if (onlyA.length > 0 || onlyB.length > 0)
    problems.push(
      `the tasks differ (${[
        ...(onlyA.length > 0 ? [`only in the first: ${some(onlyA)}`] : []),
        ...(onlyB.length > 0 ? [`only in the second: ${some(onlyB)}`] : []),
      ].join("; ")})`,
    );
  return problems;
}

function side(run: ExploredVoiceRun): VoiceRobustnessSide {
  const pass = voicePassHatK(run.simulations, run.numTrials);
  return {
    folder: run.folder,
    speechComplexity: run.speechComplexity,
    agent: run.agent,
    numTrials: run.numTrials,
    passHatK: pass.passHatK,
    averageReward: pass.averageReward,
  };
}

function scored(run: ExploredVoiceRun) {
  return scoredSimulations(
    run.simulations.map((s) => ({
      task_id: s.task_id,
      trial: s.trial ?? null,
      termination_reason: s.termination_reason ?? "unknown",
      reward_info: s.reward_info ?? null,
      agent_cost: s.agent_cost ?? null,
      user_cost: s.user_cost ?? null,
      duration: s.duration ?? null,
    })),
    run.domain,
  );
}

/**
 * Pair two voice runs task by task (`baseline` first, e.g. `control`; then the run under harder
 * conditions, e.g. `regular`), or refuse with a sentence when they do not measure the same thing.
 */
export function compareVoiceRuns(baselineFolder: string, otherFolder: string): VoiceRobustnessReport {
  const baseline = readExploredVoiceRun(baselineFolder);
  const other = readExploredVoiceRun(otherFolder);
  const problems = voiceRunDifferences(baseline, other);
  if (problems.length > 0)
    throw new ConfigError(
      `${baselineFolder} and ${otherFolder} cannot be paired: ${problems.join("; ")}. ` +
        "Pair two runs of the same agent on the same domain, tasks and trials (e.g. --speech-complexity control and regular).",
    );
  const label = `${other.speechComplexity ?? "other"} vs ${baseline.speechComplexity ?? "baseline"}`;
  const row = robustnessRow(label, scored(baseline), scored(other), { numTrials: baseline.numTrials });
  return {
    baseline: side(baseline),
    other: side(other),
    row,
    interaction: compareInteraction(baseline, other),
    flipped: flippedTasks(baseline, other, row.k),
  };
}

function compareInteraction(a: ExploredVoiceRun, b: ExploredVoiceRun): VoiceInteractionComparison[] | null {
  const pa = interactionPanel(a.simulations, runInteractionConfig(a));
  const pb = interactionPanel(b.simulations, runInteractionConfig(b));
  if (!pa || !pb) return null;
  return pa.rows.map((row) => {
    const twin = pb.rows.find((r) => r.key === row.key)!;
    return {
      key: row.key,
      symbol: row.symbol,
      name: row.name,
      unit: row.unit,
      better: row.better,
      baseline: row.value,
      other: twin.value,
      baselineEvents: row.events,
      otherEvents: twin.events,
    };
  });
}

function flippedTasks(a: ExploredVoiceRun, b: ExploredVoiceRun, k: number): FlippedVoiceTask[] {
  if (k === 0) return [];
  const perTask = (run: ExploredVoiceRun, id: string) => {
    const sims = run.simulations.filter((s) => s.task_id === id);
    return voicePassHatK(sims, run.numTrials).passHatK[k];
  };
  const flipped: FlippedVoiceTask[] = [];
  for (const id of taskIds(a)) {
    const before = perTask(a, id);
    const after = perTask(b, id);
    if (before === undefined || after === undefined || before === after) continue;
    const worse = after < before ? b : a;
    flipped.push({
      task_id: id,
      direction: after < before ? "broke" : "fixed",
      baseline: before,
      other: after,
      failures: worse.simulations
        .filter((s) => s.task_id === id && s.reward_info && s.reward_info.reward < 1)
        .map((s) => ({
          trial: s.trial ?? null,
          reward: s.reward_info!.reward,
          explanation: explainRecordedCall(worse, s),
        }))
        .sort((x, y) => (x.trial ?? 0) - (y.trial ?? 0)),
    });
  }
  // Broken tasks first, the largest drop first.
  return flipped.sort(
    (x, y) =>
      (x.direction === y.direction ? 0 : x.direction === "broke" ? -1 : 1) ||
      x.other - x.baseline - (y.other - y.baseline) ||
      x.task_id.localeCompare(y.task_id),
  );
}
