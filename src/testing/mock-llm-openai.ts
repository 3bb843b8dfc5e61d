import { z } from "zod";
import type { LlmMessage, LlmToolCall } from "../core/llm.js";
import { parseToolCallArguments } from "../core/llm.js";
import type { MockLlmCodec, SseEvent } from "./mock-llm-codec.js";
import { argumentsText, chunks } from "./mock-llm-reply.js";

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

function textOf(content: z.infer<typeof TextContentSchema> | null | undefined): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text ?? "").join("");
}

/** OpenAI Chat Completions (`POST /v1/chat/completions`), also what OpenAI-compatible servers speak. */
export const openAiCodec: MockLlmCodec = {
  protocol: "openai",

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

  renderStream(reply, { index, model, usage, chunkSize }) {
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
      push({
        tool_calls: [
          {
            index: position,
            id: call.id ?? `call_${index}_${position}`,
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      });
      for (const piece of chunks(argumentsText(call), chunkSize)) {
        push({ tool_calls: [{ index: position, function: { arguments: piece } }] });
      }
    });
    push({}, (reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop");
    events.push({ data: JSON.stringify({ ...base, choices: [], usage: usageJson(usage) }) });
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
};

function usageJson(usage: { promptTokens: number; completionTokens: number }) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}
