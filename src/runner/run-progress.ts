import type { Job } from "../core/job-queue.js";
import type { RunEvent, RunStopReason } from "./run-events.js";

/** Where a run stands, for a progress display. */
export interface ProgressSnapshot {
  runId: string;
  /** Every (task, trial) of the run. */
  total: number;
  /** (task, trial)s with a final result (earlier sessions included). */
  done: number;
  successes: number;
  /** Conversations in flight. */
  running: number;
  /** USD spent so far (finished conversations and those in flight), as far as prices are known. */
  cost: number;
  /** False once some model's price turned out unknown: `cost` undercounts. */
  costKnown: boolean;
  /** Conversations that did not end with user_stop/agent_stop, by termination reason (retries included). */
  errors: Record<string, number>;
  /** Infrastructure errors sent back to the queue for another attempt. */
  retried: number;
  elapsedMs: number;
  /** Estimated time to finish, from this session's pace; null before the first result. */
  etaMs: number | null;
  budgetReached: boolean;
  stopping: boolean;
  reason?: RunStopReason;
}

const GOOD_ENDINGS = new Set(["user_stop", "agent_stop"]);

/**
 * Folds run events into a progress snapshot (pure bookkeeping; displays read `snapshot()`).
 * @example const progress = new RunProgress(); executeRun({ …, onEvent: (e) => progress.apply(e) })
 */
export class RunProgress {
  readonly #now: () => number;
  #runId = "";
  #total = 0;
  #done = 0;
  #doneThisSession = 0;
  #successes = 0;
  #settledCost = 0;
  #costKnown = true;
  #errors: Record<string, number> = {};
  #retried = 0;
  #inFlight = new Map<Job, number>();
  #startedAt: number;
  #budgetReached = false;
  #stopping = false;
  #reason: RunStopReason | undefined;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => performance.now());
    this.#startedAt = this.#now();
  }

  apply(event: RunEvent): void {
    switch (event.type) {
      case "run-start":
        this.#runId = event.runId;
        this.#total = event.total;
        this.#done = event.done;
        this.#successes = event.successes;
        this.#settledCost = event.cost;
        this.#startedAt = this.#now();
        break;
      case "job-start":
        this.#inFlight.set(event.job, 0);
        break;
      case "job-cost":
        if (this.#inFlight.has(event.job)) this.#inFlight.set(event.job, event.cost);
        break;
      case "job-end": {
        this.#inFlight.delete(event.job);
        const { result } = event;
        if (result.written) this.#settledCost += result.cost ?? 0;
        if (!GOOD_ENDINGS.has(result.terminationReason)) {
          this.#errors[result.terminationReason] = (this.#errors[result.terminationReason] ?? 0) + 1;
        }
        if (result.state === "queued") {
          this.#retried++;
          break;
        }
        if (result.state === "claimed") break; // another worker holds it now
        this.#done++;
        this.#doneThisSession++;
        if (result.success && result.written) this.#successes++;
        break;
      }
      case "job-error":
        this.#inFlight.delete(event.job);
        if (!event.interrupted) this.#errors.harness_error = (this.#errors.harness_error ?? 0) + 1;
        break;
      case "cost-unknown":
        this.#costKnown = false;
        break;
      case "budget-reached":
        this.#budgetReached = true;
        break;
      case "cost-uncountable":
        this.#costKnown = false;
        this.#budgetReached = true;
        break;
      case "stop-requested":
        this.#stopping = true;
        break;
      case "run-end":
        this.#reason = event.reason;
        break;
    }
  }

  snapshot(): ProgressSnapshot {
    const elapsedMs = this.#now() - this.#startedAt;
    const remaining = this.#total - this.#done;
    const inFlightCost = [...this.#inFlight.values()].reduce((sum, cost) => sum + cost, 0);
    return {
      runId: this.#runId,
      total: this.#total,
      done: this.#done,
      successes: this.#successes,
      running: this.#inFlight.size,
      cost: this.#settledCost + inFlightCost,
      costKnown: this.#costKnown,
      errors: { ...this.#errors },
      retried: this.#retried,
      elapsedMs,
      etaMs:
        remaining === 0
          ? 0
          : this.#doneThisSession > 0
            ? (remaining * elapsedMs) / this.#doneThisSession
            : null,
      budgetReached: this.#budgetReached,
      stopping: this.#stopping,
      ...(this.#reason ? { reason: this.#reason } : {}),
    };
  }
}

/** `1h02m`, `4m05s`, `12s`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/** One line describing a snapshot: what the plain (non-TTY) display prints and the bar's suffix. */
export function describeProgress(snapshot: ProgressSnapshot): string {
  const errors = Object.entries(snapshot.errors)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
  const parts = [
    `${snapshot.done}/${snapshot.total} done`,
    `${snapshot.successes} passed`,
    `${snapshot.running} running`,
    snapshot.costKnown
      ? `$${snapshot.cost.toFixed(4)}`
      : snapshot.cost > 0
        ? `$${snapshot.cost.toFixed(4)} (some prices unknown)`
        : "cost unknown",
    `ETA ${snapshot.etaMs === null ? "?" : formatDuration(snapshot.etaMs)}`,
    `errors: ${errors || "none"}${snapshot.retried > 0 ? ` (${snapshot.retried} retried)` : ""}`,
  ];
  if (snapshot.budgetReached) parts.push("budget reached: no new conversations");
  if (snapshot.stopping) parts.push("stopping");
  return parts.join(" | ");
}
