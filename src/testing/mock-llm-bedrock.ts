import { crc32 } from "node:zlib";
import { z } from "zod";
import type { LlmMessage, LlmToolCall } from "../core/llm.js";
import { parseToolCallArguments } from "../core/llm.js";
import {
  requestAssistantTurn,
  requestToolCall,
  type MockCacheBreakpoint,
  type MockLlmCodec,
  type MockPromptLayout,
  type SseEvent,
} from "./mock-llm-codec.js";
import { argumentsText, chunks, uncachedPromptTokens, type MockUsage } from "./mock-llm-reply.js";

const TextBlocksSchema = z.array(z.looseObject({ text: z.string().optional() }));

const ContentBlockSchema = z.looseObject({
  text: z.string().optional(),
  toolUse: z.looseObject({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).optional(),
  toolResult: z
    .looseObject({
      toolUseId: z.string(),
      content: TextBlocksSchema.optional(),
      status: z.string().optional(),
    })
    .optional(),
});

const BedrockRequestSchema = z.looseObject({
  system: TextBlocksSchema.optional(),
  messages: z.array(
    z.looseObject({ role: z.enum(["user", "assistant"]), content: z.array(ContentBlockSchema) }),
  ),
  toolConfig: z
    .looseObject({
      tools: z
        .array(
          z.looseObject({
            toolSpec: z
              .looseObject({
                name: z.string(),
                description: z.string().optional(),
                inputSchema: z.looseObject({ json: z.record(z.string(), z.unknown()).optional() }).optional(),
              })
              .optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});

function textOf(blocks: z.infer<typeof TextBlocksSchema> | undefined): string {
  return (blocks ?? []).map((block) => block.text ?? "").join("");
}

/** Bedrock's usage: `inputTokens` leaves out what was read from or written to the cache. */
function usageJson(usage: MockUsage) {
  return {
    inputTokens: uncachedPromptTokens(usage),
    outputTokens: usage.completionTokens,
    totalTokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens !== undefined ? { cacheReadInputTokens: usage.cachedTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cacheWriteInputTokens: usage.cacheWriteTokens } : {}),
  };
}

/** The AWS exception name for a status, as Bedrock's `x-amzn-errortype` header carries it. */
function bedrockErrorType(status: number): string {
  switch (status) {
    case 400:
      return "ValidationException";
    case 401:
      return "UnrecognizedClientException";
    case 403:
      return "AccessDeniedException";
    case 404:
      return "ResourceNotFoundException";
    case 408:
      return "ModelTimeoutException";
    case 429:
      return "ThrottlingException";
    case 503:
      return "ServiceUnavailableException";
    default:
      return status >= 500 ? "InternalServerException" : "ValidationException";
  }
}

/**
 * Amazon Bedrock's Converse API (`POST …/model/{modelId}/converse`, and `/converse-stream`). The model
 * (URL-encoded in the path) and the streaming choice come from the path. A stream is AWS's binary event
 * stream (see {@link encodeAwsEventStreamMessage}): `messageStart`, `contentBlockStart`/`Delta`/`Stop`,
 * `messageStop`, `metadata` with the usage. Tool calls whose scripted arguments are not a JSON object are
 * sent as a JSON string `input` (the real API always sends an object).
 */
export const bedrockCodec: MockLlmCodec = {
  protocol: "bedrock",
  streamFraming: "aws-event-stream",
  promptCaching: "explicit",

  // Bedrock caches tools, then system, then messages; a `cachePoint` block caches what comes before it.
  promptLayout(body) {
    const request = BedrockRequestSchema.parse(body);
    const layout: MockPromptLayout = { blocks: [], breakpoints: [] };
    const add = (block: Record<string, unknown>, at: MockCacheBreakpoint["at"], index: number) => {
      const marker = block.cachePoint;
      if (typeof marker === "object" && marker !== null) {
        if (layout.blocks.length > 0) {
          layout.breakpoints.push({
            at,
            index,
            marker: marker as Record<string, unknown>,
            block: layout.blocks.length - 1,
          });
        }
        return;
      }
      layout.blocks.push(JSON.stringify(block));
    };
    (request.toolConfig?.tools ?? []).forEach((tool, index) => add(tool, "tools", index));
    (request.system ?? []).forEach((block, index) => add(block, "system", index));
    request.messages.forEach((message, index) => {
      for (const block of message.content) add({ role: message.role, ...block }, "messages", index);
    });
    return layout;
  },

  parseRequest(body, route) {
    const request = BedrockRequestSchema.parse(body);
    const messages: LlmMessage[] = [];
    const toolNames = new Map<string, string>();
    for (const message of request.messages) {
      if (message.role === "assistant") {
        const texts: string[] = [];
        const toolCalls: LlmToolCall[] = [];
        for (const block of message.content) {
          if (block.text !== undefined) texts.push(block.text);
          if (block.toolUse) {
            toolNames.set(block.toolUse.toolUseId, block.toolUse.name);
            const input = block.toolUse.input;
            toolCalls.push(requestToolCall(block.toolUse.toolUseId, block.toolUse.name, input));
          }
        }
        messages.push(requestAssistantTurn(texts, toolCalls));
        continue;
      }
      const texts: string[] = [];
      for (const block of message.content) {
        if (block.text !== undefined) texts.push(block.text);
        if (block.toolResult) {
          messages.push({
            role: "tool",
            toolCallId: block.toolResult.toolUseId,
            toolName: toolNames.get(block.toolResult.toolUseId) ?? "",
            content: textOf(block.toolResult.content),
            ...(block.toolResult.status === "error" ? { isError: true } : {}),
          });
        }
      }
      if (texts.length > 0) messages.push({ role: "user", content: texts.join("") });
    }
    return {
      model: route.pathModel ?? "",
      stream: route.pathStream === true,
      system: textOf(request.system),
      messages,
      tools: (request.toolConfig?.tools ?? []).flatMap((tool) =>
        tool.toolSpec
          ? [
              {
                name: tool.toolSpec.name,
                description: tool.toolSpec.description ?? "",
                parameters: tool.toolSpec.inputSchema?.json ?? {},
              },
            ]
          : [],
      ),
    };
  },

  renderMessage(reply, { index, usage }) {
    const content: unknown[] = [];
    if (reply.text !== undefined && reply.text !== "") content.push({ text: reply.text });
    (reply.toolCalls ?? []).forEach((call, position) => {
      const text = argumentsText(call);
      content.push({
        toolUse: {
          toolUseId: call.id ?? `tooluse_mock_${index}_${position}`,
          name: call.name,
          input: parseToolCallArguments(text) ?? text,
        },
      });
    });
    return {
      output: { message: { role: "assistant", content } },
      stopReason: (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn",
      usage: usageJson(usage),
      metrics: { latencyMs: 1 },
    };
  },

  renderStream(reply, { index, usage, chunkSize }) {
    const events: SseEvent[] = [];
    const push = (event: string, data: Record<string, unknown>) =>
      events.push({ event, data: JSON.stringify(data) });
    push("messageStart", { role: "assistant" });
    let block = 0;
    if (reply.text !== undefined && reply.text !== "") {
      for (const piece of chunks(reply.text, chunkSize)) {
        push("contentBlockDelta", { contentBlockIndex: block, delta: { text: piece } });
      }
      push("contentBlockStop", { contentBlockIndex: block });
      block++;
    }
    (reply.toolCalls ?? []).forEach((call, position) => {
      push("contentBlockStart", {
        contentBlockIndex: block,
        start: { toolUse: { toolUseId: call.id ?? `tooluse_mock_${index}_${position}`, name: call.name } },
      });
      for (const piece of chunks(argumentsText(call), chunkSize)) {
        push("contentBlockDelta", { contentBlockIndex: block, delta: { toolUse: { input: piece } } });
      }
      push("contentBlockStop", { contentBlockIndex: block });
      block++;
    });
    push("messageStop", { stopReason: (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn" });
    push("metadata", { usage: usageJson(usage), metrics: { latencyMs: 1 } });
    return events;
  },

  renderError(_status, message) {
    return { message };
  },

  errorHeaders(status) {
    return {
      "x-amzn-errortype": `${bedrockErrorType(status)}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      "x-amzn-requestid": "00000000-0000-4000-8000-000000000000",
    };
  },
};

/**
 * One message of AWS's binary event stream (`application/vnd.amazon.eventstream`): a prelude (total
 * length, headers length, CRC-32 of those 8 bytes), string headers (`:event-type`, `:content-type`,
 * `:message-type`), the payload, and a CRC-32 of everything before it. All integers big-endian.
 */
export function encodeAwsEventStreamMessage(eventType: string, payload: string): Buffer {
  const headers = Buffer.concat(
    [
      [":event-type", eventType],
      [":content-type", "application/json"],
      [":message-type", "event"],
    ].map(([name, value]) => {
      const nameBytes = Buffer.from(name!, "utf8");
      const valueBytes = Buffer.from(value!, "utf8");
      const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
      let at = header.writeUInt8(nameBytes.length, 0);
      at += nameBytes.copy(header, at);
      at = header.writeUInt8(7, at); // 7: a string value
      at = header.writeUInt16BE(valueBytes.length, at);
      valueBytes.copy(header, at);
      return header;
    }),
  );
  const body = Buffer.from(payload, "utf8");
  const total = 12 + headers.length + body.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headers.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headers.copy(message, 12);
  body.copy(message, 12 + headers.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}
