import type { MockLlmCodec, SseEvent } from "./mock-llm-codec.js";
import { openAiCodec } from "./mock-llm-openai.js";
import { argumentsText, chunks, type MockUsage } from "./mock-llm-reply.js";

function usageJson(usage: MockUsage) {
  const tokens = { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens };
  return {
    billed_units: tokens,
    tokens,
    ...(usage.cachedTokens !== undefined ? { cached_tokens: usage.cachedTokens } : {}),
  };
}

/**
 * Cohere's v2 chat (`POST …/v2/chat`). Its requests are Chat Completions-shaped (system, user, assistant
 * with `tool_calls`, tool messages) and read as such; its replies are its own: a `message` with content
 * parts and `tool_calls`, `finish_reason` `COMPLETE` or `TOOL_CALL`, `usage.tokens` and `billed_units`,
 * and streams of typed events (`message-start`, `content-delta`, `tool-call-start`…, `message-end`).
 */
export const cohereCodec: MockLlmCodec = {
  protocol: "cohere",

  parseRequest(body, route) {
    return openAiCodec.parseRequest(body, route);
  },

  renderMessage(reply, { index, usage }) {
    const toolCalls = (reply.toolCalls ?? []).map((call, position) => ({
      id: call.id ?? `cohere_call_${index}_${position}`,
      type: "function",
      function: { name: call.name, arguments: argumentsText(call) },
    }));
    return {
      id: `cohere-mock-${index}`,
      message: {
        role: "assistant",
        ...(reply.text !== undefined && reply.text !== ""
          ? { content: [{ type: "text", text: reply.text }] }
          : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      finish_reason: toolCalls.length > 0 ? "TOOL_CALL" : "COMPLETE",
      usage: usageJson(usage),
    };
  },

  renderStream(reply, { index, usage, chunkSize }) {
    const events: SseEvent[] = [];
    const push = (data: { type: string } & Record<string, unknown>) =>
      events.push({ event: data.type, data: JSON.stringify(data) });
    push({ type: "message-start", id: `cohere-mock-${index}`, delta: { message: { role: "assistant" } } });
    if (reply.text !== undefined && reply.text !== "") {
      push({ type: "content-start", index: 0, delta: { message: { content: { type: "text", text: "" } } } });
      for (const piece of chunks(reply.text, chunkSize)) {
        push({ type: "content-delta", index: 0, delta: { message: { content: { text: piece } } } });
      }
      push({ type: "content-end", index: 0 });
    }
    (reply.toolCalls ?? []).forEach((call, position) => {
      push({
        type: "tool-call-start",
        index: position,
        delta: {
          message: {
            tool_calls: {
              id: call.id ?? `cohere_call_${index}_${position}`,
              type: "function",
              function: { name: call.name, arguments: "" },
            },
          },
        },
      });
      for (const piece of chunks(argumentsText(call), chunkSize)) {
        push({
          type: "tool-call-delta",
          index: position,
          delta: { message: { tool_calls: { function: { arguments: piece } } } },
        });
      }
      push({ type: "tool-call-end", index: position });
    });
    push({
      type: "message-end",
      delta: {
        finish_reason: (reply.toolCalls ?? []).length > 0 ? "TOOL_CALL" : "COMPLETE",
        usage: usageJson(usage),
      },
    });
    return events;
  },

  renderError(_status, message) {
    return { id: "00000000-0000-4000-8000-000000000000", message };
  },
};
