import { hostname } from "node:os";
import type { JobCounts } from "../core/job-queue.js";
import type { RunRecord } from "../core/run-store.js";
import { ConfigError } from "../core/errors.js";
import { gradingCoverage } from "../metrics/coverage.js";
import {
  computeRunMetrics,
  failingTasks,
  type RunMetrics,
  type TaskFailures,
} from "../metrics/run-metrics.js";
import { SqliteJobQueue } from "../store/sqlite-job-queue.js";
import type { Store } from "../store/store.js";
import { checkNotRunningElsewhere } from "./resume.js";
import { RunConfigSchema } from "./run-spec.js";

/** A stored run in the list: its record, its metrics (no intervals) and, while it runs, its plan. */
export interface RunSummary {
  run: RunRecord;
  metrics: RunMetrics;
  /** The conversations a running run has planned (its job queue); null once it is not running. */
  planned: number | null;
  /** How many conversations the scores cover, of how many (planned, while running). */
  coverage: { graded: number; total: number };
}

/** A run of the list as one JSON object (`passk runs list --json`): its record, headline scores and coverage. */
export function runSummaryJson({ run, metrics, planned, coverage }: RunSummary) {
  return {
    ...run,
    ...(planned !== null ? { planned_simulations: planned } : {}),
    avg_reward: metrics.avg_reward,
    pass_hat_ks: metrics.pass_hat_ks,
    infra_error_count: metrics.infra_error_count,
    graded_simulations: coverage.graded,
    gradable_total: coverage.total,
  };
}

/** The store's runs, newest first, each with its average reward and pass^k; checks the store first. */
export function listRunSummaries(store: Store): RunSummary[] {
  store.checkIntegrity();
  return store.listRuns().map((run) => {
    const metrics = computeRunMetrics(store.scoredSimulations(run.id), {
      numTrials: run.numTrials,
      bootstrap: { resamples: 0 },
    });
    // A run in progress shows how far it has come (its planned conversations, from the job queue).
    const planned = run.status === "running" ? store.runProgress(run.id, null).planned : null;
    return { run, metrics, planned, coverage: gradingCoverage(metrics, planned) };
  });
}

/** One stored run (its id or a unique prefix): its record, job progress, metrics and failing tasks. */
export async function storedRunDetails(
  store: Store,
  ref: string,
): Promise<{ run: RunRecord; jobs: JobCounts; metrics: RunMetrics; failing: TaskFailures[] }> {
  const run = store.getRun(ref);
  const simulations = store.scoredSimulations(run.id);
  const jobs = await new SqliteJobQueue(store).counts(run.id);
  return {
    run,
    jobs,
    metrics: computeRunMetrics(simulations, { numTrials: run.numTrials }),
    failing: failingTasks(simulations),
  };
}

/**
 * Delete a stored run with its simulations — unless a live process runs it: one on this machine always
 * refuses; one its status says runs on another machine refuses unless `force`.
 */
export function deleteStoredRun(
  store: Store,
  ref: string,
  options: { force?: boolean } = {},
): { id: string; simulations: number } {
  return store.transaction(() => {
    const run = store.getRun(ref);
    const config = RunConfigSchema.safeParse(run.config);
    if (run.status === "running" && config.success) {
      checkNotRunningElsewhere({ run, config: config.data });
      const runner = config.data.runner;
      if (runner && runner.host !== hostname() && !options.force)
        throw new ConfigError(
          `run ${run.id} is marked running by process ${runner.pid} on ${runner.host} (since ${runner.started_at}); ` +
            "stop it there first, or pass --force if that process is gone.",
        );
    }
    return store.deleteRun(run.id);
  });
}
