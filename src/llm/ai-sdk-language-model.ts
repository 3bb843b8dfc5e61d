import { APICallError } from "ai";
import { ConfigError } from "../core/errors.js";
import {
  InfrastructureError,
  type LanguageModel,
  type LlmMessage,
  type LlmRequest,
  type LlmResponse,
  type LlmToolCall,
  parseToolCallArguments,
} from "../core/llm.js";
import { callCost, isPriced, type PriceLookup, type PriceOverrides } from "./cost.js";
import { checkLlmArgs, mergeLlmArgs, type LlmArgs } from "./llm-args.js";
import { formatModelSpec, type ModelSpec } from "./model-spec.js";
import type { ProviderDefinition, SdkLanguageModel } from "./provider-registry.js";
import { redactSecrets } from "./redact.js";
import { responseCacheKey, type ResponseCache } from "./response-cache.js";
import {
  parseRetryAfterMs,
  retryDelayFromBodyMs,
  withRetry,
  type AttemptFailure,
  type RetryOptions,
} from "./retry.js";

type CallOptions = Parameters<SdkLanguageModel["doGenerate"]>[0];
type Prompt = CallOptions["prompt"];
type FunctionTool = Extract<NonNullable<CallOptions["tools"]>[number], { type: "function" }>;
type GenerateResult = Awaited<ReturnType<SdkLanguageModel["doGenerate"]>>;

/** The parts of a reply passk keeps, gathered from either a JSON answer or a stream. */
interface CallOutcome {
  text: string;
  toolCalls: { toolCallId: string; toolName: string; input: string }[];
  usage: GenerateResult["usage"];
  finishReason?: string;
  responseId?: string;
  responseModel?: string;
}

export interface AiSdkLanguageModelOptions {
  spec: ModelSpec;
  provider: ProviderDefinition;
  sdkModel: SdkLanguageModel;
  args: LlmArgs;
  retry: RetryOptions;
  /** Per attempt; a slower answer is abandoned and retried. */
  timeoutMs: number;
  stream: boolean;
  priceLookup: PriceLookup;
  priceOverrides?: PriceOverrides;
  cache?: ResponseCache;
  /** Values to strip from every error text (the API key). */
  secrets: readonly string[];
  now: () => Date;
}

/**
 * passk's `LanguageModel` over an AI SDK provider model.
 *
 * It calls the provider model's `doGenerate` / `doStream` (the SDK's provider specification, v3) rather
 * than `generateText`, for three reasons: tools are plain JSON Schema that passk, never the SDK, executes;
 * the raw argument text of every tool call comes back untouched (generateText would parse and validate
 * it, and drop what it cannot parse), so malformed calls can be shown to the model; and the only retry
 * and timeout policy is passk's own (Retry-After, jitter, infrastructure errors).
 */
export function createAiSdkLanguageModel(options: AiSdkLanguageModelOptions): LanguageModel & ModelSpec {
  const { spec, provider, sdkModel, retry, timeoutMs, cache, secrets } = options;
  const label = formatModelSpec(spec);
  const redact = (text: string) => redactSecrets(text, secrets);
  // Looked up once, on the first answer: a model the price table does not know never gets a price.
  let priced: boolean | undefined;

  async function callOnce(callOptions: CallOptions, signal: AbortSignal | undefined): Promise<CallOutcome> {
    // One controller that the timeout or the caller's signal aborts. Not AbortSignal.any: that costs
    // some 20–30 µs of CPU on every model call.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const abortSignal = controller.signal;
    try {
      return options.stream
        ? await readStream(sdkModel, { ...callOptions, abortSignal })
        : fromGenerateResult(await sdkModel.doGenerate({ ...callOptions, abortSignal }));
    } catch (error) {
      if (timedOut && !signal?.aborted) throw new CallTimeoutError(timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  function classify(error: unknown): AttemptFailure {
    if (error instanceof CallTimeoutError) return { retryable: true, reason: error.message };
    if (APICallError.isInstance(error)) {
      const status = error.statusCode;
      const retryable =
        status === undefined
          ? error.isRetryable
          : error.isRetryable || status === 408 || status === 409 || status === 429 || status >= 500;
      const reason = redact(status !== undefined ? `HTTP ${status}: ${error.message}` : error.message);
      // A header when there is one; Gemini says it in its error body (RetryInfo) instead.
      const retryAfterMs =
        parseRetryAfterMs(error.responseHeaders) ?? retryDelayFromBodyMs(error.responseBody);
      return { retryable, reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    const reason = redact(describeError(error));
    return { retryable: isTransientFault(error), reason };
  }

  /** A failure that retries cannot help: bad credentials or a wrong model/URL stop the run; the rest is infrastructure. */
  function finalError(error: unknown): Error {
    if (error instanceof InfrastructureError || error instanceof ConfigError) return error;
    if (APICallError.isInstance(error) && error.statusCode !== undefined) {
      const detail = redact(`HTTP ${error.statusCode}: ${error.message}`);
      if (error.statusCode === 401 || error.statusCode === 403) {
        return new ConfigError(
          `${label}: the provider refused the credentials (${detail}); check ` +
            (provider.credentialsHint ??
              provider.apiKeyEnv +
                (provider.apiKeyRequired ? "" : " (optional: unset it if the server needs no key)")),
        );
      }
      if (error.statusCode === 404) {
        return new ConfigError(
          `${label}: ${redact(error.url)} answered 404 (${detail}); check the model name and the base URL`,
        );
      }
    }
    return new InfrastructureError(
      `${label}: the provider call failed and is not retryable (${redact(describeError(error))}); ` +
        `the simulation ends as an infrastructure error`,
      1,
      { cause: new Error(redact(describeError(error))) },
    );
  }

  return {
    spec: label,
    provider: spec.provider,
    model: spec.model,
    get priced(): boolean {
      priced ??= isPriced({
        provider: spec.provider,
        model: spec.model,
        lookup: options.priceLookup,
        ...(options.priceOverrides ? { overrides: options.priceOverrides } : {}),
      });
      return priced;
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const params = mergeLlmArgs(
        options.args,
        request.params ? checkLlmArgs(request.params, `${label} request params`) : undefined,
      );
      const cacheKey = cache ? responseCacheKey({ spec: label, request, params }) : undefined;
      if (cache && cacheKey) {
        const hit = cache.get(cacheKey);
        if (hit) return { ...hit, cached: true };
      }
      const callOptions = toCallOptions(request, params, provider);
      let outcome: CallOutcome;
      try {
        outcome = await withRetry(() => callOnce(callOptions, request.signal), {
          retry,
          classify,
          label,
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (error) {
        if (request.signal?.aborted) throw error;
        throw finalError(error);
      }
      priced ??= isPriced({
        provider: spec.provider,
        model: spec.model,
        lookup: options.priceLookup,
        ...(options.priceOverrides ? { overrides: options.priceOverrides } : {}),
      });
      const response = toLlmResponse(outcome, options, priced);
      if (cache && cacheKey) cache.set(cacheKey, label, response);
      return response;
    },
  };
}

/** A per-attempt timeout; retryable. */
class CallTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms (timeout)`);
    this.name = "CallTimeoutError";
  }
}

/** Provider-side faults that may pass: dropped connections, garbled or empty bodies. */
function isTransientFault(error: unknown): boolean {
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

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}

/** An error part inside a stream (the provider reported a failure mid-answer). */
class StreamError extends Error {
  constructor(detail: unknown) {
    super(
      `the provider reported an error in the stream: ${detail instanceof Error ? detail.message : JSON.stringify(detail)}`,
    );
    this.name = "StreamError";
  }
}

function toCallOptions(request: LlmRequest, params: LlmArgs, provider: ProviderDefinition): CallOptions {
  const providerOptions: Record<string, Record<string, unknown>> = { ...params.provider_options };
  if (params.reasoning_effort !== undefined && provider.reasoningEffortKey !== undefined) {
    providerOptions[provider.reasoningEffortKey] = {
      ...providerOptions[provider.reasoningEffortKey],
      reasoningEffort: params.reasoning_effort,
    };
  }
  const tools: FunctionTool[] | undefined = request.tools?.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    // The domain's JSON Schema is sent as is; the SDK's JSONSchema7 type is narrower than a plain record.
    inputSchema: tool.parameters as FunctionTool["inputSchema"],
  }));
  const options: CallOptions = {
    prompt: toPrompt(request.system, request.messages, provider.toolArguments),
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.max_tokens !== undefined ? { maxOutputTokens: params.max_tokens } : {}),
    ...(params.top_p !== undefined ? { topP: params.top_p } : {}),
    ...(params.top_k !== undefined ? { topK: params.top_k } : {}),
    ...(params.seed !== undefined ? { seed: params.seed } : {}),
    ...(params.stop !== undefined
      ? { stopSequences: typeof params.stop === "string" ? [params.stop] : params.stop }
      : {}),
    ...(params.presence_penalty !== undefined ? { presencePenalty: params.presence_penalty } : {}),
    ...(params.frequency_penalty !== undefined ? { frequencyPenalty: params.frequency_penalty } : {}),
    ...(request.jsonSchema
      ? {
          responseFormat: {
            type: "json" as const,
            schema: request.jsonSchema as FunctionTool["inputSchema"],
            name: "response",
          },
        }
      : {}),
    ...(Object.keys(providerOptions).length > 0
      ? { providerOptions: providerOptions as NonNullable<CallOptions["providerOptions"]> }
      : {}),
  };
  return options;
}

/**
 * passk's messages in the SDK's prompt form; consecutive tool results share one tool message. Earlier
 * tool calls carry their arguments as the provider needs them (`ProviderDefinition.toolArguments`).
 */
export function toPrompt(
  system: string,
  messages: readonly LlmMessage[],
  toolArguments: "text" | "object",
): Prompt {
  const prompt: Prompt = [];
  if (system !== "") prompt.push({ role: "system", content: system });
  for (const message of messages) {
    switch (message.role) {
      case "user":
        prompt.push({ role: "user", content: [{ type: "text", text: message.content }] });
        break;
      case "assistant": {
        const content: Extract<Prompt[number], { role: "assistant" }>["content"] = [];
        if (message.content !== null && message.content !== "")
          content.push({ type: "text", text: message.content });
        for (const call of message.toolCalls ?? []) {
          content.push({
            type: "tool-call",
            toolCallId: call.id,
            toolName: call.name,
            // Where the package sends the arguments as text (Chat Completions) the model gets back what it
            // wrote: a malformed call as is, floats as floats (`2.0`). Elsewhere an object (an empty one
            // for a malformed call).
            input:
              toolArguments === "object"
                ? (call.arguments ?? {})
                : (call.argumentsText ?? call.arguments ?? {}),
          });
        }
        prompt.push({ role: "assistant", content });
        break;
      }
      case "tool": {
        const part = {
          type: "tool-result" as const,
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: message.isError
            ? { type: "error-text" as const, value: message.content }
            : { type: "text" as const, value: message.content },
        };
        const previous = prompt[prompt.length - 1];
        if (previous?.role === "tool") previous.content.push(part);
        else prompt.push({ role: "tool", content: [part] });
        break;
      }
    }
  }
  return prompt;
}

function fromGenerateResult(result: GenerateResult): CallOutcome {
  let text = "";
  const toolCalls: CallOutcome["toolCalls"] = [];
  for (const part of result.content) {
    if (part.type === "text") text += part.text;
    if (part.type === "tool-call" && !part.providerExecuted) {
      toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
  }
  return {
    text,
    toolCalls,
    usage: result.usage,
    ...(result.finishReason.raw !== undefined ? { finishReason: result.finishReason.raw } : {}),
    ...(result.response?.id !== undefined ? { responseId: result.response.id } : {}),
    ...(result.response?.modelId !== undefined ? { responseModel: result.response.modelId } : {}),
  };
}

async function readStream(sdkModel: SdkLanguageModel, callOptions: CallOptions): Promise<CallOutcome> {
  const { stream } = await sdkModel.doStream(callOptions);
  const outcome: CallOutcome = {
    text: "",
    toolCalls: [],
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      switch (part.type) {
        case "text-delta":
          outcome.text += part.delta;
          break;
        case "tool-call":
          if (!part.providerExecuted) {
            outcome.toolCalls.push({
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              input: part.input,
            });
          }
          break;
        case "response-metadata":
          if (part.id !== undefined) outcome.responseId = part.id;
          if (part.modelId !== undefined) outcome.responseModel = part.modelId;
          break;
        case "finish":
          outcome.usage = part.usage;
          if (part.finishReason.raw !== undefined) outcome.finishReason = part.finishReason.raw;
          break;
        case "error":
          throw APICallError.isInstance(part.error) ? part.error : new StreamError(part.error);
      }
    }
  } finally {
    reader.releaseLock();
  }
  return outcome;
}

function toLlmResponse(
  outcome: CallOutcome,
  options: AiSdkLanguageModelOptions,
  priced: boolean,
): LlmResponse {
  const toolCalls: LlmToolCall[] = outcome.toolCalls.map((call) => {
    const parsed = parseToolCallArguments(call.input);
    return {
      id: call.toolCallId,
      name: call.toolName,
      ...(parsed ? { arguments: parsed } : {}),
      argumentsText: call.input,
    };
  });
  const inputTokens = outcome.usage.inputTokens.total ?? 0;
  const outputTokens = outcome.usage.outputTokens.total ?? 0;
  const cost = !priced
    ? null
    : callCost({
        provider: options.spec.provider,
        model: options.spec.model,
        usage: {
          inputTokens,
          outputTokens,
          ...(outcome.usage.inputTokens.cacheRead !== undefined
            ? { cacheReadTokens: outcome.usage.inputTokens.cacheRead }
            : {}),
          ...(outcome.usage.inputTokens.cacheWrite !== undefined
            ? { cacheWriteTokens: outcome.usage.inputTokens.cacheWrite }
            : {}),
        },
        lookup: options.priceLookup,
        ...(options.priceOverrides ? { overrides: options.priceOverrides } : {}),
        at: options.now(),
      });
  const raw: Record<string, unknown> = { provider: options.spec.provider };
  if (outcome.responseId !== undefined) raw.id = outcome.responseId;
  if (outcome.responseModel !== undefined) raw.model = outcome.responseModel;
  if (outcome.finishReason !== undefined) raw.finish_reason = outcome.finishReason;
  return {
    text: outcome.text === "" ? null : outcome.text,
    toolCalls,
    usage: { promptTokens: inputTokens, completionTokens: outputTokens },
    cost,
    raw,
  };
}
