import type { RunConfig } from "../runner/run-spec.js";
import type { RunJobFactory } from "../runner/run.js";
import { openDispatcher } from "./dispatcher.js";
import { configEndpoints, startRunWorker, type RunWorkerOptions } from "./run-worker.js";
import type { RedisAddress } from "./redis-url.js";

export interface QueueDistributionOptions {
  /** The Redis or Valkey server the run's workers take its conversations from. */
  address: RedisAddress;
  /** Sentences about the queue (a refused job, Redis away), shown whatever else is shown. */
  onNote?: (text: string) => void;
  /**
   * Conversations this process runs too, as a worker of its own run (0: none). Its credentials go only
   * where the run's own spec points, never where a job names.
   */
  localWorkers?: number;
  /** How a local worker builds its participants: this process's keys, domains, modules, tracing. */
  worker?: Pick<
    RunWorkerOptions,
    "env" | "domains" | "catalog" | "perturbations" | "agentModules" | "tracing" | "onNote"
  >;
}

/**
 * `startRun`'s `distribute` for a run across machines: its conversations are handed to `passk worker`s
 * through the queue at `address` (and to `localWorkers` here); closed when the run ends.
 */
export function queueDistribution(
  options: QueueDistributionOptions,
): (config: RunConfig) => Promise<{ runJob: RunJobFactory; close(): Promise<void> }> {
  return async (config) => {
    const { address, localWorkers = 0 } = options;
    const dispatcher = await openDispatcher({
      address,
      ...(options.onNote ? { onNote: options.onNote } : {}),
    });
    const worker =
      localWorkers === 0
        ? undefined
        : await startRunWorker({
            ...options.worker,
            address,
            concurrency: localWorkers,
            lockMs: 30_000,
            allowedEndpoints: configEndpoints(config).map((e) => e.origin),
          });
    return {
      runJob: dispatcher.runJob,
      close: async () => {
        await worker?.close();
        await dispatcher.close();
      },
    };
  };
}
