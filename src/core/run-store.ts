import { z } from "zod";
import { MessageSchema } from "./message.js";
import type { RewardInfo, SimulationRunSchema } from "./simulation.js";
import type { TaskSchema } from "./task.js";

export const RunStatusSchema = z.enum(["running", "completed", "interrupted", "failed", "imported"]);
/** `running` while a runner works on it; `interrupted` when it stopped early and can be resumed. */
export type RunStatus = z.infer<typeof RunStatusSchema>;

type Json = Record<string, unknown>;

/** A simulation as stored and written to results files (τ² `SimulationRun`, no defaults filled in). */
export type StoredSimulationRecord = z.input<typeof SimulationRunSchema>;
/** A task as stored with its run (τ² `Task`, as given). */
export type StoredTaskRecord = z.input<typeof TaskSchema>;

/** A run as stored: its identity, configuration and τ² run info. */
export interface RunRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  status: RunStatus;
  label: string | null;
  /** Trials per task the run asked for (τ² `info.num_trials`). */
  numTrials: number | null;
  /** passk's own run configuration (agent, user simulator, models, flags) as given by the runner. */
  config: Json;
  /** τ² `Info` of the run (`git_commit`, `user_info`, `agent_info`, `environment_info`…). */
  info: Json | null;
  /** τ² `Results.timestamp`. */
  timestamp: string | null;
  /** Other top-level fields of an imported results file, written back on export. */
  extra: Json | null;
  /** Domains of the run's tasks and simulations, sorted. */
  domains: string[];
  simulationCount: number;
}

export interface NewRun {
  id?: string;
  status?: RunStatus;
  label?: string | null;
  numTrials?: number | null;
  config?: Json;
  info?: Json | null;
  timestamp?: string | null;
  extra?: Json | null;
}

export type RunUpdate = Partial<
  Pick<NewRun, "status" | "label" | "numTrials" | "config" | "info" | "timestamp">
>;

/** A stored simulation with where it belongs. */
export interface StoredSimulation {
  runId: string;
  domain: string;
  simulation: StoredSimulationRecord;
}

export interface PutResult {
  /** Whether this call wrote the row (false: an evaluable result for the key was already stored). */
  written: boolean;
}

/** What metrics need of a stored simulation (its messages left out). */
export interface ScoredSimulationRecord {
  domain: string;
  task_id: string;
  trial?: number | null;
  termination_reason: string;
  reward_info?: RewardInfo | null;
  agent_cost?: number | null;
  user_cost?: number | null;
  duration?: number | null;
}

/** The longest a conversation can have run in all, by a checkpoint (30 days): more is a damaged row. */
export const MAX_CHECKPOINT_ELAPSED_SECONDS = 30 * 24 * 3600;

/**
 * A conversation's progress, saved after each completed turn (`--checkpoint-turns`): the messages so
 * far and the orchestrator's counters, so that a re-run continues from the last completed turn. Read
 * back from a store or Redis, so it is validated: a row out of these bounds is no checkpoint (what the
 * run's own limits allow is checked when it continues, `checkpointProblem`).
 */
export const TurnCheckpointSchema = z.object({
  /** The conversation's messages so far (the task's own history included), exactly as recorded. */
  messages: z.array(MessageSchema).min(1),
  /** Orchestrator steps taken, tool errors (all, and the customer's own) so far. */
  steps: z.int().nonnegative(),
  errors: z.int().nonnegative(),
  userErrors: z.int().nonnegative(),
  /** The conversation's id and start (kept, so that the result reads as one conversation). */
  simulationId: z.string().regex(/^[\w.:-]{1,128}$/),
  startedAt: z.iso.datetime().refine((text) => Number.isFinite(Date.parse(text))),
  /** Wall-clock seconds the conversation had run when the checkpoint was saved (all attempts). */
  elapsedSeconds: z.number().nonnegative().max(MAX_CHECKPOINT_ELAPSED_SECONDS),
});
export type TurnCheckpoint = z.infer<typeof TurnCheckpointSchema>;

/** Where turn checkpoints live, keyed by (run, domain, task, trial). */
export interface CheckpointStore {
  load(key: ConversationKey): Promise<TurnCheckpoint | undefined>;
  save(key: ConversationKey, checkpoint: TurnCheckpoint): Promise<void>;
  clear(key: ConversationKey): Promise<void>;
}

/** One conversation of a run: a (task, trial) of a domain. */
export interface ConversationKey {
  runId: string;
  domain: string;
  taskId: string;
  trial: number;
}

/** How far a run has come, as its store records it (see {@link RunStore.runProgress}). */
export interface RunProgressCounts {
  /** (task, trial)s planned: the jobs queued for it, plus stored simulations no job asked for. */
  planned: number;
  /** Simulations stored (graded, and infrastructure errors). */
  done: number;
  /** Simulations stored since the `since` given (0 when none was). */
  doneSince: number;
  /** The run's last sign of life: its record changed, a simulation stored, a job claimed or renewed. */
  lastActivityAt: string;
}

/** The stored `passk review` verdict of one simulation of a run. */
export interface StoredReview {
  domain: string;
  task_id: string;
  trial: number;
  review: unknown;
}

/**
 * Where runs, their tasks, simulations and reviews are kept: what the runner writes and what the CLI
 * and the explorer read. Each simulation is keyed by (run, domain, task, trial) and written
 * idempotently: the first evaluable result for a key stays; an infrastructure-error result is replaced
 * by a later attempt. `Store` (src/store/store.ts) implements it over SQLite, `MemoryRunStore`
 * (src/store/memory-run-store.ts) in memory for tests.
 *
 * Methods are synchronous (an embedded store answers at once); `transaction` runs its function
 * atomically.
 */
export interface RunStore {
  /** Where the store lives (a file path, or a name for a memory store), for messages. */
  readonly file: string;
  createRun(run?: NewRun): RunRecord;
  updateRun(id: string, update: RunUpdate): RunRecord;
  /** A run by id or unique id prefix; an `UnknownNameError` when there is none. */
  getRun(idOrPrefix: string): RunRecord;
  /** Runs, newest first. */
  listRuns(): RunRecord[];
  /** Delete a run with everything stored for it; returns how many simulations went with it. */
  deleteRun(idOrPrefix: string): { id: string; simulations: number };
  /** How far a run has come; `since` (ISO) counts the simulations stored from then on. */
  runProgress(runId: string, since: string | null): RunProgressCounts;
  putTasks(runId: string, domain: string, tasks: readonly StoredTaskRecord[]): void;
  getTasks(runId: string, domain?: string): Array<{ domain: string; task: StoredTaskRecord }>;
  putSimulation(runId: string, domain: string, simulation: StoredSimulationRecord): PutResult;
  getSimulations(runId: string, options?: { domain?: string }): StoredSimulation[];
  /** One simulation by its key, or undefined. */
  getSimulation(runId: string, domain: string, taskId: string, trial: number): StoredSimulation | undefined;
  scoredSimulations(runId: string): ScoredSimulationRecord[];
  /** Record (or replace) the review of one simulation of a run. */
  putReview(runId: string, key: { domain: string; task_id: string; trial: number }, review: unknown): void;
  /** The reviews of a run's simulations. */
  reviews(runId: string): StoredReview[];
  /** Remember that a results file (by its SHA-256) was imported as this run. */
  recordImport(sha256: string, runId: string): void;
  /** The runs a results file (by its SHA-256) was imported as, oldest first; empty when never. */
  importedAs(sha256: string): string[];
  transaction<T>(fn: () => T): T;
  close(): void;
}
