import type { LanguageModel } from "../core/llm.js";
import { withCallLimits, type CallLimiter } from "./call-limits.js";
import type { LlmArgs } from "./llm-args.js";
import type { ResponseCache } from "./response-cache.js";
import type { RetryPolicy } from "./with-retry.js";
import { withArgs } from "./with-args.js";
import { withCache } from "./with-cache.js";
import { withCost, type CostOptions } from "./with-cost.js";
import { withRedactedReplies } from "./with-redacted-replies.js";
import { classifyFault, withRetry } from "./with-retry.js";
import { withTimeout } from "./with-timeout.js";

/** The guarantees a model's calls get; each is a layer over the `LanguageModel` interface. */
export interface LanguageModelLayers {
  /** Model-level call settings under each request's own ({@link withArgs}). */
  args?: LlmArgs;
  /** Per attempt, in milliseconds ({@link withTimeout}). */
  timeoutMs: number;
  /** Retries of faults, and what failures finally become ({@link withRetry}). */
  retry: RetryPolicy;
  /** Prices each reply ({@link withCost}); absent: replies keep the cost the model gave (unknown). */
  cost?: CostOptions;
  /** Replays identical requests ({@link withCache}, `--cache`). */
  cache?: ResponseCache;
  /** Watches each request (tracing, `--otel`): gets the settings in effect, sees cache hits and the priced reply. */
  observe?: (model: LanguageModel) => LanguageModel;
  /** Limits on concurrent calls, requests and tokens per minute, shared by a run's processes ({@link withCallLimits}). */
  limiter?: CallLimiter;
  /** Configured keys and tokens, taken out of every reply by value ({@link withRedactedReplies}). */
  secrets?: readonly string[];
}

/**
 * Wraps a model — an AI SDK provider's, or any other `LanguageModel` — in passk's guarantees, in the one
 * order that makes them right, outermost first:
 *
 * 1. settings: model-level settings merged under the request's, checked before anything is sent;
 * 2. observer (tracing): one record per request, whichever layer below answers it;
 * 3. response cache: an identical request (settings included) is answered without a call, at its
 *    first cost;
 * 4. cost: the reply priced from its usage, once, whichever attempt gave it;
 * 5. retries: faults retried with backoff and Retry-After, spent retries an infrastructure error;
 *    the reply they give has every configured secret taken out (nothing above ever holds one);
 * 6. limits: each attempt waits for the run's call limits, and a 429 holds every process's calls;
 * 7. timeout: each attempt abandoned after `timeoutMs`.
 *
 * @example
 * const model = composeLanguageModel(createAiSdkLanguageModel({ … }), {
 *   timeoutMs: 120_000,
 *   retry: { retry: resolveRetryOptions() },
 *   cost: { provider: "openai", model: "gpt-4.1", lookup: { providerId: "openai" }, now: () => new Date() },
 * });
 */
export function composeLanguageModel(model: LanguageModel, layers: LanguageModelLayers): LanguageModel {
  let attempt = withTimeout(model, layers.timeoutMs);
  if (layers.limiter) {
    const classify = layers.retry.classify ?? ((error: unknown) => classifyFault(error));
    attempt = withCallLimits(attempt, layers.limiter, (error) => {
      const failure = classify(error);
      return /^HTTP 429\b/.test(failure.reason)
        ? failure.retryAfterMs !== undefined
          ? { retryAfterMs: failure.retryAfterMs }
          : {}
        : undefined;
    });
  }
  let composed = withRetry(attempt, layers.retry);
  if (layers.secrets) composed = withRedactedReplies(composed, layers.secrets);
  if (layers.cost) composed = withCost(composed, layers.cost);
  if (layers.cache) composed = withCache(composed, layers.cache);
  if (layers.observe) composed = layers.observe(composed);
  return withArgs(composed, layers.args ?? {});
}
