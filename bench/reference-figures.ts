/**
 * The reference's own figures, measured on this kind of machine (../shared/tau2/README.md,
 * "Performance"): tau2-bench a2c0247, CPython 3.11, one core, warm, median of 3.
 */
export const REFERENCE = {
  tasksPerSecond: { airline: 0.49, retail: 1.17, telecom: 7.7 } as Record<string, number>,
  /** banking_knowledge: no_knowledge, on a loaded machine (../shared/tau2/BANKING.md): an upper bound. */
  msPerTask: { airline: 2035, retail: 857, telecom: 130, banking_knowledge: 608 } as Record<string, number>,
  rssPerWorldMb: { airline: 24.3, retail: 11.9, telecom: 0.14 } as Record<string, number>,
  /** τ-voice interaction metrics on its golden set (3 simulations), per simulation (issue #29): 50–70 ms. */
  interactionMetricsMsPerSimulation: { low: 50, high: 70 },
};
