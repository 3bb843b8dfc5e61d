import { z } from "zod";
import type { LlmMessage, LlmToolCall } from "../core/llm.js";
import { parseToolCallArguments } from "../core/llm.js";
import { retryAfterSeconds, type MockLlmCodec, type RenderContext, type SseEvent } from "./mock-llm-codec.js";
import { argumentsText, chunks, type MockUsage } from "./mock-llm-reply.js";

const TextContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);

const OpenAiMessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.enum(["system", "developer"]), content: TextContentSchema }),
  z.looseObject({ role: z.literal("user"), content: TextContentSchema }),
  z.looseObject({
    role: z.literal("assistant"),
    content: TextContentSchema.nullish(),
    tool_calls: z
      .array(
        z.looseObject({
          id: z.string(),
          function: z.looseObject({ name: z.string(), arguments: z.string() }),
        }),
      )
      .nullish(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string(), content: TextContentSchema }),
]);

const OpenAiRequestSchema = z.looseObject({
  model: z.string(),
  stream: z.boolean().nullish(),
  messages: z.array(OpenAiMessageSchema),
  tools: z
    .array(
      z.looseObject({
        type: z.literal("function"),
        function: z.looseObject({
          name: z.string(),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .nullish(),
});

export function textOf(content: z.infer<typeof TextContentSchema> | null | undefined): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text ?? "").join("");
}

/**
 * Whether a stream gets its usage in a chunk of its own, after the last choice, as OpenAI sends it when
 * asked (`stream_options.include_usage`). Servers that are not asked (Mistral's, Groq's) put it on the
 * last chunk instead, Groq's SDK reading it from `x_groq.usage`.
 */
function usageChunkRequested(body: unknown): boolean {
  const options = (body as { stream_options?: { include_usage?: unknown } } | null)?.stream_options;
  return options?.include_usage === true;
}

/** xAI streams each tool call whole, in one delta, and its SDK accepts nothing else. */
function streamsWholeToolCalls(context: RenderContext): boolean {
  return /\bai-sdk\/xai\//.test(context.route.headers["user-agent"] ?? "");
}

/**
 * OpenAI Chat Completions (`POST …/chat/completions`, under any base path: `/v1` for OpenAI, Mistral,
 * xAI, Together; `/openai/v1` for Azure and Groq; `/inference/v1` for Fireworks; `/api/v1` for OpenRouter),
 * also what OpenAI-compatible servers speak. The streamed usage follows what the request asked for, and
 * tool calls stream whole for xAI's SDK (recognised by its user-agent), as those servers send them.
 */
export const openAiCodec: MockLlmCodec = {
  protocol: "openai",
  promptCaching: "automatic",

  // OpenAI caches every long enough prefix on its own: the tools, then the messages one by one.
  promptLayout(body) {
    const request = OpenAiRequestSchema.parse(body);
    const blocks = request.messages.map((message) => JSON.stringify(message));
    if (request.tools && request.tools.length > 0) blocks.unshift(JSON.stringify(request.tools));
    return { blocks, breakpoints: [] };
  },

  parseRequest(body) {
    const request = OpenAiRequestSchema.parse(body);
    const systemParts: string[] = [];
    const messages: LlmMessage[] = [];
    const toolNames = new Map<string, string>();
    for (const message of request.messages) {
      switch (message.role) {
        case "system":
        case "developer":
          systemParts.push(textOf(message.content));
          break;
        case "user":
          messages.push({ role: "user", content: textOf(message.content) });
          break;
        case "assistant": {
          const toolCalls: LlmToolCall[] = (message.tool_calls ?? []).map((call) => {
            toolNames.set(call.id, call.function.name);
            const parsed = parseToolCallArguments(call.function.arguments);
            return {
              id: call.id,
              name: call.function.name,
              argumentsText: call.function.arguments,
              ...(parsed ? { arguments: parsed } : {}),
            };
          });
          const text = textOf(message.content);
          messages.push({
            role: "assistant",
            content: text === "" ? null : text,
            ...(toolCalls.length > 0 ? { toolCalls } : {}),
          });
          break;
        }
        case "tool":
          messages.push({
            role: "tool",
            toolCallId: message.tool_call_id,
            toolName: toolNames.get(message.tool_call_id) ?? "",
            content: textOf(message.content),
          });
          break;
      }
    }
    return {
      model: request.model,
      stream: request.stream === true,
      system: systemParts.join("\n\n"),
      messages,
      tools: (request.tools ?? []).map((tool) => ({
        name: tool.function.name,
        description: tool.function.description ?? "",
        parameters: tool.function.parameters ?? {},
      })),
    };
  },

  renderMessage(reply, { index, model, usage }) {
    const toolCalls = (reply.toolCalls ?? []).map((call, position) => ({
      id: call.id ?? `call_${index}_${position}`,
      type: "function",
      function: { name: call.name, arguments: argumentsText(call) },
    }));
    return {
      id: `chatcmpl-mock-${index}`,
      object: "chat.completion",
      created: 1_700_000_000 + index,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.text ?? null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
          logprobs: null,
        },
      ],
      usage: usageJson(usage),
    };
  },

  renderStream(reply, context) {
    const { index, model, usage, chunkSize } = context;
    const usageChunk = usageChunkRequested(context.body);
    const wholeToolCalls = streamsWholeToolCalls(context);
    const base = {
      id: `chatcmpl-mock-${index}`,
      object: "chat.completion.chunk",
      created: 1_700_000_000 + index,
      model,
    };
    const events: SseEvent[] = [];
    const push = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      events.push({
        data: JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] }),
      });
    push({ role: "assistant", content: "" });
    for (const piece of chunks(reply.text ?? "", chunkSize)) push({ content: piece });
    (reply.toolCalls ?? []).forEach((call, position) => {
      const id = call.id ?? `call_${index}_${position}`;
      if (wholeToolCalls) {
        push({
          tool_calls: [
            {
              index: position,
              id,
              type: "function",
              function: { name: call.name, arguments: argumentsText(call) },
            },
          ],
        });
        return;
      }
      push({
        tool_calls: [{ index: position, id, type: "function", function: { name: call.name, arguments: "" } }],
      });
      for (const piece of chunks(argumentsText(call), chunkSize)) {
        push({ tool_calls: [{ index: position, function: { arguments: piece } }] });
      }
    });
    const finishReason = (reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop";
    if (usageChunk) {
      push({}, finishReason);
      events.push({ data: JSON.stringify({ ...base, choices: [], usage: usageJson(usage) }) });
    } else {
      events.push({
        data: JSON.stringify({
          ...base,
          choices: [{ index: 0, delta: {}, finish_reason: finishReason }],
          usage: usageJson(usage),
          x_groq: { id: `req_mock_${index}`, usage: usageJson(usage) },
        }),
      });
    }
    events.push({ data: "[DONE]" });
    return events;
  },

  renderError(status, message) {
    const type =
      status === 429
        ? "rate_limit_exceeded"
        : status >= 500
          ? "server_error"
          : status === 401
            ? "invalid_api_key"
            : "invalid_request_error";
    return { error: { message, type, param: null, code: type } };
  },

  errorHeaders: openAiRateLimitHeaders,
};

/** OpenAI's rate-limit headers on a 429: the request budget is spent until the reset. */
export function openAiRateLimitHeaders(
  status: number,
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  if (status !== 429) return {};
  const reset = `${retryAfterSeconds(headers) ?? 1}s`;
  return {
    "x-ratelimit-limit-requests": "500",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": reset,
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "0",
    "x-ratelimit-reset-tokens": reset,
  };
}

/** Cached prompt tokens as OpenAI reports them, and as DeepSeek does (`prompt_cache_hit_tokens`). */
function usageJson(usage: MockUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens !== undefined
      ? {
          prompt_tokens_details: { cached_tokens: usage.cachedTokens },
          prompt_cache_hit_tokens: usage.cachedTokens,
          prompt_cache_miss_tokens: usage.promptTokens - usage.cachedTokens,
        }
      : {}),
  };
}
