import { z } from "zod";
import type { LlmMessage, LlmToolCall } from "../core/llm.js";
import { parseToolCallArguments } from "../core/llm.js";
import {
  requestAssistantTurn,
  requestToolCall,
  retryAfterSeconds,
  type MockCacheBreakpoint,
  type MockLlmCodec,
  type MockPromptLayout,
  type SseEvent,
} from "./mock-llm-codec.js";
import { argumentsText, chunks, uncachedPromptTokens, type MockUsage } from "./mock-llm-reply.js";

const TextBlocksSchema = z.array(z.looseObject({ type: z.string(), text: z.string().optional() }));

const ContentBlockSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
  z.looseObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), TextBlocksSchema]).optional(),
    is_error: z.boolean().optional(),
  }),
]);

const AnthropicRequestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number(),
  stream: z.boolean().nullish(),
  system: z.union([z.string(), TextBlocksSchema]).optional(),
  messages: z.array(
    z.looseObject({
      role: z.enum(["user", "assistant"]),
      content: z.union([z.string(), z.array(ContentBlockSchema)]),
    }),
  ),
  tools: z
    .array(
      z.looseObject({
        name: z.string(),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()),
      }),
    )
    .optional(),
});

function textOf(content: string | z.infer<typeof TextBlocksSchema> | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((block) => block.text ?? "").join("");
}

/**
 * Anthropic Messages (`POST /v1/messages`). A scripted tool call whose arguments are not a JSON object is
 * sent as a JSON string `input` (the real API always sends an object; this is the nearest malformed case).
 */
export const anthropicCodec: MockLlmCodec = {
  protocol: "anthropic",
  promptCaching: "explicit",

  // Anthropic caches tools, then system, then messages; a `cache_control` on a block caches the prompt
  // up to and including it.
  promptLayout(body) {
    const request = AnthropicRequestSchema.parse(body);
    const layout: MockPromptLayout = { blocks: [], breakpoints: [] };
    const add = (block: Record<string, unknown>, at: MockCacheBreakpoint["at"], index: number) => {
      const { cache_control: marker, ...rest } = block;
      layout.blocks.push(JSON.stringify(rest));
      if (typeof marker === "object" && marker !== null) {
        layout.breakpoints.push({
          at,
          index,
          marker: marker as Record<string, unknown>,
          block: layout.blocks.length - 1,
        });
      }
    };
    (request.tools ?? []).forEach((tool, index) => add(tool, "tools", index));
    if (typeof request.system === "string") layout.blocks.push(JSON.stringify(request.system));
    else (request.system ?? []).forEach((block, index) => add(block, "system", index));
    request.messages.forEach((message, index) => {
      if (typeof message.content === "string") {
        layout.blocks.push(JSON.stringify({ role: message.role, content: message.content }));
        return;
      }
      for (const block of message.content) add({ role: message.role, ...block }, "messages", index);
    });
    return layout;
  },

  parseRequest(body) {
    const request = AnthropicRequestSchema.parse(body);
    const messages: LlmMessage[] = [];
    const toolNames = new Map<string, string>();
    for (const message of request.messages) {
      const blocks =
        typeof message.content === "string"
          ? [{ type: "text" as const, text: message.content }]
          : message.content;
      if (message.role === "assistant") {
        const texts: string[] = [];
        const toolCalls: LlmToolCall[] = [];
        for (const block of blocks) {
          if (block.type === "text") texts.push(block.text);
          if (block.type === "tool_use") {
            toolNames.set(block.id, block.name);
            toolCalls.push(requestToolCall(block.id, block.name, block.input));
          }
        }
        messages.push(requestAssistantTurn(texts, toolCalls));
        continue;
      }
      const texts: string[] = [];
      for (const block of blocks) {
        if (block.type === "text") texts.push(block.text);
        if (block.type === "tool_result") {
          messages.push({
            role: "tool",
            toolCallId: block.tool_use_id,
            toolName: toolNames.get(block.tool_use_id) ?? "",
            content: textOf(block.content),
            ...(block.is_error ? { isError: true } : {}),
          });
        }
      }
      if (texts.length > 0) messages.push({ role: "user", content: texts.join("") });
    }
    return {
      model: request.model,
      stream: request.stream === true,
      system: textOf(request.system),
      messages,
      tools: (request.tools ?? []).map((tool) => ({
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.input_schema,
      })),
    };
  },

  renderMessage(reply, { index, model, usage }) {
    const content: unknown[] = [];
    if (reply.text !== undefined && reply.text !== "") content.push({ type: "text", text: reply.text });
    (reply.toolCalls ?? []).forEach((call, position) => {
      const text = argumentsText(call);
      content.push({
        type: "tool_use",
        id: call.id ?? `toolu_mock_${index}_${position}`,
        name: call.name,
        input: parseToolCallArguments(text) ?? text,
      });
    });
    return {
      id: `msg_mock_${index}`,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { ...inputUsage(usage), output_tokens: usage.completionTokens },
    };
  },

  renderStream(reply, { index, model, usage, chunkSize }) {
    const events: SseEvent[] = [];
    const push = (data: { type: string } & Record<string, unknown>) =>
      events.push({ event: data.type, data: JSON.stringify(data) });
    push({
      type: "message_start",
      message: {
        id: `msg_mock_${index}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage(usage), output_tokens: 0 },
      },
    });
    let block = 0;
    if (reply.text !== undefined && reply.text !== "") {
      push({ type: "content_block_start", index: block, content_block: { type: "text", text: "" } });
      for (const piece of chunks(reply.text, chunkSize)) {
        push({ type: "content_block_delta", index: block, delta: { type: "text_delta", text: piece } });
      }
      push({ type: "content_block_stop", index: block });
      block++;
    }
    (reply.toolCalls ?? []).forEach((call, position) => {
      push({
        type: "content_block_start",
        index: block,
        content_block: {
          type: "tool_use",
          id: call.id ?? `toolu_mock_${index}_${position}`,
          name: call.name,
          input: {},
        },
      });
      for (const piece of chunks(argumentsText(call), chunkSize)) {
        push({
          type: "content_block_delta",
          index: block,
          delta: { type: "input_json_delta", partial_json: piece },
        });
      }
      push({ type: "content_block_stop", index: block });
      block++;
    });
    push({
      type: "message_delta",
      delta: {
        stop_reason: (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn",
        stop_sequence: null,
      },
      usage: { output_tokens: usage.completionTokens },
    });
    push({ type: "message_stop" });
    return events;
  },

  renderError(status, message) {
    const type =
      status === 429
        ? "rate_limit_error"
        : status === 529
          ? "overloaded_error"
          : status >= 500
            ? "api_error"
            : status === 401
              ? "authentication_error"
              : "invalid_request_error";
    return { type: "error", error: { type, message } };
  },

  errorHeaders(status, headers): Record<string, string> {
    if (status !== 429) return {};
    const reset = new Date(Date.now() + (retryAfterSeconds(headers) ?? 1) * 1000).toISOString();
    return {
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "0",
      "anthropic-ratelimit-requests-reset": reset,
    };
  },
};

/** Anthropic counts cached prompt tokens apart from `input_tokens`. */
function inputUsage(usage: MockUsage) {
  return {
    input_tokens: uncachedPromptTokens(usage),
    ...(usage.cachedTokens !== undefined ? { cache_read_input_tokens: usage.cachedTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cache_creation_input_tokens: usage.cacheWriteTokens } : {}),
  };
}
