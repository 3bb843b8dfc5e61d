import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { DelayedError, UnrecoverableError, Worker, type Job as BullJob } from "bullmq";
import { ConfigError } from "../core/errors.js";
import { TaskSchema, type Task } from "../core/task.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import { errorSimulation, type RunJob } from "../runner/execute-run.js";
import { passkVersion } from "../version.js";
import { bullmqConnection, damagedQueueSentence } from "./bullmq-connection.js";
import {
  CONVERSATION_QUEUE,
  ConversationJobDataSchema,
  jobDataDigest,
  type ConversationJobData,
  type ConversationProgress,
} from "./conversation-message.js";
import type { RedisAddress } from "./redis-url.js";

/** What a worker machine builds for a job from its own environment: the conversation and its data's digest. */
export interface PreparedJob {
  runJob: RunJob;
  dataFingerprint: string;
}

export interface ConversationWorkerOptions {
  address: RedisAddress;
  /** Conversations this worker runs at once. */
  concurrency: number;
  /** Build what runs the job here (participants with this machine's keys, the domain's data). */
  prepare: (data: ConversationJobData, task: Task) => Promise<PreparedJob>;
  /**
   * How long a job's lock lasts without renewal; a worker that dies (kill -9, machine lost) stops
   * renewing it, and after about this long its job is seen as stalled and run again elsewhere.
   */
  lockMs?: number;
  /** A refused job waits this long before a worker looks at it again. */
  refusedDelayMs?: number;
  /** What the worker's owner should read (a refused job), once per distinct sentence. */
  onNote?: (text: string) => void;
  /** A job this worker finished (its result handed back). */
  onJobEnd?: (data: ConversationJobData, terminationReason: string) => void;
}

export interface ConversationWorker {
  readonly id: string;
  /** Finish the conversations in flight, take no new ones. */
  close(): Promise<void>;
}

/**
 * A stateless `passk worker`: takes conversation jobs from the shared queue, runs each with
 * participants built from this machine's environment (API keys never travel through Redis), and hands
 * the graded simulation back. A job of another passk version, of other data, or one this machine cannot
 * run (a missing key, a perturbation it lacks) is refused with a sentence and left on the queue for a
 * matching worker.
 */
export async function startConversationWorker(
  options: ConversationWorkerOptions,
): Promise<ConversationWorker> {
  const id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 6)}`;
  const lockMs = options.lockMs ?? 30_000;
  const notes = new Set<string>();
  const note = (text: string) => {
    if (notes.has(text)) return;
    notes.add(text);
    options.onNote?.(text);
  };

  async function refuse(job: BullJob, token: string | undefined, sentence: string): Promise<never> {
    note(sentence);
    const progress: ConversationProgress = { refused: sentence };
    await job.updateProgress(progress);
    await job.moveToDelayed(Date.now() + (options.refusedDelayMs ?? 1000), token);
    throw new DelayedError();
  }

  const worker = new Worker<ConversationJobData, string>(
    CONVERSATION_QUEUE,
    async (job, token) => {
      const parsed = ConversationJobDataSchema.safeParse(job.data);
      if (!parsed.success)
        throw new UnrecoverableError(
          `job ${job.id} is not a passk conversation job: ${parsed.error.message}`,
        );
      const data = parsed.data;
      const what = `${data.domain} task ${data.taskId} trial ${data.trial} of run ${data.runId}`;
      if (data.passkVersion !== passkVersion())
        return refuse(
          job,
          token,
          `worker ${id} runs passk ${passkVersion()} and leaves ${what} (passk ${data.passkVersion}) to a worker of that version: install passk ${data.passkVersion} here, or resume the run with passk ${passkVersion()}`,
        );
      const task = TaskSchema.parse(parseJsonKeepingPyFloats(data.task));
      let prepared: PreparedJob;
      try {
        prepared = await options.prepare(data, task);
      } catch (error) {
        if (!ConfigError.isInstance(error)) throw error;
        return refuse(
          job,
          token,
          `worker ${id} cannot run ${what} and leaves it to another worker: ${error.message}`,
        );
      }
      if (prepared.dataFingerprint !== data.dataFingerprint)
        return refuse(
          job,
          token,
          `worker ${id} leaves ${what} to another worker: its ${data.domain} data differs from the coordinator's (digest ${prepared.dataFingerprint} here, ${data.dataFingerprint} there); point --data or PASSK_DATA_DIR at the same data`,
        );
      let lastReport = 0;
      const controller = new AbortController();
      let simulation;
      try {
        simulation = await prepared.runJob({
          job: {
            runId: data.runId,
            domain: data.domain,
            taskId: data.taskId,
            trial: data.trial,
            attempt: job.attemptsStarted,
            workerId: id,
            leaseExpiresAt: new Date(Date.now() + lockMs).toISOString(),
          },
          seed: data.seed,
          signal: controller.signal,
          // The coordinator's budget sees the spend of conversations in flight, at most once a second.
          reportCost: (cost) => {
            const now = Date.now();
            if (cost !== null && now - lastReport < 1000) return;
            lastReport = now;
            const progress: ConversationProgress = { cost };
            void job.updateProgress(progress).catch(() => undefined);
          },
        });
      } catch (error) {
        // A failure of the harness, not of the agent: an infrastructure error the coordinator retries.
        simulation = errorSimulation(
          { ...data, attempt: job.attemptsStarted, workerId: id, leaseExpiresAt: "" },
          data.seed,
          error,
        );
      }
      options.onJobEnd?.(data, simulation.termination_reason);
      // The digest of the data as it was read here: the coordinator checks it against what it queued.
      return `{"jobDigest":${JSON.stringify(jobDataDigest(data))},"simulation":${stringifyKeepingPyFloats(simulation)}}`;
    },
    {
      connection: bullmqConnection(options.address),
      concurrency: Math.max(1, options.concurrency),
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
      maxStalledCount: 3,
      // After a lost connection (Redis restarted), look for work again soon rather than in 15 s.
      runRetryDelay: 1000,
      // An idle worker asks again every 2 s (a stalled job moved back to the queue is seen soon).
      drainDelay: 2,
      name: id,
    },
  );
  worker.on("error", (error) =>
    note(
      `worker ${id}: ${damagedQueueSentence(options.address, error) ?? `the queue is unreachable (${error.message})`}; retrying`,
    ),
  );
  await worker.waitUntilReady();
  return {
    id,
    close: () => worker.close(),
  };
}
