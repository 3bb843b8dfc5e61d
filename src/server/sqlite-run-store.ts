import { UnknownNameError } from "../core/errors.js";
import type { SimulationRun } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import { RunnerSchema } from "../runner/run-spec.js";
import { importResults, runsImportedFrom, withTrials } from "../store/import-results.js";
import { sqliteSimulationNotes } from "../store/simulation-notes.js";
import { SqliteModelCallStore } from "../store/model-call-store.js";
import type { Store } from "../store/store.js";
import type { RunStore, StoredRun } from "./run-store.js";
import { sqliteConversationStore } from "./sqlite-conversation-store.js";

/**
 * The explorer's view of the SQLite store. Simulations come back as written (τ² shape, defaults not
 * filled in), which the API schema accepts as they are.
 */
export function sqliteRunStore(store: Store): RunStore {
  const toRun = (record: ReturnType<Store["getRun"]>): StoredRun => {
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
  const modelCalls = new SqliteModelCallStore(store);
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
    modelCalls: (runId, simulationId) => modelCalls.load(runId, simulationId),
    importResults: (file, { label, domain, sha256 }) =>
      importResults(store, file, {
        domain,
        label: label ?? null,
        importedFrom: "web upload",
        ...(sha256 !== undefined ? { sha256 } : {}),
      }),
    importedAs: (sha256) => runsImportedFrom(store, sha256),
    renameRun: (runId, label) => {
      store.updateRun(runId, { label });
    },
    deleteRun: (runId) => store.deleteRun(runId),
    conversations: sqliteConversationStore(store),
    notes: sqliteSimulationNotes(store),
  };
}
