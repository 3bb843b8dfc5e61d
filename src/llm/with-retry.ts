import { ConfigError } from "../core/errors.js";
import { InfrastructureError, type LanguageModel, type LlmRequest, type LlmResponse } from "../core/llm.js";
import { retryWithBackoff, type AttemptFailure, type RetryOptions } from "./retry.js";
import { CallTimeoutError } from "./with-timeout.js";

/** How a model's failures are retried and, once retries cannot help, reported. */
export interface RetryPolicy {
  retry: RetryOptions;
  /** Whether a failure is worth another attempt; default {@link classifyFault}. */
  classify?: (error: unknown) => AttemptFailure;
  /** The error a failure that retries cannot help becomes; default {@link infrastructureFailure}. */
  finalError?: (error: unknown) => Error;
  /** Takes secrets out of a text (the default classification and final error use it). */
  redact?: (text: string) => string;
}

/**
 * A model whose calls are retried on faults that may pass (timeouts, connection resets, and whatever
 * `classify` says), with exponential backoff and jitter, honouring a server's Retry-After. Spent retries
 * end in an `InfrastructureError` (the simulation is left out of scores and can be re-run); a failure
 * retries cannot help goes through `finalError`; an abort by the caller's signal is passed on as is.
 *
 * @example
 * const steady = withRetry(withTimeout(model, 120_000), { retry: resolveRetryOptions({ maxAttempts: 5 }) });
 */
export function withRetry(model: LanguageModel, policy: RetryPolicy): LanguageModel {
  const redact = policy.redact ?? ((text: string) => text);
  const classify = policy.classify ?? ((error: unknown) => classifyFault(error, redact));
  const finalError =
    policy.finalError ?? ((error: unknown) => infrastructureFailure(model.spec, error, redact));
  return {
    spec: model.spec,
    get priced() {
      return model.priced;
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      try {
        return await retryWithBackoff(() => model.generate(request), {
          retry: policy.retry,
          classify,
          label: model.spec,
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (error) {
        if (request.signal?.aborted) throw error;
        throw finalError(error);
      }
    },
  };
}

/** Timeouts and faults of the connection (dropped, refused, garbled) are retried; nothing else. */
export function classifyFault(
  error: unknown,
  redact: (text: string) => string = (text) => text,
): AttemptFailure {
  if (error instanceof CallTimeoutError) return { retryable: true, reason: error.message };
  return { retryable: isTransientFault(error), reason: redact(describeError(error)) };
}

/**
 * What a failure retries cannot help becomes: a configuration problem (`ConfigError`) or an
 * `InfrastructureError` stays as it is; anything else ends the simulation as an infrastructure error.
 */
export function infrastructureFailure(
  label: string,
  error: unknown,
  redact: (text: string) => string = (text) => text,
): Error {
  if (error instanceof InfrastructureError || error instanceof ConfigError) return error;
  const detail = redact(describeError(error));
  return new InfrastructureError(
    `${label}: the provider call failed and is not retryable (${detail}); ` +
      `the simulation ends as an infrastructure error`,
    1,
    { cause: new Error(detail) },
  );
}

/** Provider-side faults that may pass: dropped connections, garbled or empty bodies. */
export function isTransientFault(error: unknown): boolean {
  const transientNames = new Set([
    "AI_JSONParseError",
    "AI_TypeValidationError",
    "AI_InvalidResponseDataError",
    "AI_EmptyResponseBodyError",
    "StreamError",
  ]);
  const transientCodes = /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR_\w+)$/;
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (transientNames.has(current.name)) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && transientCodes.test(code)) return true;
    if (/^(terminated|other side closed|fetch failed)$/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/** `Name: message (cause)`, the way failures are described in reasons and final errors. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}
