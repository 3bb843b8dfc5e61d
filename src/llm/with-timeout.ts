import { ConfigError } from "../core/errors.js";
import type { LanguageModel, LlmRequest, LlmResponse } from "../core/llm.js";

/** A call that gave no answer in time; retryable (see `withRetry`'s default classification). */
export class CallTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms (timeout)`);
    this.name = "CallTimeoutError";
  }
}

/**
 * A model whose every call is abandoned after `timeoutMs`: the inner call's signal aborts and the call
 * fails with a {@link CallTimeoutError}. Put it inside `withRetry` so that each attempt gets its
 * own time. An abort by the caller's own signal is passed on as is.
 *
 * @example
 * const patient = withTimeout(model, 120_000);
 */
export function withTimeout(model: LanguageModel, timeoutMs: number): LanguageModel {
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new ConfigError(`the LLM timeout must be a positive number of milliseconds, got ${timeoutMs}`);
  }
  return {
    spec: model.spec,
    get priced() {
      return model.priced;
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      // One controller that the timeout or the caller's signal aborts. Not AbortSignal.any: that costs
      // some 20–30 µs of CPU on every model call.
      const signal = request.signal;
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const onAbort = () => controller.abort(signal?.reason);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      try {
        return await model.generate({ ...request, signal: controller.signal });
      } catch (error) {
        if (timedOut && !signal?.aborted) throw new CallTimeoutError(timeoutMs);
        throw error;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}
