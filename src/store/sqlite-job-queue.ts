import type { SimulationRunInput } from "../formats/tau2/results.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import type {
  CompleteResult,
  EnqueueResult,
  Job,
  JobCounts,
  JobKey,
  JobQueue,
  JobState,
} from "../core/job-queue.js";
import { databaseOf, type StoreDatabase } from "./database.js";
import { NON_EVALUABLE_SQL, SimulationsTable } from "./simulations-table.js";
import { StoreInputError } from "./store-errors.js";
import type { Store } from "./store.js";

export interface SqliteJobQueueOptions {
  /** Claims a (task, trial) may take before it is marked `failed` (default 3). */
  maxAttempts?: number;
  /** Default lease of a claim in milliseconds (default 10 minutes). */
  leaseMs?: number;
}

const KEY = "run_id = @runId AND domain = @domain AND task_id = @taskId AND trial = @trial";

/**
 * {@link JobQueue} over the SQLite store: every state change is one immediate transaction, so several
 * workers (in one process, or in several processes sharing the file) never claim the same job twice
 * while its lease runs, and a result and its job's completion are written together.
 */
export class SqliteJobQueue implements JobQueue {
  readonly #store: StoreDatabase;
  readonly #simulations: SimulationsTable;
  readonly #maxAttempts: number;
  readonly #leaseMs: number;

  constructor(store: Store, options: SqliteJobQueueOptions = {}) {
    this.#store = databaseOf(store);
    this.#simulations = new SimulationsTable(this.#store);
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#leaseMs = options.leaseMs ?? 10 * 60_000;
  }

  #leaseUntil(leaseMs: number | undefined): string {
    return new Date(Date.parse(this.#store.now()) + (leaseMs ?? this.#leaseMs)).toISOString();
  }

  /** Mark done every unfinished job of the run whose key already holds an evaluable simulation. */
  #settleAnswered(runId: string): void {
    this.#store
      .statement(
        `UPDATE jobs SET state = 'done', worker = NULL, lease_expires_at = NULL, updated_at = ?
         WHERE run_id = ? AND state != 'done' AND EXISTS (
           SELECT 1 FROM simulations s WHERE s.run_id = jobs.run_id AND s.domain = jobs.domain
             AND s.task_id = jobs.task_id AND s.trial = jobs.trial
             AND s.termination_reason NOT IN (${NON_EVALUABLE_SQL}))`,
      )
      .run(this.#store.now(), runId);
  }

  async enqueue(runId: string, jobs: ReadonlyArray<Omit<JobKey, "runId">>): Promise<EnqueueResult> {
    const insert = this.#store.statement(
      `INSERT INTO jobs (run_id, domain, task_id, trial, state, updated_at) VALUES (?, ?, ?, ?, 'queued', ?)
       ON CONFLICT (run_id, domain, task_id, trial) DO NOTHING`,
    );
    return this.#store.transaction(() => {
      const now = this.#store.now();
      for (const job of jobs) insert.run(runId, job.domain, job.taskId, job.trial, now);
      this.#settleAnswered(runId);
      const counts = this.#countsSync(runId);
      return { queued: counts.queued, done: counts.done };
    });
  }

  async claim(options: {
    runId: string;
    workerId: string;
    limit?: number;
    leaseMs?: number;
  }): Promise<Job[]> {
    // Two index-friendly queries (jobs_by_state) instead of one with OR, which scans the run's jobs:
    // claims stay constant-time as a run grows.
    const selectQueued = this.#store.statement(
      `SELECT seq, domain, task_id AS taskId, trial, attempts FROM jobs
       WHERE run_id = ? AND state = 'queued' ORDER BY seq LIMIT ?`,
    );
    const selectExpired = this.#store.statement(
      `SELECT seq, domain, task_id AS taskId, trial, attempts FROM jobs
       WHERE run_id = ? AND state = 'claimed' AND lease_expires_at < ? ORDER BY seq LIMIT ?`,
    );
    const update = this.#store.statement(
      `UPDATE jobs SET state = 'claimed', worker = ?, attempts = attempts + 1, lease_expires_at = ?, updated_at = ?
       WHERE seq = ?`,
    );
    return this.#store.transaction(() => {
      const now = this.#store.now();
      const leaseExpiresAt = this.#leaseUntil(options.leaseMs);
      type Row = { seq: number; domain: string; taskId: string; trial: number; attempts: number };
      const limit = options.limit ?? 1;
      const rows = [
        ...(selectQueued.all(options.runId, limit) as Row[]),
        ...(selectExpired.all(options.runId, now, limit) as Row[]),
      ]
        .sort((a, b) => a.seq - b.seq)
        .slice(0, limit);
      return rows.map((row) => {
        update.run(options.workerId, leaseExpiresAt, now, row.seq);
        return {
          runId: options.runId,
          domain: row.domain,
          taskId: row.taskId,
          trial: row.trial,
          attempt: row.attempts + 1,
          workerId: options.workerId,
          leaseExpiresAt,
        };
      });
    });
  }

  async heartbeat(jobs: readonly Job[], leaseMs?: number): Promise<void> {
    const update = this.#store.statement(
      `UPDATE jobs SET lease_expires_at = @lease, updated_at = @now
       WHERE ${KEY} AND state = 'claimed' AND worker = @workerId`,
    );
    this.#store.transaction(() => {
      const lease = this.#leaseUntil(leaseMs);
      for (const job of jobs) {
        update.run({ ...keyOf(job), workerId: job.workerId, lease, now: this.#store.now() });
        job.leaseExpiresAt = lease;
      }
    });
  }

  async complete(job: Job, simulation: SimulationRunInput): Promise<CompleteResult> {
    if (simulation.task_id !== job.taskId || simulation.trial !== job.trial) {
      throw new StoreInputError(
        `simulation of task "${simulation.task_id}" trial ${simulation.trial} does not answer job ` +
          `task "${job.taskId}" trial ${job.trial}; set the simulation's task_id and trial from the job.`,
      );
    }
    return this.#store.transaction(() => {
      const { written } = this.#simulations.put(job.runId, job.domain, simulation);
      const stored = this.#store
        .statement(`SELECT termination_reason FROM simulations WHERE ${KEY}`)
        .get(keyOf(job)) as { termination_reason: string };
      if (!NON_EVALUABLE_TERMINATIONS.has(stored.termination_reason)) {
        this.#setState(job, "done", null);
        return { state: "done" as const, written };
      }
      const state = this.#retryOrFail(job, `simulation ended with ${stored.termination_reason}`);
      return { state, written };
    });
  }

  async fail(job: Job, error: { message: string }): Promise<JobState> {
    return this.#store.transaction(() => this.#retryOrFail(job, error.message));
  }

  /** Requeue an unanswered job, or mark it failed once its attempts are used up. */
  #retryOrFail(job: Job, message: string): JobState {
    const row = this.#store
      .statement(`SELECT state, attempts, worker FROM jobs WHERE ${KEY}`)
      .get(keyOf(job)) as { state: JobState; attempts: number; worker: string | null } | undefined;
    // A worker whose lease ran out and whose job another worker now holds leaves it to that worker.
    if (row?.state === "claimed" && row.worker !== job.workerId) return "claimed";
    if (!row) {
      this.#store
        .statement(
          `INSERT INTO jobs (run_id, domain, task_id, trial, state, attempts, updated_at)
           VALUES (@runId, @domain, @taskId, @trial, 'queued', 1, @now)`,
        )
        .run({ ...keyOf(job), now: this.#store.now() });
    }
    if (row?.state === "done") return "done";
    const attempts = row?.attempts ?? 1;
    const state: JobState = attempts >= this.#maxAttempts ? "failed" : "queued";
    this.#setState(job, state, message);
    return state;
  }

  #setState(job: JobKey, state: JobState, lastError: string | null): void {
    const result = this.#store
      .statement(
        `UPDATE jobs SET state = @state, worker = NULL, lease_expires_at = NULL, last_error = @lastError,
           updated_at = @now WHERE ${KEY}`,
      )
      .run({ ...keyOf(job), state, lastError, now: this.#store.now() });
    if (result.changes === 0) {
      this.#store
        .statement(
          `INSERT INTO jobs (run_id, domain, task_id, trial, state, attempts, last_error, updated_at)
           VALUES (@runId, @domain, @taskId, @trial, @state, 1, @lastError, @now)`,
        )
        .run({ ...keyOf(job), state, lastError, now: this.#store.now() });
    }
  }

  async recover(runId: string, options: { onlyExpired?: boolean } = {}): Promise<number> {
    return this.#store.transaction(() => {
      const now = this.#store.now();
      this.#settleAnswered(runId);
      const claimed = this.#store
        .statement(
          `UPDATE jobs SET state = 'queued', worker = NULL, lease_expires_at = NULL, updated_at = ?
           WHERE run_id = ? AND state = 'claimed' AND (? = 0 OR lease_expires_at < ?)`,
        )
        .run(now, runId, options.onlyExpired ? 1 : 0, now).changes;
      const failed = this.#store
        .statement(
          `UPDATE jobs SET state = 'queued', attempts = 0, updated_at = ? WHERE run_id = ? AND state = 'failed'`,
        )
        .run(now, runId).changes;
      return claimed + failed;
    });
  }

  async counts(runId: string): Promise<JobCounts> {
    return this.#countsSync(runId);
  }

  async nextTrialIndexes(runId: string): Promise<Array<{ domain: string; taskId: string; next: number }>> {
    return this.#store
      .statement(
        `SELECT domain, task_id AS taskId, MAX(trial) + 1 AS next FROM jobs WHERE run_id = ? GROUP BY domain, task_id`,
      )
      .all(runId) as Array<{ domain: string; taskId: string; next: number }>;
  }

  #countsSync(runId: string): JobCounts {
    const rows = this.#store
      .statement("SELECT state, COUNT(*) AS n FROM jobs WHERE run_id = ? GROUP BY state")
      .all(runId) as Array<{ state: JobState; n: number }>;
    const counts: JobCounts = { queued: 0, claimed: 0, done: 0, failed: 0, total: 0 };
    for (const row of rows) {
      counts[row.state] = row.n;
      counts.total += row.n;
    }
    return counts;
  }
}

function keyOf(job: JobKey): { runId: string; domain: string; taskId: string; trial: number } {
  return { runId: job.runId, domain: job.domain, taskId: job.taskId, trial: job.trial };
}
