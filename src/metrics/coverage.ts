import { type Metrics } from "./run-metrics.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";

/**
 * How much of a run its scores cover: the conversations that were graded, of all it holds (infrastructure
 * errors and other ungradable endings included) or planned, when more were planned (a stopped run).
 */
export interface GradingCoverage {
  graded: number;
  total: number;
}

/** The coverage of metrics; `planned` counts conversations a stopped run never held. */
export function gradingCoverage(
  metrics: Pick<Metrics, "total_simulations" | "termination_reasons">,
  planned?: number | null,
): GradingCoverage {
  const notGraded = Object.entries(metrics.termination_reasons)
    .filter(([reason]) => NON_EVALUABLE_TERMINATIONS.has(reason))
    .reduce((sum, [, n]) => sum + n, 0);
  const held = metrics.total_simulations + notGraded;
  return { graded: metrics.total_simulations, total: Math.max(held, planned ?? 0) };
}

/**
 * "graded 8 of 40" when a score covers only part of its run, else undefined: every headline carries it
 * beside its figures, so that a score of the graded few never reads as the run's.
 */
export function partialCoverageLabel(coverage: GradingCoverage): string | undefined {
  return coverage.graded < coverage.total ? `graded ${coverage.graded} of ${coverage.total}` : undefined;
}
