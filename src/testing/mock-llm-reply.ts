import { stringifyKeepingPyFloats } from "../python/py-float.js";

/** A tool call the mock model makes. `arguments` as a string is sent verbatim, so it may be malformed JSON. */
export interface MockToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface MockUsage {
  /** Every prompt token, cached ones included. */
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt tokens, those read from the provider's prompt cache. */
  cachedTokens?: number;
  /** Of the prompt tokens, those written to the prompt cache (Anthropic and Bedrock report them). */
  cacheWriteTokens?: number;
}

/** The prompt tokens neither read from nor written to the cache (what Anthropic and Bedrock call input tokens). */
export function uncachedPromptTokens(usage: MockUsage): number {
  return Math.max(0, usage.promptTokens - (usage.cachedTokens ?? 0) - (usage.cacheWriteTokens ?? 0));
}

/** One scripted reply of the mock LLM server, independent of the wire protocol it is played in. */
export type MockLlmReply =
  | {
      kind: "message";
      text?: string;
      toolCalls?: MockToolCall[];
      /** Reported token usage; estimated from the text sizes (4 characters a token) when absent. */
      usage?: MockUsage;
      /** Wait before answering (a fixed latency, for benchmarks). */
      delayMs?: number;
      /** Wait between streamed chunks. */
      chunkDelayMs?: number;
    }
  | {
      kind: "error";
      status: number;
      message?: string;
      /** Replaces the protocol's error JSON with this exact text. */
      body?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  /** Accept the request and never answer (until the server closes): for client timeouts. */
  | { kind: "hang" }
  /** Destroy the connection without an answer: for connection resets. */
  | { kind: "reset"; delayMs?: number };

export type MockMessageReply = Extract<MockLlmReply, { kind: "message" }>;

type MessageExtras = Omit<MockMessageReply, "kind" | "text" | "toolCalls">;

/**
 * Builders for scripted replies.
 *
 * @example
 * [mockReply.toolCall("get_order", { order_id: "#1" }), mockReply.error(429, { retryAfterSeconds: 1 }),
 *  mockReply.text("Your order has shipped.")]
 */
export const mockReply = {
  text(text: string, extras: MessageExtras = {}): MockLlmReply {
    return { kind: "message", text, ...extras };
  },
  toolCall(
    name: string,
    args: Record<string, unknown> | string,
    extras: MessageExtras & { id?: string; text?: string } = {},
  ): MockLlmReply {
    const { id, ...rest } = extras;
    return mockReply.toolCalls([{ name, arguments: args, ...(id !== undefined ? { id } : {}) }], rest);
  },
  toolCalls(toolCalls: MockToolCall[], extras: MessageExtras & { text?: string } = {}): MockLlmReply {
    return { kind: "message", toolCalls, ...extras };
  },
  error(
    status: number,
    options: {
      message?: string;
      body?: string;
      retryAfterSeconds?: number;
      headers?: Record<string, string>;
      delayMs?: number;
    } = {},
  ): MockLlmReply {
    const { retryAfterSeconds, headers, ...rest } = options;
    return {
      kind: "error",
      status,
      ...rest,
      headers: {
        ...headers,
        ...(retryAfterSeconds !== undefined ? { "retry-after": String(retryAfterSeconds) } : {}),
      },
    };
  },
  hang(): MockLlmReply {
    return { kind: "hang" };
  },
  reset(options: { delayMs?: number } = {}): MockLlmReply {
    return { kind: "reset", ...options };
  },
};

/** Arguments as the wire carries them: JSON text, kept verbatim when scripted as a string. */
export function argumentsText(call: MockToolCall): string {
  // Floats a task wrote as `2.0` go out as `2.0`, as a model writing them would send them.
  return typeof call.arguments === "string" ? call.arguments : stringifyKeepingPyFloats(call.arguments);
}

/** Cuts text into pieces for streaming. */
export function chunks(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
