import type { RunStore } from "../core/run-store.js";
import type { RobustnessRow } from "../metrics/robustness.js";
import { checkRobustnessThresholds, type RobustnessThreshold, type ThresholdResult } from "./fail-under.js";
import { storedRobustnessRows } from "./robustness-pairs.js";
import { formatDuration } from "./run-progress.js";
import type { RunSessionOutcome } from "./run.js";

/** What a finished run session means for whoever gates on it (a CI job, a script). */
export interface RunVerdict {
  /**
   * A perturbed, completed run beside its clean baseline (the newest completed clean run configured
   * the same); empty otherwise.
   */
  robustness: RobustnessRow[];
  /** Every gate checked: the metric thresholds, then the robustness thresholds. */
  gates: Array<Omit<ThresholdResult, "threshold"> & { threshold: { text: string } }>;
  /** Conversations of the run not run yet (it was stopped or its budget spent). */
  unfinished: number;
  /** Some gate failed, or the run is unfinished while it has gates: a gate keeper says no. */
  belowThreshold: boolean;
  /**
   * Set when conversations ended but not one was graded (the provider, a timeout, a base URL…): the
   * run measured nothing, whatever its status says.
   */
  nothingGraded?: { conversations: number; terminations: Record<string, number>; firstError?: string };
}

type Session = Pick<RunSessionOutcome, "run" | "outcome" | "metrics" | "simulations" | "thresholds"> & {
  perturbations: readonly unknown[];
  robustnessThresholds: readonly RobustnessThreshold[];
};

/** The verdict on a run session, from its outcome and the store (for the baseline and the errors). */
export function runVerdict(
  store: Pick<RunStore, "getRun" | "listRuns" | "scoredSimulations" | "getSimulations">,
  session: Session,
): RunVerdict {
  const { outcome, metrics, simulations, perturbations } = session;
  const id = session.run.id;
  const robustness =
    perturbations.length > 0 && outcome.reason === "completed" ? storedRobustnessRows(store, id) : [];
  const gates = [
    ...session.thresholds,
    ...checkRobustnessThresholds(robustness, session.robustnessThresholds),
  ];
  const unfinished = outcome.counts.queued + outcome.counts.claimed;
  const graded = simulations.length === 0 || metrics.total_simulations > 0;
  const firstError = graded
    ? undefined
    : store
        .getSimulations(id)
        .map((s) => (s.simulation.info as { error?: unknown } | null | undefined)?.error)
        .find((e): e is string => typeof e === "string");
  return {
    robustness,
    gates,
    unfinished,
    belowThreshold: gates.length > 0 && (gates.some((g) => !g.passed) || unfinished > 0),
    ...(graded || outcome.reason === "interrupted"
      ? {}
      : {
          nothingGraded: {
            conversations: simulations.length,
            terminations: metrics.termination_reasons,
            ...(firstError !== undefined ? { firstError } : {}),
          },
        }),
  };
}

/** How a run session ended, in one line, and how to go on with the run when it is not complete. */
export function describeRunEnd(
  session: Pick<RunSessionOutcome, "run" | "outcome" | "wallMs">,
  maxCost: number | undefined,
): string {
  const { outcome, wallMs } = session;
  const id = session.run.id;
  const unfinished = outcome.counts.queued + outcome.counts.claimed;
  switch (outcome.reason) {
    case "completed":
      return `completed: ${outcome.counts.total} conversations stored in ${formatDuration(wallMs)} (this session ran ${outcome.completed})`;
    case "budget_reached":
      return (
        `stopped: budget of $${maxCost} reached ($${outcome.spent.toFixed(4)} spent); ${unfinished} conversations not run. ` +
        `Continue with \`passk run --resume ${id} --max-cost <more>\``
      );
    case "cost_uncountable":
      return (
        `stopped: --max-cost $${maxCost} can no longer be checked (a provider reported impossible token usage; $${outcome.spent.toFixed(4)} counted); ${unfinished} conversations not run. ` +
        `Continue with \`passk run --resume ${id}\` once the provider reports usage correctly`
      );
    default:
      return `interrupted: ${unfinished} conversations not run. Continue with \`passk run --resume ${id}\``;
  }
}

/** Each gate as PASS or FAIL with its value, then why an incomplete run fails them all. */
export function describeGates(verdict: Pick<RunVerdict, "gates" | "unfinished">): string[] {
  const lines = verdict.gates.map(
    (r) =>
      `${r.passed ? "PASS" : "FAIL"} ${r.threshold.text}: ${r.value === null ? "-" : r.value.toFixed(4)}${r.reason && !r.passed ? ` (${r.reason})` : ""}`,
  );
  if (verdict.gates.length > 0 && verdict.unfinished > 0)
    lines.push(`FAIL the run is incomplete (${verdict.unfinished} conversations not run)`);
  return lines;
}

/** Why a run that graded nothing measured nothing, and what to do about it. */
export function describeNothingGraded(
  nothing: NonNullable<RunVerdict["nothingGraded"]>,
  runId: string,
): string {
  const terminations = Object.entries(nothing.terminations)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  return (
    `nothing could be graded: all ${nothing.conversations} conversations ended without a gradable result ` +
    `(${terminations})${nothing.firstError ? `; the first said: ${nothing.firstError}` : ""}. Fix the cause (provider, --timeout, ` +
    `base URL), then continue with \`passk run --resume ${runId}\`.`
  );
}
