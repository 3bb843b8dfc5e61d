import { APICallError } from "ai";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import {
  InfrastructureError,
  type LanguageModel,
  type LlmMessage,
  type LlmRequest,
  type LlmResponse,
  type LlmToolCall,
  type LlmUsage,
  parseToolCallArguments,
  ProviderUsageError,
} from "../core/llm.js";
import { checkLlmArgs, type LlmArgs } from "./llm-args.js";
import { formatModelSpec, type ModelSpec } from "./model-spec.js";
import { promptCacheMarkers, type PromptCacheMarkers, type PromptCacheStyle } from "./prompt-cache.js";
import type { ProviderDefinition } from "./provider-registry.js";
import type { SdkLanguageModel } from "./sdk-language-model.js";
import { redactSecrets } from "./redact.js";
import { parseRetryAfterMs, retryDelayFromBodyMs, type AttemptFailure } from "./retry.js";
import { classifyFault, infrastructureFailure, type RetryPolicy } from "./with-retry.js";

type CallOptions = Parameters<SdkLanguageModel["doGenerate"]>[0];
type Prompt = CallOptions["prompt"];
type FunctionTool = Extract<NonNullable<CallOptions["tools"]>[number], { type: "function" }>;
type GenerateResult = Awaited<ReturnType<SdkLanguageModel["doGenerate"]>>;
type ProviderOptions = NonNullable<CallOptions["providerOptions"]>;

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
  stream: boolean;
  /** Explicit prompt-cache markers to send (see {@link PromptCacheStyle}); none when absent. */
  promptCache?: PromptCacheStyle;
}

/**
 * passk's `LanguageModel` over an AI SDK provider model: one attempt per call, nothing more. Timeouts,
 * retries, cost and the response cache are layers around it (see `composeLanguageModel`); the replies
 * carry `cost: null` until `withCost` prices them.
 *
 * It calls the provider model's `doGenerate` / `doStream` (the SDK's provider specification, v3) rather
 * than `generateText`, for three reasons: tools are plain JSON Schema that passk, never the SDK, executes;
 * the raw argument text of every tool call comes back untouched (generateText would parse and validate
 * it, and drop what it cannot parse), so malformed calls can be shown to the model; and the only retry
 * and timeout policy is passk's own (Retry-After, jitter, infrastructure errors).
 *
 * The request's `signal` aborts the call; `params` are the complete call settings (see `withArgs`).
 */
export function createAiSdkLanguageModel(options: AiSdkLanguageModelOptions): LanguageModel {
  const { spec, provider, sdkModel } = options;
  const label = formatModelSpec(spec);
  const markers = options.promptCache ? promptCacheMarkers(options.promptCache) : undefined;
  return {
    spec: label,
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const params = request.params ? checkLlmArgs(request.params, `${label} request params`) : {};
      const callOptions: CallOptions = {
        ...toCallOptions(request, params, provider, markers),
        ...(request.signal ? { abortSignal: request.signal } : {}),
      };
      const outcome = options.stream
        ? await readStream(sdkModel, callOptions)
        : fromGenerateResult(await sdkModel.doGenerate(callOptions));
      return checkUsage(toLlmResponse(outcome, spec.provider), label);
    },
  };
}

/**
 * How the AI SDK's failures are retried and reported: 408, 409, 429 and 5xx answers (and what the SDK
 * marks retryable) are retried after the provider's Retry-After, when it gives one; 401/403 (credentials
 * refused) and 404 (unknown model or URL) stop the run as a ConfigError; every text is key-free.
 */
export function aiSdkErrorPolicy(input: {
  spec: ModelSpec;
  provider: ProviderDefinition;
  /** Values to strip from every error text (the API key). */
  secrets: readonly string[];
}): Required<Pick<RetryPolicy, "classify" | "finalError" | "redact">> {
  const { provider, secrets } = input;
  const label = formatModelSpec(input.spec);
  const redact = (text: string) => redactSecrets(text, secrets);

  function classify(error: unknown): AttemptFailure {
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
    return classifyFault(error, redact);
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
    return infrastructureFailure(label, error, redact);
  }

  return { classify, finalError, redact };
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

function toCallOptions(
  request: LlmRequest,
  params: LlmArgs,
  provider: ProviderDefinition,
  markers: PromptCacheMarkers | undefined,
): CallOptions {
  const providerOptions: Record<string, Record<string, unknown>> = { ...params.provider_options };
  if (params.reasoning_effort !== undefined && provider.reasoningEffortKey !== undefined) {
    providerOptions[provider.reasoningEffortKey] = {
      ...providerOptions[provider.reasoningEffortKey],
      reasoningEffort: params.reasoning_effort,
    };
  }
  const last = (request.tools?.length ?? 0) - 1;
  const tools: FunctionTool[] | undefined = request.tools?.map((tool, index) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    // The domain's JSON Schema is sent as is; the SDK's JSONSchema7 type is narrower than a plain record.
    inputSchema: tool.parameters as FunctionTool["inputSchema"],
    ...(markers?.tools && index === last ? { providerOptions: markers.tools } : {}),
  }));
  const prompt = toPrompt(request.system, request.messages, provider.toolArguments);
  if (markers) markPrompt(prompt, markers);
  const options: CallOptions = {
    prompt,
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
      ? { providerOptions: providerOptions as ProviderOptions }
      : {}),
  };
  return options;
}

/**
 * Puts prompt-cache markers on the system prompt and the last message (message-level provider options:
 * the provider packages attach them to the message's last part). The texts stay as they are.
 */
function markPrompt(prompt: Prompt, markers: PromptCacheMarkers): void {
  const first = prompt[0];
  if (first?.role === "system") first.providerOptions = markers.system;
  const last = prompt[prompt.length - 1];
  if (last !== undefined && last.role !== "system") last.providerOptions = markers.lastMessage;
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

function toLlmResponse(outcome: CallOutcome, provider: string): LlmResponse {
  const toolCalls: LlmToolCall[] = outcome.toolCalls.map((call) => {
    const parsed = parseToolCallArguments(call.input);
    return {
      id: call.toolCallId,
      name: call.toolName,
      ...(parsed ? { arguments: parsed } : {}),
      argumentsText: call.input,
    };
  });
  // The SDK's input total counts cached tokens too; packages report 0 (or nothing) when none were.
  const { total, cacheRead, cacheWrite } = outcome.usage.inputTokens;
  const usage: LlmUsage = {
    promptTokens: total ?? 0,
    completionTokens: outcome.usage.outputTokens.total ?? 0,
    ...(cacheRead ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
  };
  const raw: Record<string, unknown> = { provider };
  if (outcome.responseId !== undefined) raw.id = outcome.responseId;
  if (outcome.responseModel !== undefined) raw.model = outcome.responseModel;
  if (outcome.finishReason !== undefined) raw.finish_reason = outcome.finishReason;
  return {
    text: outcome.text === "" ? null : outcome.text,
    toolCalls,
    usage,
    cost: null,
    raw,
  };
}

/** A token count a call can have: a whole number, 0 or more (JSON cannot say NaN; 1e300 is not safe). */
const TokenCount = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const USAGE_FIELDS: ReadonlyArray<[keyof LlmUsage, string]> = [
  ["promptTokens", "prompt (input) tokens"],
  ["completionTokens", "completion (output) tokens"],
  ["cacheReadTokens", "cache-read tokens"],
  ["cacheWriteTokens", "cache-write tokens"],
];

/**
 * The reply, if the provider's usage is possible: an impossible count would make the cost negative or
 * unknown and blind `--max-cost`, so the call ends the conversation as the provider's fault, named.
 */
function checkUsage(response: LlmResponse, label: string): LlmResponse {
  for (const [field, name] of USAGE_FIELDS) {
    const value = response.usage[field];
    if (value !== undefined && !TokenCount.safeParse(value).success)
      throw new ProviderUsageError(
        `${label}: the provider reported ${name} = ${String(value)} in its usage, a count no call can have ` +
          "(a whole number, 0 or more); the call's cost cannot be counted, so the conversation ends as an infrastructure error (the provider's fault, not the price table's)",
      );
  }
  return response;
}
