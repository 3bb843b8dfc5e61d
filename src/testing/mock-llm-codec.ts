import { parseToolCallArguments, type LlmMessage, type LlmToolCall, type LlmToolSpec } from "../core/llm.js";
import type { MockMessageReply, MockUsage } from "./mock-llm-reply.js";

/**
 * The wire protocols the mock server speaks: `openai` (Chat Completions, also what Azure, Mistral, Groq,
 * xAI, DeepSeek, Together, Fireworks, OpenRouter and OpenAI-compatible servers speak), `openai-responses`
 * (OpenAI's Responses API), `anthropic` (Messages), `google` (Gemini's generateContent, also Vertex AI's),
 * `bedrock` (Amazon Bedrock's Converse) and `cohere` (Cohere's v2 chat).
 */
export type MockLlmProtocol = "openai" | "openai-responses" | "anthropic" | "google" | "bedrock" | "cohere";

/** A request body read into passk's provider-neutral words, whatever protocol carried it. */
export interface MockLlmConversation {
  model: string;
  stream: boolean;
  system: string;
  messages: LlmMessage[];
  tools: LlmToolSpec[];
}

/** Where a request arrived, for codecs whose wire puts the model or the streaming choice in the URL. */
export interface MockLlmRoute {
  path: string;
  /** The model named by the path (Gemini's `/models/{model}:…`, Bedrock's `/model/{modelId}/…`). */
  pathModel?: string;
  /** Whether the path asks for a stream (Gemini's `:streamGenerateContent`, Bedrock's `/converse-stream`). */
  pathStream?: boolean;
  /** Header names in lower case. */
  headers: Record<string, string>;
}

export interface SseEvent {
  event?: string;
  data: string;
}

export interface RenderContext {
  /** The call number, from 0: used to make ids. */
  index: number;
  model: string;
  usage: MockUsage;
  chunkSize: number;
  route: MockLlmRoute;
  /** The request body as received, for replies that depend on what was asked (e.g. `stream_options`). */
  body: unknown;
}

/** A prompt-cache marker a request carried: Anthropic's `cache_control` or Bedrock's `cachePoint`. */
export interface MockCacheBreakpoint {
  /** On a tool definition, on a block of the system prompt, or in a message's content. */
  at: "tools" | "system" | "messages";
  /** The tool's, the system block's or the message's index in the request body. */
  index: number;
  /** The marker as sent, e.g. `{"type": "ephemeral"}`. */
  marker: Record<string, unknown>;
}

/** A request's prompt as the provider's cache sees it. */
export interface MockPromptLayout {
  /** Each block of the prompt as wire JSON without cache markers, in cache order: tools, system, messages. */
  blocks: string[];
  /** The markers, each with the block its cached prefix ends at (an index into `blocks`). */
  breakpoints: Array<MockCacheBreakpoint & { block: number }>;
}

/** One wire protocol the mock server speaks: reading requests and writing replies and errors. */
export interface MockLlmCodec {
  readonly protocol: MockLlmProtocol;
  /**
   * How the provider caches prompts, for codecs whose replies report cached tokens from the server's
   * simulation: at the request's markers (`explicit`: Anthropic, Bedrock), or every long enough prefix
   * on its own (`automatic`: OpenAI).
   */
  readonly promptCaching?: "explicit" | "automatic";
  /** The request's prompt in cache order (codecs with {@link promptCaching}); the body was read by `parseRequest`. */
  promptLayout?(body: unknown): MockPromptLayout;
  /**
   * How a stream is framed: server-sent events (the default), or AWS's binary event stream (Bedrock's
   * `converse-stream`), where each event's `event` is its `:event-type` header and `data` its JSON payload.
   */
  readonly streamFraming?: "sse" | "aws-event-stream";
  /** Throws an Error whose message says what is wrong with the body. */
  parseRequest(body: unknown, route: MockLlmRoute): MockLlmConversation;
  renderMessage(reply: MockMessageReply, context: RenderContext): unknown;
  renderStream(reply: MockMessageReply, context: RenderContext): SseEvent[];
  /** The provider's error JSON; `headers` are the scripted reply's (a `retry-after` may also go in the body). */
  renderError(status: number, message: string, headers?: Readonly<Record<string, string>>): unknown;
  /** Headers the provider sends with an error besides the scripted ones (rate-limit state, error type). */
  errorHeaders?(status: number, headers: Readonly<Record<string, string>>): Record<string, string>;
}

/** The scripted `retry-after` in whole seconds (at least 1), for rate-limit headers and bodies that restate it. */
export function retryAfterSeconds(headers: Readonly<Record<string, string>> | undefined): number | undefined {
  const value = headers?.["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : undefined;
}

/**
 * A tool call as a request carried it back to the model: its input read as the text the model wrote
 * (an object re-serialized, a string as it is), with the arguments parsed when that text is JSON.
 */
export function requestToolCall(id: string, name: string, input: unknown): LlmToolCall {
  const text = typeof input === "string" ? input : JSON.stringify(input ?? {});
  const parsed = parseToolCallArguments(text);
  return { id, name, argumentsText: text, ...(parsed ? { arguments: parsed } : {}) };
}

/** The assistant turn of a request: its texts joined (none: null) and its tool calls. */
export function requestAssistantTurn(
  texts: readonly string[],
  toolCalls: readonly LlmToolCall[],
): LlmMessage {
  const text = texts.join("");
  return {
    role: "assistant",
    content: text === "" ? null : text,
    ...(toolCalls.length > 0 ? { toolCalls: [...toolCalls] } : {}),
  };
}
