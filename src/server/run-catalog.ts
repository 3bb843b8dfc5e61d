import { UnknownNameError } from "../core/errors.js";
import type { RunRecord, RunStatus, RunStore } from "../core/run-store.js";
import type { SimulationRun } from "../core/simulation.js";
import type { SimulationModelCalls } from "../core/model-calls.js";
import type { Task } from "../core/task.js";
import type { ResultsFile } from "../formats/tau2/results.js";
import type { RobustnessRow } from "../metrics/robustness.js";
import { RunnerSchema } from "../runner/run-spec.js";
import { storedRobustnessRows } from "../runner/robustness-pairs.js";
import { importResults, withTrials } from "../store/import-results.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { SqliteModelCallStore } from "../store/model-call-store.js";
import {
  createMemorySimulationNotes,
  sqliteSimulationNotes,
  type SimulationNotes,
} from "../store/simulation-notes.js";
import type { Store } from "../store/store.js";
import type { ScoredSimulation } from "../metrics/run-metrics.js";
import type { ConversationStore } from "../core/conversation-record.js";
import { createMemoryConversationStore, sqliteConversationStore } from "../store/conversation-store.js";
import { SequencedEventSchema, type SequencedEvent } from "./api-schemas.js";

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
 * results-file import. A service over the library's {@link RunStore} ({@link runCatalog}) with the
 * store's other tables beside it: `sqliteRunCatalog` over the SQLite store, `memoryRunCatalog` for
 * tests and serving results files without a store file.
 */
export interface RunCatalog {
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
   * that importing the same file again can be noticed ({@link RunCatalog.importedAs}).
   */
  importResults(file: ResultsFile, options: { label?: string; domain: string; sha256?: string }): string;
  /** The runs a file with this hash was imported as (oldest first); empty when never. */
  importedAs?(sha256: string): string[];
  /** The run beside its clean baseline, or its perturbed siblings (the library's pairing rule). */
  robustnessRows(runId: string): RobustnessRow[];
  /** Give a run a new label. */
  renameRun?(runId: string, label: string): void;
  /** Delete a run with its simulations; returns how many simulations went with it. */
  deleteRun?(runId: string): { id: string; simulations: number };
  /** People's notes on the runs' simulations; a store without them shows none and takes none. */
  notes?: SimulationNotes;
  /** Where this store keeps playground conversations, if it does. */
  conversations?: ConversationStore<SequencedEvent>;
}

/** The domain a results file was run on (τ² `info.environment_info.domain_name`), if it says. */
export function resultsDomainName(file: ResultsFile): string | undefined {
  const name = file.results.info.environment_info?.["domain_name"];
  return typeof name === "string" && name !== "" ? name : undefined;
}

/**
 * The explorer's view of a {@link RunStore}, with the tables the store keeps beside runs (people's
 * notes, playground conversations, recorded model calls) when it has them. Simulations come back as
 * written (τ² shape, defaults not filled in), which the API schema accepts as they are.
 */
export function runCatalog(
  store: RunStore,
  tables: {
    notes?: SimulationNotes;
    conversations?: ConversationStore<SequencedEvent>;
    modelCalls?: (runId: string, simulationId: string) => SimulationModelCalls | undefined;
  } = {},
): RunCatalog {
  const toRun = (record: RunRecord): StoredRun => {
    const runner = RunnerSchema.safeParse(record.config["runner"]);
    const sessionStartedAt = (runner.success && runner.data?.started_at) || null;
    const progress = store.runProgress(record.id, sessionStartedAt);
    return {
      id: record.id,
      label: record.label,
      createdAt: record.createdAt,
      timestamp: record.timestamp,
      numTrials: record.numTrials,
      info: record.info ?? {},
      progress: {
        status: record.status,
        planned: progress.planned,
        done: progress.done,
        sessionStartedAt,
        doneThisSession: progress.doneSince,
        lastActivityAt: progress.lastActivityAt,
        adaptive: record.config["adaptive"] != null,
      },
    };
  };
  return {
    listRuns: () => store.listRuns().map(toRun),
    getRun: (runId) => {
      try {
        return toRun(store.getRun(runId));
      } catch (error) {
        if (UnknownNameError.isInstance(error)) return undefined;
        throw error;
      }
    },
    runSimulations: (runId) =>
      withTrials(store.scoredSimulations(runId)).map((s) => ({ ...s, trial: s.trial })),
    runTasks: (runId) => store.getTasks(runId).map(({ domain, task }) => ({ domain, task: task as Task })),
    getSimulation: (runId, key) =>
      store.getSimulation(runId, key.domain, key.taskId, key.trial)?.simulation as SimulationRun | undefined,
    reviews: (runId) => store.reviews(runId),
    robustnessRows: (runId) => storedRobustnessRows(store, runId),
    ...(tables.modelCalls ? { modelCalls: tables.modelCalls } : {}),
    importResults: (file, { label, domain, sha256 }) =>
      importResults(store, file, {
        domain,
        label: label ?? null,
        importedFrom: "web upload",
        ...(sha256 !== undefined ? { sha256 } : {}),
      }),
    importedAs: (sha256) => store.importedAs(sha256),
    renameRun: (runId, label) => {
      store.updateRun(runId, { label });
    },
    deleteRun: (runId) => store.deleteRun(runId),
    ...(tables.conversations ? { conversations: tables.conversations } : {}),
    ...(tables.notes ? { notes: tables.notes } : {}),
  };
}

/** The explorer's view of the SQLite store, its notes, kept conversations and recorded model calls. */
export function sqliteRunCatalog(store: Store): RunCatalog {
  const modelCalls = new SqliteModelCallStore(store);
  return runCatalog(store, {
    notes: sqliteSimulationNotes(store),
    conversations: sqliteConversationStore(store, { events: SequencedEventSchema }),
    modelCalls: (runId, simulationId) => modelCalls.load(runId, simulationId),
  });
}

/**
 * A catalog over a {@link MemoryRunStore} with memory notes and conversations: for tests, and for
 * serving results files without a store file. Ids come from `newId` so tests can pin them.
 */
export function memoryRunCatalog(options: { now?: () => Date; newId?: () => string } = {}): RunCatalog {
  return runCatalog(new MemoryRunStore(options), {
    notes: createMemorySimulationNotes(options.now),
    conversations: createMemoryConversationStore(),
  });
}
