import type { StoredSimulationRecord } from "./run-store.js";

/** One conversation to run: a (task, trial) of a run, in a domain. */
export interface JobKey {
  runId: string;
  domain: string;
  taskId: string;
  trial: number;
}

/** A claimed job: the worker holds it until `leaseExpiresAt`, then another worker may take it. */
export interface Job extends JobKey {
  /** 1 on the first claim, 2 on the first retry… */
  attempt: number;
  workerId: string;
  leaseExpiresAt: string;
}

export type JobState = "queued" | "claimed" | "done" | "failed";

export interface JobCounts {
  queued: number;
  claimed: number;
  done: number;
  failed: number;
  total: number;
}

export interface EnqueueResult {
  /** Jobs now waiting to run (new ones and earlier ones never finished). */
  queued: number;
  /** Jobs whose (task, trial) already has an evaluable result: not run again. */
  done: number;
}

export interface CompleteResult {
  /** The job's state afterwards: `done`, or `queued` / `failed` after an infrastructure error. */
  state: JobState;
  /** Whether this result was stored (false: an evaluable result for the key was already there). */
  written: boolean;
}

/**
 * The runner's work queue, small enough to put on a distributed engine later: enqueue (task, trial)
 * jobs, workers claim them under a lease, and each result is written idempotently by (run, domain,
 * task, trial) together with finishing the job. Guarantees, whatever crashes when:
 *
 * - each (task, trial) ends with exactly one stored simulation (nothing lost, nothing duplicated);
 * - a (task, trial) with an evaluable result is never run again, not even after a resume;
 * - infrastructure errors are retried (up to the queue's attempt limit, and again on resume).
 *
 * `SqliteJobQueue` implements it in-process over the store. Methods are async so that a networked
 * implementation fits the same interface.
 */
export interface JobQueue {
  /** Add jobs (existing ones are left as they are); jobs already answered are marked done. */
  enqueue(runId: string, jobs: ReadonlyArray<Omit<JobKey, "runId">>): Promise<EnqueueResult>;
  /** Claim up to `limit` waiting jobs of a run (or jobs whose lease ran out) for a worker. */
  claim(options: { runId: string; workerId: string; limit?: number; leaseMs?: number }): Promise<Job[]>;
  /** Extend the lease of jobs a worker still works on (long conversations). */
  heartbeat(jobs: readonly Job[], leaseMs?: number): Promise<void>;
  /**
   * Store the job's simulation and finish the job, atomically. An `infrastructure_error` result
   * is stored (so that it is counted if retries run out) and the job goes back to the queue, or to
   * `failed` once the attempts are used up.
   */
  complete(job: Job, simulation: StoredSimulationRecord): Promise<CompleteResult>;
  /**
   * The job failed without a result (the worker caught an exception): treat as an infrastructure
   * error and requeue, or mark `failed` once the attempts are used up. Nothing is stored: to have the
   * trial counted as an infrastructure error, `complete` it with such a simulation instead.
   */
  fail(job: Job, error: { message: string }): Promise<JobState>;
  /**
   * Resume after a crash: put the run's claimed jobs (all of them, or with `onlyExpired` only those
   * whose lease ran out) and its failed jobs back in the queue, attempts reset for the failed ones.
   * Returns how many jobs were requeued.
   */
  recover(runId: string, options?: { onlyExpired?: boolean }): Promise<number>;
  counts(runId: string): Promise<JobCounts>;
  /** Per task of a run, the trial index a new job would take (one past the highest queued so far). */
  nextTrialIndexes(runId: string): Promise<Array<{ domain: string; taskId: string; next: number }>>;
}
