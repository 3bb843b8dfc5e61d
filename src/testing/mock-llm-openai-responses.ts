import { z } from "zod";
import type { LlmMessage, LlmToolCall } from "../core/llm.js";
import { parseToolCallArguments } from "../core/llm.js";
import type { MockLlmCodec, SseEvent } from "./mock-llm-codec.js";
import { openAiCodec, openAiRateLimitHeaders } from "./mock-llm-openai.js";
import { argumentsText, chunks, type MockMessageReply, type MockUsage } from "./mock-llm-reply.js";

const TextContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);

/** One input item: a role message, or a typed item (`function_call`, `function_call_output`, …). */
const InputItemSchema = z.looseObject({
  type: z.string().optional(),
  role: z.enum(["system", "developer", "user", "assistant"]).optional(),
  content: TextContentSchema.optional(),
  call_id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
  output: TextContentSchema.optional(),
});

const ResponsesRequestSchema = z.looseObject({
  model: z.string(),
  stream: z.boolean().nullish(),
  instructions: z.string().nullish(),
  input: z.union([z.string(), z.array(InputItemSchema)]),
  tools: z
    .array(
      z.looseObject({
        type: z.string(),
        name: z.string().optional(),
        description: z.string().nullish(),
        parameters: z.record(z.string(), z.unknown()).nullish(),
      }),
    )
    .nullish(),
});

function textOf(content: z.infer<typeof TextContentSchema>): string {
  return typeof content === "string" ? content : content.map((part) => part.text ?? "").join("");
}

function usageJson(usage: MockUsage) {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** The output items of a reply: a message with the text, then one function call per tool call. */
function outputItems(reply: MockMessageReply, index: number) {
  const items: Record<string, unknown>[] = [];
  if (reply.text !== undefined && reply.text !== "") {
    items.push({
      type: "message",
      id: `msg_mock_${index}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  (reply.toolCalls ?? []).forEach((call, position) =>
    items.push({
      type: "function_call",
      id: `fc_mock_${index}_${position}`,
      call_id: call.id ?? `call_${index}_${position}`,
      name: call.name,
      arguments: argumentsText(call),
      status: "completed",
    }),
  );
  return items;
}

/**
 * OpenAI's Responses API (`POST /v1/responses`): input items (role messages, `function_call`,
 * `function_call_output`) in, output items (`message`, `function_call`) and `usage` out; a stream is typed
 * events (`response.created`, `response.output_item.added`, `response.output_text.delta`,
 * `response.function_call_arguments.delta`, `response.output_item.done`, `response.completed`).
 */
export const openAiResponsesCodec: MockLlmCodec = {
  protocol: "openai-responses",

  parseRequest(body) {
    const request = ResponsesRequestSchema.parse(body);
    const systemParts: string[] = request.instructions ? [request.instructions] : [];
    const messages: LlmMessage[] = [];
    const toolNames = new Map<string, string>();
    const items =
      typeof request.input === "string" ? [{ role: "user" as const, content: request.input }] : request.input;
    for (const item of items) {
      if (item.role !== undefined) {
        const text = textOf(item.content ?? "");
        if (item.role === "system" || item.role === "developer") systemParts.push(text);
        else if (item.role === "user") messages.push({ role: "user", content: text });
        else messages.push({ role: "assistant", content: text === "" ? null : text });
      } else if (item.type === "function_call" && item.call_id !== undefined) {
        const name = item.name ?? "";
        const argumentsText = item.arguments ?? "";
        toolNames.set(item.call_id, name);
        const parsed = parseToolCallArguments(argumentsText);
        const call: LlmToolCall = {
          id: item.call_id,
          name,
          argumentsText,
          ...(parsed ? { arguments: parsed } : {}),
        };
        // Calls right after an assistant text (or another call) belong to that assistant turn.
        const previous = messages[messages.length - 1];
        if (previous?.role === "assistant") previous.toolCalls = [...(previous.toolCalls ?? []), call];
        else messages.push({ role: "assistant", content: null, toolCalls: [call] });
      } else if (item.type === "function_call_output" && item.call_id !== undefined) {
        messages.push({
          role: "tool",
          toolCallId: item.call_id,
          toolName: toolNames.get(item.call_id) ?? "",
          content: textOf(item.output ?? ""),
        });
      }
    }
    return {
      model: request.model,
      stream: request.stream === true,
      system: systemParts.join("\n\n"),
      messages,
      tools: (request.tools ?? [])
        .filter((tool) => tool.type === "function" && tool.name !== undefined)
        .map((tool) => ({
          name: tool.name ?? "",
          description: tool.description ?? "",
          parameters: tool.parameters ?? {},
        })),
    };
  },

  renderMessage(reply, { index, model, usage }) {
    return {
      id: `resp_mock_${index}`,
      object: "response",
      created_at: 1_700_000_000 + index,
      model,
      status: "completed",
      error: null,
      incomplete_details: null,
      output: outputItems(reply, index),
      usage: usageJson(usage),
    };
  },

  renderStream(reply, { index, model, usage, chunkSize }) {
    const events: SseEvent[] = [];
    let sequence = 0;
    const push = (data: { type: string } & Record<string, unknown>) =>
      events.push({ event: data.type, data: JSON.stringify({ ...data, sequence_number: sequence++ }) });
    const response = {
      id: `resp_mock_${index}`,
      object: "response",
      created_at: 1_700_000_000 + index,
      model,
    };
    push({ type: "response.created", response: { ...response, status: "in_progress", output: [] } });
    const items = outputItems(reply, index);
    items.forEach((item, outputIndex) => {
      if (item.type === "message") {
        push({
          type: "response.output_item.added",
          output_index: outputIndex,
          item: { ...item, status: "in_progress", content: [] },
        });
        for (const piece of chunks(reply.text ?? "", chunkSize)) {
          push({
            type: "response.output_text.delta",
            item_id: item.id,
            output_index: outputIndex,
            content_index: 0,
            delta: piece,
          });
        }
      } else {
        push({
          type: "response.output_item.added",
          output_index: outputIndex,
          item: { ...item, arguments: "", status: "in_progress" },
        });
        for (const piece of chunks(String(item.arguments), chunkSize)) {
          push({
            type: "response.function_call_arguments.delta",
            item_id: item.id,
            output_index: outputIndex,
            delta: piece,
          });
        }
        push({
          type: "response.function_call_arguments.done",
          item_id: item.id,
          output_index: outputIndex,
          arguments: item.arguments,
        });
      }
      push({ type: "response.output_item.done", output_index: outputIndex, item });
    });
    push({
      type: "response.completed",
      response: { ...response, status: "completed", output: items, usage: usageJson(usage) },
    });
    return events;
  },

  renderError(status, message) {
    return openAiCodec.renderError(status, message);
  },

  errorHeaders: openAiRateLimitHeaders,
};
