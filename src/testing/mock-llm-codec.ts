import type { LlmMessage, LlmToolSpec } from "../core/llm.js";
import type { MockMessageReply, MockUsage } from "./mock-llm-reply.js";

export type MockLlmProtocol = "openai" | "anthropic";

/** A request body read into passk's provider-neutral words, whatever protocol carried it. */
export interface MockLlmConversation {
  model: string;
  stream: boolean;
  system: string;
  messages: LlmMessage[];
  tools: LlmToolSpec[];
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
}

/** One wire protocol the mock server speaks: reading requests and writing replies and errors. */
export interface MockLlmCodec {
  readonly protocol: MockLlmProtocol;
  /** Throws an Error whose message says what is wrong with the body. */
  parseRequest(body: unknown): MockLlmConversation;
  renderMessage(reply: MockMessageReply, context: RenderContext): unknown;
  renderStream(reply: MockMessageReply, context: RenderContext): SseEvent[];
  renderError(status: number, message: string): unknown;
}
