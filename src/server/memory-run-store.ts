import { randomUUID } from "node:crypto";
import type { SimulationRun } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import { withTrials } from "../store/import-results.js";
import { createMemorySimulationNotes } from "../store/simulation-notes.js";
import { createMemoryConversationStore } from "./conversation-store.js";
import type { RunStore, StoredRun } from "./run-store.js";

interface MemoryRun {
  run: Omit<StoredRun, "progress">;
  domain: string;
  tasks: Task[];
  simulations: Array<SimulationRun & { trial: number }>;
}

/**
 * A {@link RunStore} held in memory: for tests, and for serving results files without a store file.
 * Ids come from `newId` so tests can pin them.
 */
export function createMemoryRunStore(options: { now?: () => Date; newId?: () => string } = {}): RunStore {
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? (() => randomUUID());
  const runs = new Map<string, MemoryRun>();
  const imports = new Map<string, string[]>();
  // Runs held here are imported files: everything they hold is done.
  const withProgress = ({ run, simulations }: MemoryRun): StoredRun => ({
    ...run,
    progress: {
      status: "imported",
      planned: simulations.length,
      done: simulations.length,
      sessionStartedAt: null,
      doneThisSession: 0,
      lastActivityAt: run.createdAt,
      adaptive: false,
    },
  });
  return {
    conversations: createMemoryConversationStore(),
    notes: createMemorySimulationNotes(now),
    listRuns: () => [...runs.values()].map(withProgress),
    getRun: (runId) => {
      const run = runs.get(runId);
      return run && withProgress(run);
    },
    runSimulations: (runId) => {
      const run = runs.get(runId);
      if (!run) return [];
      return run.simulations.map((s) => ({
        domain: run.domain,
        task_id: s.task_id,
        trial: s.trial,
        termination_reason: s.termination_reason,
        reward_info: s.reward_info ?? null,
        agent_cost: s.agent_cost ?? null,
        user_cost: s.user_cost ?? null,
        duration: s.duration ?? null,
      }));
    },
    runTasks: (runId) => {
      const run = runs.get(runId);
      return run ? run.tasks.map((task) => ({ domain: run.domain, task })) : [];
    },
    getSimulation: (runId, key) => {
      const run = runs.get(runId);
      if (!run || run.domain !== key.domain) return undefined;
      return run.simulations.find((s) => s.task_id === key.taskId && s.trial === key.trial);
    },
    importedAs: (sha256) => (imports.get(sha256) ?? []).filter((id) => runs.has(id)),
    renameRun: (runId, label) => {
      const run = runs.get(runId);
      if (run) run.run = { ...run.run, label };
    },
    deleteRun: (runId) => {
      const run = runs.get(runId);
      runs.delete(runId);
      return { id: runId, simulations: run?.simulations.length ?? 0 };
    },
    importResults: (file, { label, domain, sha256 }) => {
      const id = newId();
      if (sha256 !== undefined) imports.set(sha256, [...(imports.get(sha256) ?? []), id]);
      const { results } = file;
      runs.set(id, {
        run: {
          id,
          label: label ?? null,
          createdAt: now().toISOString(),
          timestamp: results.timestamp ?? null,
          numTrials: results.info.num_trials ?? null,
          info: results.info,
        },
        domain,
        tasks: results.tasks,
        simulations: withTrials(results.simulations),
      });
      return id;
    },
  };
}
