import type { Results, SimulationRun } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import type { ResultsFile } from "../formats/tau2/results.js";
import type { ScoredSimulation } from "../metrics/run-metrics.js";

/** A run as the explorer lists it. */
export interface StoredRun {
  id: string;
  label: string | null;
  /** When it was written to the store (ISO). */
  createdAt: string;
  /** The results file's own timestamp, when it has one. */
  timestamp: string | null;
  numTrials: number | null;
  info: Results["info"];
}

/** A simulation without its messages: what the grid and the metrics need. */
export interface StoredSimulationSummary extends ScoredSimulation {
  id: string;
  trial: number;
}

/**
 * What the explorer reads and writes: runs, their simulations (summaries, then one in full) and
 * results-file import. The server depends on this interface only; the SQLite store is adapted to it
 * in the composition root, and tests can use {@link createMemoryRunStore}.
 */
export interface RunStore {
  listRuns(): StoredRun[];
  getRun(runId: string): StoredRun | undefined;
  runSimulations(runId: string): StoredSimulationSummary[];
  runTasks(runId: string): Array<{ domain: string; task: Task }>;
  getSimulation(
    runId: string,
    simulationId: string,
  ): { domain: string; simulation: SimulationRun } | undefined;
  /** Store a validated results file as a new run; returns its id. */
  importResults(file: ResultsFile, options: { label?: string }): string;
}
