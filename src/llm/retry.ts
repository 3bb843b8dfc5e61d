import { InfrastructureError } from "../core/llm.js";

/** What happened before a retry, for progress displays and logs (the reason is already key-free). */
export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  reason: string;
}

/**
 * How provider faults (429, 5xx, timeouts, connection resets) are retried. Exported so the CLI and tests
 * can tune them; `random` and `sleep` are seams that make the jitter and the waiting deterministic.
 */
export interface RetryOptions {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** Wait before the first retry; each further retry multiplies it by `backoffFactor`. */
  initialDelayMs: number;
  backoffFactor: number;
  maxDelayMs: number;
  /** Spread of the random jitter, as a fraction of the delay: 0.25 waits 75 %–125 % of it. */
  jitter: number;
  /** A Retry-After longer than this ends the retries at once instead of blocking a worker for it. */
  maxRetryAfterMs: number;
  /** Uniform in [0, 1). */
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  onRetry?: (event: RetryEvent) => void;
}

export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = {
  maxAttempts: 5,
  initialDelayMs: 1_000,
  backoffFactor: 2,
  maxDelayMs: 30_000,
  jitter: 0.25,
  maxRetryAfterMs: 120_000,
  random: Math.random,
  sleep: abortableSleep,
};

export function resolveRetryOptions(options?: Partial<RetryOptions>): RetryOptions {
  const resolved: RetryOptions = { ...DEFAULT_RETRY_OPTIONS, ...options };
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) {
    throw new RangeError(`retry.maxAttempts must be an integer >= 1, got ${resolved.maxAttempts}`);
  }
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) {
    throw new RangeError(`retry.jitter must be within [0, 1], got ${resolved.jitter}`);
  }
  return resolved;
}

/**
 * The wait before retry number `retry` (1 for the first retry): exponential backoff capped at
 * `maxDelayMs`, spread by the jitter. A server's Retry-After, when given, replaces the backoff; jitter
 * then only ever lengthens it, so the server's minimum holds.
 */
export function retryDelayMs(retry: number, options: RetryOptions, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.round(retryAfterMs * (1 + options.jitter * options.random()));
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * options.backoffFactor ** (retry - 1));
  const spread = 1 - options.jitter + 2 * options.jitter * options.random();
  return Math.round(Math.min(options.maxDelayMs, base * spread));
}

/**
 * Reads `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date) from response headers whose
 * names are lower-case, as the AI SDK reports them.
 */
export function parseRetryAfterMs(
  headers: Readonly<Record<string, string>> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headers["retry-after-ms"];
  if (milliseconds !== undefined) {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers["retry-after"];
  if (retryAfter === undefined) return undefined;
  const seconds = Number(retryAfter);
  if (retryAfter.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait an error body asks for, where the provider says it there rather than in a header: Google's
 * `RetryInfo` detail (`{"error": {"details": [{"@type": "…google.rpc.RetryInfo", "retryDelay": "1.5s"}]}}`).
 */
export function retryDelayFromBodyMs(body: string | undefined): number | undefined {
  if (body === undefined || !body.includes("retryDelay")) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = (parsed as { error?: { details?: unknown } } | null)?.error;
  if (!Array.isArray(error?.details)) return undefined;
  for (const detail of error.details as unknown[]) {
    const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
    const match = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : null;
    if (match) return Number(match[1]) * 1000;
  }
  return undefined;
}

/** How one failed attempt should be handled. */
export interface AttemptFailure {
  retryable: boolean;
  /** Key-free description, e.g. `HTTP 429: rate limited`. */
  reason: string;
  retryAfterMs?: number;
}

/**
 * Runs `attempt` until it succeeds or the retry budget is spent. A non-retryable failure is rethrown
 * as is (the caller maps it); spent retries become an `InfrastructureError`. An abort by the caller's
 * `signal` stops at once and rethrows the abort. `withRetry` (with-retry.ts) puts it around a `LanguageModel`.
 */
export async function retryWithBackoff<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: {
    retry: RetryOptions;
    classify: (error: unknown) => AttemptFailure;
    /** Names what was called in the final error, e.g. `openai:gpt-4o`. */
    label: string;
    signal?: AbortSignal;
  },
): Promise<T> {
  const { retry, classify, label, signal } = options;
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      const failure = classify(error);
      if (!failure.retryable) throw error;
      if (attemptNumber >= retry.maxAttempts) {
        throw new InfrastructureError(
          `${label}: the provider call failed ${attemptNumber} time${attemptNumber === 1 ? "" : "s"} ` +
            `(last: ${failure.reason}); not the agent's fault — the simulation ends as an infrastructure error ` +
            `and can be re-run`,
          attemptNumber,
          { cause: new Error(failure.reason) },
        );
      }
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > retry.maxRetryAfterMs) {
        throw new InfrastructureError(
          `${label}: the provider asked to wait ${Math.ceil(failure.retryAfterMs / 1000)} s before retrying ` +
            `(more than maxRetryAfterMs = ${retry.maxRetryAfterMs} ms; last: ${failure.reason}); ` +
            `the simulation ends as an infrastructure error and can be re-run later`,
          attemptNumber,
          { cause: new Error(failure.reason) },
        );
      }
      const delayMs = retryDelayMs(attemptNumber, retry, failure.retryAfterMs);
      retry.onRetry?.({ attempt: attemptNumber, delayMs, reason: failure.reason });
      await retry.sleep(delayMs, signal);
    }
  }
}

/** `setTimeout` as a promise that rejects with the signal's reason when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
