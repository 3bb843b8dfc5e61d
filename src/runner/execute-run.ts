import { randomUUID } from "node:crypto";
import { ConfigError } from "../core/errors.js";
import type { SimulationRunInput } from "../formats/tau2/results.js";
import { isSuccessful } from "../metrics/pass-hat-k.js";
import { simulationCost } from "../metrics/simulation-cost.js";
import type { SimulationEvent } from "../orchestrator/events.js";
import type { Job, JobCounts, JobQueue } from "../core/job-queue.js";
import type { RunEvent, RunStopReason } from "./run-events.js";

/** What a worker hands the code that runs one conversation. */
export interface JobContext {
  job: Job;
  /** The trial's seed (τ²: the same for every task of a trial). */
  seed: number;
  /** Aborted when the run is stopped hard (second Ctrl-C): the conversation must end without a result. */
  signal: AbortSignal;
  /**
   * Aborted on a graceful stop (first Ctrl-C, SIGTERM). A running conversation finishes; a job no one has
   * begun (queued for remote workers, none of which can take it) may end at once with an AbortError.
   */
  stopSignal?: AbortSignal;
  /** Report the conversation's cost so far (USD), for the running cost and the budget. */
  reportCost(cost: number | null): void;
  /** Sees the conversation's events as they happen; set by a wrapper over the job (`--otel` tracing). */
  onSimulationEvent?: (event: SimulationEvent) => void;
}

/** Runs one conversation and grades it; throws when stopped through `signal`. */
export type RunJob = (context: JobContext) => Promise<SimulationRunInput>;

export interface ExecuteRunOptions {
  queue: JobQueue;
  runId: string;
  runJob: RunJob;
  /** Seed of a job's trial. */
  seedOf: (job: Job) => number;
  /** Conversations at once (τ² `--max-concurrency`). */
  concurrency: number;
  /** USD: no conversation starts once the run's spend reaches it. */
  maxCost?: number;
  /** What the simulations stored before this session hold (a resumed run's budget counts their cost). */
  previous?: { cost: number; successes: number };
  /** Graceful stop: no new conversation starts; those in flight finish and are stored. */
  stopSignal?: AbortSignal;
  /** Hard stop: conversations in flight are aborted and go back to the queue unstored. */
  abortSignal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  workerId?: string;
  /** Lease of a claimed job (default 10 minutes); renewed every third of it while the job runs. */
  leaseMs?: number;
}

export interface RunOutcome {
  reason: RunStopReason;
  counts: JobCounts;
  /** Spend of the whole run (earlier sessions included), USD, as far as prices are known. */
  spent: number;
  /** Conversations this session ran to a stored result. */
  completed: number;
  /** Milliseconds spent storing results (the queue's `complete`), summed over this session. */
  storeMs: number;
  /**
   * The set-up error that stopped the run (refused credentials, a wrong model or URL): its job and
   * those in flight went back to the queue unstored, no conversation started after it.
   */
  setupError?: ConfigError;
}

/**
 * The stand-in stored when running a job threw (a failure of the harness, not of the agent): an
 * infrastructure error, so that the job is retried and, if it keeps failing, the (task, trial) still
 * exists exactly once and is counted as an infrastructure error, never as an agent failure.
 */
export function errorSimulation(job: Job, seed: number, error: unknown): SimulationRunInput {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    task_id: job.taskId,
    timestamp: now,
    start_time: now,
    end_time: now,
    duration: 0,
    termination_reason: "infrastructure_error",
    agent_cost: null,
    user_cost: null,
    reward_info: null,
    messages: [],
    trial: job.trial,
    seed,
    info: { error: error instanceof Error ? error.message : String(error) },
  };
}

const isAbort = (error: unknown, signal: AbortSignal) =>
  signal.aborted ||
  (error instanceof Error && (error.name === "SimulationAbortedError" || error.name === "AbortError"));

/**
 * Run a run's queued jobs with at most `concurrency` conversations at once, over any {@link JobQueue}:
 * workers claim one job at a time, run it, and hand the result to the queue, which stores it
 * idempotently by (run, domain, task, trial). Infrastructure errors go back to the queue and are
 * claimed again. It returns when nothing is left to claim and nothing runs, when the budget is reached
 * (after the conversations in flight end), or when stopped.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<RunOutcome> {
  const { queue, runId, runJob, onEvent } = options;
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const workerId = options.workerId ?? `worker-${process.pid}-${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const abortSignal = options.abortSignal ?? new AbortController().signal;
  const stopSignal = options.stopSignal ?? new AbortController().signal;
  const inFlight = new Map<Job, { cost: number; controller: AbortController }>();
  let settledCost = options.previous?.cost ?? 0;
  let completed = 0;
  let storeMs = 0;
  let budgetReached = false;
  let costUncountable = false;
  let costUnknownSent = false;
  let setupError: ConfigError | undefined;
  // Idle workers wait here until a job settles (it may have gone back to the queue) or a stop.
  let waiters: Array<() => void> = [];
  const settled = () => new Promise<void>((resolve) => waiters.push(resolve));
  const notify = () => {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };

  const spent = () => settledCost + [...inFlight.values()].reduce((sum, entry) => sum + entry.cost, 0);
  const stopping = () => stopSignal.aborted || abortSignal.aborted || setupError !== undefined;
  const overBudget = () => {
    if (options.maxCost === undefined || budgetReached) return budgetReached;
    if (spent() < options.maxCost) return false;
    budgetReached = true;
    onEvent?.({ type: "budget-reached", spent: spent(), maxCost: options.maxCost, inFlight: inFlight.size });
    return true;
  };
  const costUnknown = (job: Job) => {
    if (costUnknownSent) return;
    costUnknownSent = true;
    onEvent?.({ type: "cost-unknown", job });
  };

  const onAbort = () => {
    onEvent?.({ type: "stop-requested", inFlight: inFlight.size, abort: true });
    for (const entry of inFlight.values()) entry.controller.abort();
    notify();
  };
  const onStop = () => {
    onEvent?.({ type: "stop-requested", inFlight: inFlight.size, abort: false });
    notify();
  };
  abortSignal.addEventListener("abort", onAbort);
  stopSignal.addEventListener("abort", onStop);
  // Long conversations keep their claim; a worker on another machine could otherwise take them over.
  const heartbeat = setInterval(
    () => {
      if (inFlight.size > 0) void queue.heartbeat([...inFlight.keys()], leaseMs).catch(() => undefined);
    },
    Math.max(1000, leaseMs / 3),
  );
  heartbeat.unref();

  async function runOne(job: Job): Promise<void> {
    const seed = options.seedOf(job);
    const controller = new AbortController();
    if (abortSignal.aborted) controller.abort();
    const entry = { cost: 0, controller };
    inFlight.set(job, entry);
    onEvent?.({ type: "job-start", job, seed });
    const began = performance.now();
    try {
      let simulation: SimulationRunInput;
      try {
        simulation = await runJob({
          job,
          seed,
          signal: controller.signal,
          stopSignal,
          reportCost: (cost) => {
            if (cost === null) return costUnknown(job);
            entry.cost = cost;
            onEvent?.({ type: "job-cost", job, cost });
          },
        });
      } catch (error) {
        if (ConfigError.isInstance(error) && !abortSignal.aborted) {
          // Every conversation would fail the same way: none is graded, the run stops.
          const state = await queue.fail(job, { message: `interrupted: ${error.message}` });
          onEvent?.({ type: "job-error", job, message: error.message, interrupted: true, state });
          if (setupError === undefined) {
            setupError = error;
            for (const other of inFlight.values()) other.controller.abort();
          }
          return;
        }
        if (isAbort(error, controller.signal)) {
          const state = await queue.fail(job, { message: "interrupted" });
          onEvent?.({ type: "job-error", job, message: "interrupted", interrupted: true, state });
          return;
        }
        simulation = errorSimulation(job, seed, error);
        onEvent?.({
          type: "job-error",
          job,
          message: error instanceof Error ? error.message : String(error),
          interrupted: false,
          state: "queued",
        });
      }
      const storeStart = performance.now();
      const stored = await queue.complete(job, simulation);
      storeMs += performance.now() - storeStart;
      completed++;
      const cost = simulationCost(simulation);
      if (cost === null && simulation.termination_reason !== "infrastructure_error") costUnknown(job);
      // A provider reported impossible token usage: that call's cost cannot be counted, so the spend is
      // no longer known to be under --max-cost. Going on would spend blind (every conversation may meet the
      // same provider); the run starts no new conversation instead, as if the budget were reached, and says why.
      const info = (simulation as { info?: { error_type?: unknown; error?: unknown } }).info;
      if (options.maxCost !== undefined && info?.error_type === "ProviderUsageError" && !budgetReached) {
        budgetReached = true;
        costUncountable = true;
        onEvent?.({
          type: "cost-uncountable",
          job,
          message: typeof info.error === "string" ? info.error : "a provider reported impossible token usage",
          inFlight: inFlight.size - 1,
        });
      }
      if (stored.written) settledCost += cost ?? 0;
      const reward = simulation.reward_info?.reward ?? null;
      onEvent?.({
        type: "job-end",
        job,
        durationMs: performance.now() - began,
        result: {
          terminationReason: simulation.termination_reason,
          reward,
          success: isSuccessful(reward),
          cost,
          state: stored.state,
          written: stored.written,
        },
      });
    } finally {
      inFlight.delete(job);
      notify();
    }
  }

  async function worker(index: number): Promise<void> {
    const id = `${workerId}-${index}`;
    for (;;) {
      if (stopping() || overBudget()) return;
      const [job] = await queue.claim({ runId, workerId: id, limit: 1, leaseMs });
      if (job) {
        // The claim may have raced a stop: hand the job straight back.
        if (stopping()) {
          await queue.fail(job, { message: "interrupted" });
          return;
        }
        await runOne(job);
        continue;
      }
      // Nothing to claim now; a conversation in flight may still requeue its job (infrastructure error).
      if (inFlight.size === 0) return;
      await settled();
    }
  }

  const counts = await queue.counts(runId);
  onEvent?.({
    type: "run-start",
    runId,
    total: counts.total,
    done: counts.done + counts.failed,
    successes: options.previous?.successes ?? 0,
    cost: settledCost,
    concurrency,
  });
  if (stopSignal.aborted || abortSignal.aborted) {
    onEvent?.({ type: "stop-requested", inFlight: 0, abort: abortSignal.aborted });
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  } finally {
    clearInterval(heartbeat);
    abortSignal.removeEventListener("abort", onAbort);
    stopSignal.removeEventListener("abort", onStop);
  }
  const finalCounts = await queue.counts(runId);
  const unfinished = finalCounts.queued + finalCounts.claimed;
  const reason: RunStopReason =
    unfinished === 0
      ? "completed"
      : stopping()
        ? "interrupted"
        : costUncountable
          ? "cost_uncountable"
          : budgetReached
            ? "budget_reached"
            : "completed";
  onEvent?.({ type: "run-end", reason, spent: spent() });
  return {
    reason,
    counts: finalCounts,
    spent: spent(),
    completed,
    storeMs,
    ...(setupError !== undefined ? { setupError } : {}),
  };
}
