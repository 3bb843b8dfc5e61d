import { randomUUID } from "node:crypto";
import { UnknownNameError } from "../core/errors.js";
import {
  RunStatusSchema,
  type NewRun,
  type PutResult,
  type RunProgressCounts,
  type RunRecord,
  type RunStore,
  type RunUpdate,
  type ScoredSimulationRecord,
  type StoredReview,
  type StoredSimulation,
  type StoredSimulationRecord,
  type StoredTaskRecord,
} from "../core/run-store.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import { StoreInputError } from "./store-errors.js";

interface MemoryRun {
  record: Omit<RunRecord, "domains" | "simulationCount">;
  /** Insertion order: the tie-break among runs created in the same millisecond. */
  seq: number;
  tasks: Array<{ domain: string; task: StoredTaskRecord }>;
  simulations: Array<{ domain: string; simulation: StoredSimulationRecord; writtenAt: string }>;
  /** Where each (domain, task, trial) sits in `simulations`. */
  simulationAt: Map<string, number>;
  reviews: Map<string, StoredReview>;
}

const simulationKey = (domain: string, taskId: string, trial: number) =>
  `${domain}\u0000${taskId}\u0000${trial}`;

/**
 * The {@link RunStore} held in memory: the SQLite `Store`'s twin for tests, and for serving results
 * files without a store file. Same keys, idempotent writes, ordering and errors; there are no job
 * rows, so every stored simulation counts as planned. `transaction` runs its function as it is (no
 * rollback). Ids come from `newId` (tests can pin them), times from `now`.
 */
export class MemoryRunStore implements RunStore {
  readonly file: string;
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #runs = new Map<string, MemoryRun>();
  readonly #imports = new Map<string, string[]>();
  #seq = 0;

  constructor(options: { now?: () => Date; newId?: () => string; name?: string } = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#newId = options.newId ?? (() => randomUUID());
    this.file = options.name ?? "memory";
  }

  createRun(run: NewRun = {}): RunRecord {
    const id = run.id ?? this.#newId();
    if (this.#runs.has(id))
      throw new StoreInputError(`run "${id}" already exists in ${this.file}; choose another id.`);
    const now = this.#now().toISOString();
    this.#runs.set(id, {
      record: {
        id,
        createdAt: now,
        updatedAt: now,
        status: RunStatusSchema.parse(run.status ?? "running"),
        label: run.label ?? null,
        numTrials: run.numTrials ?? null,
        config: run.config ?? {},
        info: run.info ?? null,
        timestamp: run.timestamp ?? null,
        extra: run.extra ?? null,
      },
      seq: this.#seq++,
      tasks: [],
      simulations: [],
      simulationAt: new Map(),
      reviews: new Map(),
    });
    return this.getRun(id);
  }

  updateRun(id: string, update: RunUpdate): RunRecord {
    const run = this.#run(id);
    const defined = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
    if (update.status !== undefined) RunStatusSchema.parse(update.status);
    run.record = { ...run.record, ...defined, updatedAt: this.#now().toISOString() };
    return this.getRun(run.record.id);
  }

  getRun(idOrPrefix: string): RunRecord {
    return this.#toRecord(this.#run(idOrPrefix));
  }

  listRuns(): RunRecord[] {
    return [...this.#runs.values()]
      .sort((a, b) => b.record.createdAt.localeCompare(a.record.createdAt) || b.seq - a.seq)
      .map((run) => this.#toRecord(run));
  }

  deleteRun(idOrPrefix: string): { id: string; simulations: number } {
    const run = this.#run(idOrPrefix);
    this.#runs.delete(run.record.id);
    return { id: run.record.id, simulations: run.simulations.length };
  }

  runProgress(runId: string, since: string | null): RunProgressCounts {
    const run = this.#run(runId);
    const written = run.simulations.map((s) => s.writtenAt);
    return {
      planned: written.length,
      done: written.length,
      doneSince: since === null ? 0 : written.filter((at) => at >= since).length,
      lastActivityAt: written.reduce((latest, at) => (at > latest ? at : latest), run.record.updatedAt),
    };
  }

  putTasks(runId: string, domain: string, tasks: readonly StoredTaskRecord[]): void {
    const run = this.#run(runId);
    for (const task of tasks) {
      const at = run.tasks.findIndex((t) => t.domain === domain && t.task.id === task.id);
      if (at >= 0) run.tasks[at] = { domain, task };
      else run.tasks.push({ domain, task });
    }
  }

  getTasks(runId: string, domain?: string): Array<{ domain: string; task: StoredTaskRecord }> {
    return this.#run(runId).tasks.filter((t) => domain === undefined || t.domain === domain);
  }

  putSimulation(runId: string, domain: string, simulation: StoredSimulationRecord): PutResult {
    const { trial } = simulation;
    if (typeof trial !== "number" || !Number.isInteger(trial)) {
      throw new StoreInputError(
        `simulation "${simulation.id}" of task "${simulation.task_id}" has no trial number; the store keys simulations by (run, task, trial).`,
      );
    }
    const run = this.#run(runId);
    const entry = { domain, simulation, writtenAt: this.#now().toISOString() };
    const key = simulationKey(domain, simulation.task_id, trial);
    const at = run.simulationAt.get(key);
    if (at === undefined) run.simulationAt.set(key, run.simulations.push(entry) - 1);
    else if (NON_EVALUABLE_TERMINATIONS.has(run.simulations[at]!.simulation.termination_reason))
      run.simulations[at] = entry;
    else return { written: false };
    return { written: true };
  }

  getSimulations(runId: string, options: { domain?: string } = {}): StoredSimulation[] {
    const run = this.#runs.get(runId);
    return (run?.simulations ?? [])
      .filter((s) => options.domain === undefined || s.domain === options.domain)
      .map(({ domain, simulation }) => ({ runId, domain, simulation }));
  }

  getSimulation(runId: string, domain: string, taskId: string, trial: number): StoredSimulation | undefined {
    const run = this.#runs.get(runId);
    const at = run?.simulationAt.get(simulationKey(domain, taskId, trial));
    return at === undefined ? undefined : { runId, domain, simulation: run!.simulations[at]!.simulation };
  }

  scoredSimulations(runId: string): ScoredSimulationRecord[] {
    return (this.#runs.get(runId)?.simulations ?? []).map(({ domain, simulation: s }) => ({
      domain,
      task_id: s.task_id,
      trial: s.trial ?? null,
      termination_reason: s.termination_reason,
      reward_info: (s.reward_info ?? null) as ScoredSimulationRecord["reward_info"],
      agent_cost: s.agent_cost ?? null,
      user_cost: s.user_cost ?? null,
      duration: s.duration ?? null,
    }));
  }

  putReview(runId: string, key: { domain: string; task_id: string; trial: number }, review: unknown): void {
    this.#run(runId).reviews.set(simulationKey(key.domain, key.task_id, key.trial), { ...key, review });
  }

  reviews(runId: string): StoredReview[] {
    const reviews = [...(this.#runs.get(runId)?.reviews.values() ?? [])];
    const order = (r: StoredReview) => [r.domain, r.task_id] as const;
    return reviews.sort(
      (a, b) =>
        order(a)[0].localeCompare(order(b)[0]) || order(a)[1].localeCompare(order(b)[1]) || a.trial - b.trial,
    );
  }

  recordImport(sha256: string, runId: string): void {
    const runs = this.#imports.get(sha256) ?? [];
    if (!runs.includes(runId)) this.#imports.set(sha256, [...runs, runId]);
  }

  importedAs(sha256: string): string[] {
    return (this.#imports.get(sha256) ?? []).filter((id) => this.#runs.has(id));
  }

  transaction<T>(fn: () => T): T {
    return fn();
  }

  close(): void {}

  #run(idOrPrefix: string): MemoryRun {
    const exact = this.#runs.get(idOrPrefix);
    if (exact) return exact;
    const matches = [...this.#runs.keys()].filter((id) => id.startsWith(idOrPrefix)).sort();
    if (matches.length === 1) return this.#runs.get(matches[0]!)!;
    if (matches.length > 1)
      throw new StoreInputError(
        `run id prefix "${idOrPrefix}" is ambiguous (matches ${matches.join(", ")}); give more characters.`,
      );
    throw new UnknownNameError(
      "run",
      idOrPrefix,
      this.listRuns().map((r) => r.id),
    );
  }

  #toRecord(run: MemoryRun): RunRecord {
    const domains = new Set([...run.tasks.map((t) => t.domain), ...run.simulations.map((s) => s.domain)]);
    return { ...run.record, domains: [...domains].sort(), simulationCount: run.simulations.length };
  }
}
