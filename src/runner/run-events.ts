import type { Job, JobState } from "../core/job-queue.js";

/** Why a run stopped: all work done, the budget was reached, or it was interrupted (Ctrl-C). */
/** `cost_uncountable`: under `--max-cost`, a provider reported usage no call can have, so spend is unknown. */
export type RunStopReason = "completed" | "budget_reached" | "cost_uncountable" | "interrupted";

/** How one conversation of the run ended, as the progress display and the summary need it. */
export interface JobResult {
  terminationReason: string;
  reward: number | null;
  success: boolean;
  /** agent + user cost in USD; null when a model's price is unknown. */
  cost: number | null;
  /** The job's state after storing: `done`, or `queued` (to be retried) / `failed` after an infrastructure error. */
  state: JobState;
  /** False when the (task, trial) already had an evaluable result (another worker won the race). */
  written: boolean;
}

/**
 * What happens during a run, as it happens (noun-action names, as the conversation events). The CLI's
 * progress display and summary consume these; nothing in the runner prints.
 */
export type RunEvent =
  | {
      type: "run-start";
      runId: string;
      /** Every (task, trial) of the run. */
      total: number;
      /** Already finished before this session (a resumed run), and how many of those succeeded. */
      done: number;
      successes: number;
      /** Cost of the simulations stored before this session. */
      cost: number;
      concurrency: number;
    }
  | { type: "job-start"; job: Job; seed: number }
  /** The running cost of a conversation in flight changed (a model call was priced). */
  | { type: "job-cost"; job: Job; cost: number }
  | { type: "job-end"; job: Job; result: JobResult; durationMs: number }
  /** The job stopped without a result of its own: interrupted, or the harness threw. */
  | { type: "job-error"; job: Job; message: string; interrupted: boolean; state: JobState }
  | { type: "budget-reached"; spent: number; maxCost: number; inFlight: number }
  /** Some model's price is unknown, so costs (and `--max-cost`) undercount. Sent once. */
  | { type: "cost-unknown"; job: Job }
  /**
   * A provider reported impossible token usage under `--max-cost`: the spend can no longer be counted,
   * so no new conversation starts (`message` names the provider, model and field).
   */
  | { type: "cost-uncountable"; job: Job; message: string; inFlight: number }
  | { type: "stop-requested"; inFlight: number; abort: boolean }
  | { type: "run-end"; reason: RunStopReason; spent: number };
