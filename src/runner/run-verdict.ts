import type { RunStore } from "../core/run-store.js";
import type { RobustnessRow } from "../metrics/robustness.js";
import { checkRobustnessThresholds, type RobustnessThreshold, type ThresholdResult } from "./fail-under.js";
import { storedRobustnessRows } from "./robustness-pairs.js";
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
