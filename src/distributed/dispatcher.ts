import { Job as BullJob, Queue, QueueEvents } from "bullmq";
import { SimulationRunSchema } from "../core/simulation.js";
import type { SimulationRunInput } from "../formats/tau2/results.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import type { RunJob } from "../runner/execute-run.js";
import type { RunJobFactory } from "../runner/run.js";
import { storableConfig } from "../runner/run-spec.js";
import { passkVersion } from "../version.js";
import { ConfigError } from "../core/errors.js";
import { bullmqConnection, damagedQueueSentence } from "./bullmq-connection.js";
import {
  CONVERSATION_QUEUE,
  ConversationProgressSchema,
  ConversationResultSchema,
  conversationJobId,
  dataFingerprint,
  jobDataDigest,
  type ConversationJobData,
} from "./conversation-message.js";
import { describeRedisAddress, type RedisAddress } from "./redis-url.js";

export interface DispatcherOptions {
  address: RedisAddress;
  /** Something the run's owner should read (a worker refused a job, Redis went away and came back). */
  onNote?: (text: string) => void;
  /** How often a job in flight is looked at directly (besides events), e.g. after Redis restarted. */
  checkIntervalMs?: number;
}

export interface Dispatcher {
  /** Hands the run's jobs to workers over Redis instead of running them here. */
  runJob: RunJobFactory;
  close(): Promise<void>;
}

interface Waiter {
  expected: Expected;
  resolve: (simulation: SimulationRunInput) => void;
  reject: (error: Error) => void;
  reportCost: (cost: number | null) => void;
}

class RemoteJobFailedError extends Error {
  override name = "RemoteJobFailedError";
}

/** A job that was left or lost: look at it again from the start. */
const KEEP = { age: 7 * 24 * 3600 };

/** What the coordinator queued for a job: what a worker's result must answer. */
interface Expected {
  /** The job in words, for sentences. */
  what: string;
  taskId: string;
  trial: number;
  digest: string;
}

/**
 * The simulation a finished job hands back, checked against what the coordinator queued: a result
 * that is not a simulation, answers another (task, trial), or ran data changed in Redis after it was
 * queued is this job's infrastructure error (the job is queued again), never a graded conversation.
 */
function simulationOf(returnvalue: unknown, expected: Expected): SimulationRunInput {
  const text = typeof returnvalue === "string" ? returnvalue : JSON.stringify(returnvalue);
  let value: unknown;
  try {
    value = parseJsonKeepingPyFloats(text);
  } catch {
    throw new RemoteJobFailedError("a worker's result is not JSON; the job is queued again");
  }
  const result = ConversationResultSchema.safeParse(value);
  const parsed = result.success ? SimulationRunSchema.safeParse(result.data.simulation) : undefined;
  if (!result.success || !parsed?.success)
    throw new RemoteJobFailedError(
      "a worker returned something that is not a passk simulation; the job is queued again",
    );
  const simulation = result.data.simulation as SimulationRunInput;
  if (result.data.jobDigest !== expected.digest)
    throw new RemoteJobFailedError(
      `the job's data was changed in Redis after it was queued (the worker ran data with digest ${result.data.jobDigest}, the coordinator queued ${expected.digest}); its result is not graded and the job is queued again — check who else writes to this Redis`,
    );
  if (simulation.task_id !== expected.taskId || simulation.trial !== expected.trial)
    throw new RemoteJobFailedError(
      `a worker answered task ${JSON.stringify(expected.taskId)} trial ${expected.trial} with the simulation of task ${JSON.stringify(simulation.task_id)} trial ${simulation.trial}; it is not graded and the job is queued again`,
    );
  return simulation;
}

/**
 * The coordinator's side of a distributed run: each (task, trial) the local queue hands out becomes a
 * BullMQ job with a deterministic id, run by whichever `passk worker` takes it; its result comes back
 * to the coordinator, which stores it as it stores a local one (once per (task, trial)). The local
 * queue stays the record of what is done, so budget, Ctrl-C, adaptive rounds and resume work as in a
 * one-process run, and `--max-concurrency` caps the conversations in flight across all workers.
 */
export async function openDispatcher(options: DispatcherOptions): Promise<Dispatcher> {
  // ioredis reconnects on its own, often without an error to report: a lost connection says so too.
  let onConnectionLost = () => {};
  const connection = bullmqConnection(options.address, () => onConnectionLost());
  const queue = new Queue<ConversationJobData, string>(CONVERSATION_QUEUE, { connection });
  const events = new QueueEvents(CONVERSATION_QUEUE, { connection });
  const shown = describeRedisAddress(options.address);
  const waiters = new Map<string, Waiter>();
  const notes = new Set<string>();
  const note = (text: string) => {
    if (notes.has(text)) return;
    notes.add(text);
    options.onNote?.(text);
  };
  let redisDown = false;
  // Keys passk cannot read: the run stops with a sentence instead of waiting for a Redis that answers.
  let damaged: ConfigError | undefined;
  const onError = (error: Error) => {
    const sentence = damagedQueueSentence(options.address, error);
    if (sentence !== undefined) {
      damaged ??= new ConfigError(sentence);
      for (const waiter of [...waiters.values()]) waiter.reject(damaged);
      return;
    }
    if (redisDown) return;
    redisDown = true;
    note(
      `Redis at ${shown} is unreachable (${error.message}); waiting for it to come back — nothing stored is lost, jobs it lost are queued again`,
    );
  };
  onConnectionLost = () => onError(new Error("connection lost"));
  queue.on("error", onError);
  events.on("error", onError);
  events.on("completed", ({ jobId, returnvalue }) => {
    const waiter = waiters.get(jobId);
    if (!waiter) return;
    try {
      waiter.resolve(simulationOf(returnvalue, waiter.expected));
    } catch (error) {
      // The run's owner reads why a finished conversation was not graded.
      note(`${waiter.expected.what}: ${(error as Error).message}`);
      waiter.reject(error as Error);
    }
  });
  events.on("failed", ({ jobId, failedReason }) => {
    waiters.get(jobId)?.reject(new RemoteJobFailedError(`a worker failed on it: ${failedReason}`));
  });
  events.on("progress", ({ jobId, data }) => {
    const progress = ConversationProgressSchema.safeParse(data);
    if (!progress.success) return;
    if ("refused" in progress.data) note(progress.data.refused);
    else waiters.get(jobId)?.reportCost(progress.data.cost);
  });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  const checkIntervalMs = options.checkIntervalMs ?? 2000;

  /** The finished job's simulation, or undefined while it is not finished; throws if it failed. */
  async function finished(
    job: BullJob<ConversationJobData, string>,
    expected: Expected,
  ): Promise<SimulationRunInput | undefined> {
    const state = await job.getState();
    if (state === "completed") return simulationOf(job.returnvalue, expected);
    if (state === "failed") throw new RemoteJobFailedError(`a worker failed on it: ${job.failedReason}`);
    return undefined;
  }

  /** Take a job off the queue if no worker has begun it; false when one runs it (or it is gone). */
  async function withdrawUnstarted(id: string): Promise<boolean> {
    const queued = await queue.getJob(id);
    if (!queued) return false;
    const state = await queued.getState();
    if (state !== "waiting" && state !== "delayed" && state !== "prioritized") return false;
    try {
      await queued.remove();
      return true;
    } catch {
      return false; // a worker took it meanwhile (it is locked): it finishes and is stored
    }
  }

  const runJob: RunJobFactory = ({ run, config, domains }) => {
    const stored = storableConfig({ ...config, runner: null });
    const remote: RunJob = async ({ job, seed, signal, stopSignal, reportCost }) => {
      if (damaged) throw damaged;
      const id = conversationJobId(job);
      const domain = domains.get(job.domain);
      const task = domain?.tasks.get(job.taskId);
      if (!domain || !task) throw new Error(`job ${job.domain}/${job.taskId} is not among the run's tasks`);
      const data: ConversationJobData = {
        runId: run.id,
        domain: job.domain,
        taskId: job.taskId,
        trial: job.trial,
        seed,
        task: stringifyKeepingPyFloats(task),
        config: stored,
        passkVersion: passkVersion(),
        dataFingerprint: dataFingerprint(domain.data),
      };
      const expected: Expected = {
        what: `${job.domain} task ${job.taskId} trial ${job.trial}`,
        taskId: job.taskId,
        trial: job.trial,
        digest: jobDataDigest(data),
      };
      let queuedBefore = false;
      const ensureQueued = async (): Promise<SimulationRunInput | "stopped" | undefined> => {
        let existing: BullJob<ConversationJobData, string> | undefined;
        try {
          existing = await queue.getJob(id);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          // Its data in Redis is not JSON (damaged, or overwritten): no worker can run it. The data is
          // written back as queued. Removing the job instead races the workers: one that failed to read
          // it keeps it locked, the lock expires, it is moved back to the queue and taken (and locked)
          // again at once, so a removal can miss for as long as that cycle lasts.
          note(
            `${expected.what}: its job's data in Redis is not JSON (damaged or overwritten); it is queued again`,
          );
          await new BullJob<ConversationJobData, string>(queue, "conversation", data, {}, id).updateData(
            data,
          );
          return undefined;
        }
        if (existing) {
          try {
            const result = await finished(existing, expected);
            if (result) return result;
            return undefined; // waiting or running: wait for it
          } catch (error) {
            // A failed job (a worker gave up on it) or a refused result: take it away and queue it again.
            if (error instanceof RemoteJobFailedError) note(`${expected.what}: ${error.message}`);
            await existing.remove();
          }
        }
        // Stopping: a job that is not on the queue (withdrawn, or never queued) is not queued again.
        if (stopSignal?.aborted) return "stopped";
        if (!existing && queuedBefore)
          note(
            "queued jobs vanished from Redis (flushed, or evicted: give Redis maxmemory-policy noeviction); they are queued again, and nothing stored is lost",
          );
        await queue.add("conversation", data, { jobId: id, removeOnComplete: KEEP, removeOnFail: KEEP });
        queuedBefore = true;
        return undefined;
      };
      const result = await new Promise<SimulationRunInput>((resolve, reject) => {
        let settled = false;
        const settle = (action: () => void) => {
          if (settled) return;
          settled = true;
          waiters.delete(id);
          clearInterval(timer);
          signal.removeEventListener("abort", onAbort);
          stopSignal?.removeEventListener("abort", onStop);
          action();
        };
        const onAbort = () => {
          const error = new Error("interrupted");
          error.name = "AbortError";
          settle(() => reject(error));
        };
        // A graceful stop waits for conversations that run; a job no worker has taken (none may be able
        // to: a perturbation or key they lack) is taken off the queue, so the stop does not wait forever.
        const stopped = () => {
          const error = new Error(`${expected.what}: stopped before any worker took it`);
          error.name = "AbortError";
          settle(() => reject(error));
        };
        const onStop = () => {
          void withdrawUnstarted(id).then(
            (withdrawn) => {
              if (withdrawn) stopped();
            },
            () => undefined, // Redis is away: the hard stop (a second Ctrl-C) still ends it
          );
        };
        signal.addEventListener("abort", onAbort);
        if (stopSignal?.aborted) onStop();
        else stopSignal?.addEventListener("abort", onStop);
        waiters.set(id, {
          expected,
          resolve: (simulation) => settle(() => resolve(simulation)),
          reject: (error) => settle(() => reject(error)),
          reportCost,
        });
        // Events can be missed (Redis restarted, a reconnect): look at the job itself now and then.
        const check = () => {
          // A job a worker held for a moment when the stop came (to refuse it) is looked at again.
          if (stopSignal?.aborted) onStop();
          return ensureQueued().then(
            (simulation) => {
              if (redisDown) {
                redisDown = false;
                notes.clear();
                options.onNote?.(`Redis at ${shown} answers again; the run goes on`);
              }
              if (simulation === "stopped") stopped();
              else if (simulation) settle(() => resolve(simulation));
            },
            () => undefined, // Redis is away: the next check tries again
          );
        };
        const timer = setInterval(() => void check(), checkIntervalMs);
        timer.unref();
        // While Redis is away the job waits here (the checks queue it once Redis answers again).
        ensureQueued().then(
          (simulation) => {
            if (simulation === "stopped") stopped();
            else if (simulation) settle(() => resolve(simulation));
          },
          (error: unknown) => onError(error instanceof Error ? error : new Error(String(error))),
        );
      });
      // An infrastructure error is consumed here: the next attempt is a new job under the same id.
      if (result.termination_reason === "infrastructure_error") await queue.remove(id).catch(() => 0);
      return result;
    };
    return remote;
  };

  return {
    runJob,
    close: async () => {
      await Promise.allSettled([events.close(), queue.close()]);
    },
  };
}
