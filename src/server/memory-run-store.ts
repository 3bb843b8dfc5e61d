import { randomUUID } from "node:crypto";
import type { SimulationRun } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import type { ResultsFile } from "../formats/tau2/results.js";
import type { RunStore, StoredRun, StoredSimulationSummary } from "./run-store.js";

interface MemoryRun {
  run: StoredRun;
  domain: string;
  tasks: Task[];
  simulations: SimulationRun[];
}

/** The domain a results file was run on (τ² `info.environment_info.domain_name`). */
export function resultsDomain(file: ResultsFile): string {
  const name = file.results.info.environment_info?.["domain_name"];
  return typeof name === "string" && name !== "" ? name : "unknown";
}

/**
 * A {@link RunStore} held in memory: for tests, and for `passk serve` over results files without a
 * store. Ids come from `newId` so tests can pin them.
 */
export function createMemoryRunStore(options: { now?: () => Date; newId?: () => string } = {}): RunStore {
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? (() => randomUUID());
  const runs = new Map<string, MemoryRun>();
  const summary = (domain: string, s: SimulationRun): StoredSimulationSummary => ({
    id: s.id,
    domain,
    task_id: s.task_id,
    trial: s.trial ?? 0,
    termination_reason: s.termination_reason,
    reward_info: s.reward_info ?? null,
    agent_cost: s.agent_cost ?? null,
    user_cost: s.user_cost ?? null,
    duration: s.duration ?? null,
  });
  return {
    listRuns: () => [...runs.values()].map((r) => r.run),
    getRun: (runId) => runs.get(runId)?.run,
    runSimulations: (runId) => {
      const run = runs.get(runId);
      return run ? run.simulations.map((s) => summary(run.domain, s)) : [];
    },
    runTasks: (runId) => {
      const run = runs.get(runId);
      return run ? run.tasks.map((task) => ({ domain: run.domain, task })) : [];
    },
    getSimulation: (runId, simulationId) => {
      const run = runs.get(runId);
      const simulation = run?.simulations.find((s) => s.id === simulationId);
      return run && simulation ? { domain: run.domain, simulation } : undefined;
    },
    importResults: (file, { label }) => {
      const id = newId();
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
        domain: resultsDomain(file),
        tasks: results.tasks,
        simulations: results.simulations,
      });
      return id;
    },
  };
}
