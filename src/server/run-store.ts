import type { RunStatus } from "../core/run-store.js";
import type { SimulationRun } from "../core/simulation.js";
import type { SimulationModelCalls } from "../core/model-calls.js";
import type { Task } from "../core/task.js";
import type { ResultsFile } from "../formats/tau2/results.js";
import type { SimulationNotes } from "../store/simulation-notes.js";
import type { ScoredSimulation } from "../metrics/run-metrics.js";
import type { ConversationStore } from "./conversation-store.js";

/** A run as the explorer lists it. */
export interface StoredRun {
  id: string;
  label: string | null;
  /** When it was written to the store (ISO). */
  createdAt: string;
  /** The results file's own timestamp, when it has one. */
  timestamp: string | null;
  numTrials: number | null;
  /** τ² run info (`agent_info`, `user_info`, `environment_info`…). */
  info: Record<string, unknown>;
  progress: StoredRunProgress;
}

/** Where a run stands, as its store records it: what was planned, what is stored, when it last moved. */
export interface StoredRunProgress {
  status: RunStatus;
  /** (task, trial) conversations planned so far: an adaptive run adds some each round. */
  planned: number;
  /** Simulations stored (graded, and infrastructure errors). */
  done: number;
  /** When the process working on it now started; null when none is. */
  sessionStartedAt: string | null;
  /** Simulations stored since `sessionStartedAt`. */
  doneThisSession: number;
  /** The run's last sign of life: its record changed, a simulation stored, a job claimed or renewed. */
  lastActivityAt: string;
  /** `passk run --adaptive`: `planned` grows round after round. */
  adaptive: boolean;
}

/** A simulation without its messages: what the grid and the metrics need. */
export interface StoredSimulationSummary extends ScoredSimulation {
  trial: number;
}

/** Where one simulation sits in a run: its (domain, task, trial) key. */
export interface SimulationKey {
  domain: string;
  taskId: string;
  trial: number;
}

/**
 * What the explorer reads and writes: runs, their simulations (summaries, then one in full) and
 * results-file import. The server depends on this interface only; the SQLite store is adapted to it
 * (`sqliteRunStore`), and tests can use `createMemoryRunStore`.
 */
export interface RunStore {
  listRuns(): StoredRun[];
  getRun(runId: string): StoredRun | undefined;
  runSimulations(runId: string): StoredSimulationSummary[];
  runTasks(runId: string): Array<{ domain: string; task: Task }>;
  getSimulation(runId: string, key: SimulationKey): SimulationRun | undefined;
  /** The model calls recorded behind a simulation's turns (by its id); undefined when none were. */
  modelCalls?(runId: string, simulationId: string): SimulationModelCalls | undefined;
  /** The stored `passk review` verdicts of a run's failed simulations (none when never reviewed). */
  reviews?(runId: string): Array<{ domain: string; task_id: string; trial: number; review: unknown }>;
  /**
   * Store a validated results file as a new run; returns its id. `sha256`: the file's hash, kept so
   * that importing the same file again can be noticed ({@link RunStore.importedAs}).
   */
  importResults(file: ResultsFile, options: { label?: string; domain: string; sha256?: string }): string;
  /** The runs a file with this hash was imported as (oldest first); empty when never. */
  importedAs?(sha256: string): string[];
  /** Give a run a new label. */
  renameRun?(runId: string, label: string): void;
  /** Delete a run with its simulations; returns how many simulations went with it. */
  deleteRun?(runId: string): { id: string; simulations: number };
  /** People's notes on the runs' simulations; a store without them shows none and takes none. */
  notes?: SimulationNotes;
  /** Where this store keeps playground conversations, if it does. */
  conversations?: ConversationStore;
}

/** The domain a results file was run on (τ² `info.environment_info.domain_name`), if it says. */
export function resultsDomainName(file: ResultsFile): string | undefined {
  const name = file.results.info.environment_info?.["domain_name"];
  return typeof name === "string" && name !== "" ? name : undefined;
}
