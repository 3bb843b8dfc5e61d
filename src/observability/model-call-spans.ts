import { SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from "@opentelemetry/api";
import type { LanguageModel, LlmRequest, LlmResponse } from "../core/llm.js";
import type { ModelCallObserver, ObservedModel } from "../llm/model-call-observer.js";
import type { RetryEvent } from "../llm/retry.js";
import { ERROR_TYPE, GEN_AI, genAiProviderName } from "./gen-ai-attributes.js";
import type { SpanText } from "./span-text.js";
import type { TraceScopes } from "./trace-scope.js";

/** Settings a request carries, as the conventions name them. */
const REQUEST_SETTINGS: ReadonlyArray<[string, string]> = [
  ["temperature", GEN_AI.requestTemperature],
  ["max_tokens", GEN_AI.requestMaxTokens],
  ["top_p", GEN_AI.requestTopP],
  ["seed", GEN_AI.requestSeed],
];

/**
 * Model calls as GenAI client spans (`chat <model>`), children of the conversation (or of nothing, for a
 * call outside one): the model, provider, settings, tokens (cache reads and writes included), the
 * call's cost (`passk.cost_usd`), the reply (`gen_ai.output.messages`, cut short), the latency as the
 * span's duration. A failed attempt that is retried becomes a child span with an error status; a call
 * that fails for good has one itself.
 */
export function modelCallSpans(tracer: Tracer, scopes: TraceScopes, text: SpanText): ModelCallObserver {
  return {
    wrap(model: LanguageModel, about: ObservedModel): LanguageModel {
      const provider = genAiProviderName(about.provider);
      return {
        spec: model.spec,
        get priced() {
          return model.priced;
        },
        async generate(request: LlmRequest): Promise<LlmResponse> {
          const scope = scopes.current();
          const span = tracer.startSpan(
            `chat ${about.model}`,
            { kind: SpanKind.CLIENT, attributes: requestAttributes(request, about, provider) },
            scopes.parentContext(),
          );
          const call = { span, attemptStart: performance.timeOrigin + performance.now(), failedAttempts: 0 };
          try {
            const response = await scopes.run({ span: scope?.span ?? span, call }, () =>
              model.generate(request),
            );
            span.setAttributes(responseAttributes(response, text));
            span.setAttribute("passk.attempts", call.failedAttempts + 1);
            return response;
          } catch (error) {
            span.setAttribute("passk.attempts", call.failedAttempts + 1);
            span.setAttribute(ERROR_TYPE, error instanceof Error ? error.name : "Error");
            span.setStatus({
              code: SpanStatusCode.ERROR,
              message: text(about.redact(error instanceof Error ? error.message : String(error))),
            });
            throw error;
          } finally {
            span.end();
          }
        },
      };
    },

    retried(event: RetryEvent): void {
      const call = scopes.current()?.call;
      if (!call) return;
      // The failed attempt, from its start to now, as a child of the call.
      const now = performance.timeOrigin + performance.now();
      const attempt = tracer.startSpan(
        `attempt ${event.attempt}`,
        {
          kind: SpanKind.CLIENT,
          startTime: call.attemptStart,
          attributes: {
            "passk.attempt": event.attempt,
            "passk.retry_delay_ms": event.delayMs,
            [ERROR_TYPE]: errorTypeOf(event.reason),
          },
        },
        trace.setSpan(scopes.parentContext(), call.span),
      );
      // The reason is already key-free (the retry layer redacts it); the filter is the second guard.
      attempt.setStatus({ code: SpanStatusCode.ERROR, message: text(event.reason) });
      attempt.end(now);
      call.failedAttempts++;
      call.attemptStart = now + event.delayMs;
    },
  };
}

function requestAttributes(request: LlmRequest, about: ObservedModel, provider: string): Attributes {
  const attributes: Attributes = {
    [GEN_AI.operationName]: "chat",
    [GEN_AI.providerName]: provider,
    [GEN_AI.system]: provider,
    [GEN_AI.requestModel]: about.model,
    "passk.role": about.role,
    "passk.tools": request.tools?.length ?? 0,
    "passk.messages": request.messages.length,
  };
  for (const [key, name] of REQUEST_SETTINGS) {
    const value = request.params?.[key];
    if (typeof value === "number") attributes[name] = value;
  }
  return attributes;
}

function responseAttributes(response: LlmResponse, text: SpanText): Attributes {
  const { usage, raw } = response;
  const attributes: Attributes = {
    [GEN_AI.usageInputTokens]: usage.promptTokens,
    [GEN_AI.usageOutputTokens]: usage.completionTokens,
    "passk.response_cache.hit": response.cached === true,
  };
  if (usage.cacheReadTokens !== undefined)
    attributes[GEN_AI.usageCacheReadInputTokens] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined)
    attributes[GEN_AI.usageCacheCreationInputTokens] = usage.cacheWriteTokens;
  if (response.cost !== null) attributes["passk.cost_usd"] = response.cost;
  if (typeof raw?.model === "string") attributes[GEN_AI.responseModel] = raw.model;
  if (typeof raw?.id === "string") attributes[GEN_AI.responseId] = raw.id;
  const finishReason = typeof raw?.finish_reason === "string" ? raw.finish_reason : undefined;
  if (finishReason !== undefined) attributes[GEN_AI.responseFinishReasons] = [finishReason];
  // The conventions' message shape: parts of text and tool calls.
  const parts = [
    ...(response.text !== null ? [{ type: "text", content: response.text }] : []),
    ...response.toolCalls.map((call) => ({
      type: "tool_call",
      id: call.id,
      name: call.name,
      arguments: call.arguments ?? call.argumentsText,
    })),
  ];
  attributes[GEN_AI.outputMessages] = text(
    JSON.stringify([{ role: "assistant", parts, ...(finishReason ? { finish_reason: finishReason } : {}) }]),
  );
  return attributes;
}

/** `HTTP 429: …` → `429`; a timeout or a connection fault keeps its first word. */
function errorTypeOf(reason: string): string {
  const status = /^HTTP (\d{3})\b/.exec(reason);
  if (status) return status[1]!;
  const name = /^(\w+)(?::|\s|$)/.exec(reason);
  return name ? name[1]! : "Error";
}
