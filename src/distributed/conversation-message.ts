import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { JobKey } from "../core/job-queue.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { RunConfigSchema, runIdentity } from "../runner/run-spec.js";

/** The BullMQ queue passk's coordinators and workers share (one per Redis database). */
export const CONVERSATION_QUEUE = "passk-conversations";

/**
 * What a coordinator puts on the queue for one (task, trial): everything a stateless worker needs
 * besides its own environment (API keys, and optionally its own data directory). Never a secret: the
 * configuration is the stored one, base-URL credentials taken out.
 */
export const ConversationJobDataSchema = z.object({
  runId: z.string(),
  domain: z.string(),
  taskId: z.string(),
  trial: z.number().int().min(0),
  seed: z.number().int(),
  /** The task, as JSON that keeps Python float marks (`2.0`). */
  task: z.string(),
  /**
   * The run's stored configuration. Its `perturbations` are specs (`tool-faults@1:rate=0.2`: name,
   * version, settings), resolved by each worker from the perturbations it loaded itself: a job never
   * makes a worker import code, and a worker without one (or with another version) refuses the job.
   */
  config: RunConfigSchema,
  /** passk's version on the coordinator: a worker of another version refuses the job. */
  passkVersion: z.string(),
  /** The coordinator's domain data (databases and policy): a worker with other data refuses the job. */
  dataFingerprint: z.string(),
});
export type ConversationJobData = z.infer<typeof ConversationJobDataSchema>;

/**
 * A digest of what a job's conversation and grade depend on: the (task, trial), its seed, the task,
 * the data's digest and what the run measures (not operational settings a resume may change, such as
 * base URLs). The worker hands back the digest of the job it ran, so a job changed in Redis after it
 * was queued (another task, its criteria, the configuration) is never graded as the coordinator's.
 */
export function jobDataDigest(data: ConversationJobData): string {
  const identity = Object.entries(runIdentity(data.config)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const measured = [
    data.runId,
    data.domain,
    data.taskId,
    data.trial,
    data.seed,
    data.task,
    data.dataFingerprint,
  ];
  return createHash("sha256")
    .update(JSON.stringify([...measured, identity]))
    .digest("hex")
    .slice(0, 32);
}

/** What a worker hands back for a job: the digest of the data it ran, and the simulation as JSON text. */
export const ConversationResultSchema = z.object({
  jobDigest: z.string(),
  simulation: z.unknown(),
});

/** What a worker reports while it works on a job (BullMQ job progress). */
export const ConversationProgressSchema = z.union([
  z.object({ cost: z.number().nullable() }),
  z.object({ refused: z.string() }),
]);
export type ConversationProgress = z.infer<typeof ConversationProgressSchema>;

/**
 * The job id of a (task, trial): deterministic, so enqueueing it again (a resumed coordinator, a retry)
 * finds the job already there instead of running the conversation twice.
 */
export function conversationJobId(key: JobKey): string {
  const digest = createHash("sha256")
    .update([key.runId, key.domain, key.taskId, String(key.trial)].join("\u0000"))
    .digest("hex")
    .slice(0, 32);
  return `${key.runId}-${digest}`;
}

const fingerprints = new WeakMap<DomainData, string>();

/** A digest of what a domain's conversations depend on besides the task: its databases and policy. */
export function dataFingerprint(data: DomainData): string {
  let fingerprint = fingerprints.get(data);
  if (fingerprint === undefined) {
    const hash = createHash("sha256").update(data.domain.name).update("\u0000");
    for (const file of [data.domain.data.db, data.domain.data.userDb]) {
      if (file) hash.update(readFileSync(path.join(data.folder, file))).update("\u0000");
    }
    hash.update(data.policy);
    fingerprint = hash.digest("hex").slice(0, 16);
    fingerprints.set(data, fingerprint);
  }
  return fingerprint;
}
