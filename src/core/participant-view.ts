import { stringifyKeepingPyFloats } from "../python/py-float.js";
import type { LlmMessage, LlmResponse, LlmUsage } from "./llm.js";
import type { Message, ToolCall, ToolRequestor, Usage } from "./message.js";

// The agent and the simulated customer both talk to a model in the same way, each from its own side:
// its own messages are the model's ("assistant") turns, the other side's plain text is the "user"
// turn, and only its own tool results are shown. `side` is the τ² role of the one talking.

/** A τ² assistant or user message without its role. */
export interface ParticipantTurn {
  content: string | null;
  tool_calls: ToolCall[] | null;
  cost: number | null;
  usage: Usage;
  raw_data: Record<string, unknown> | null;
}

/** The message of `side` written from a model response (usage, cost and raw data kept). */
export function participantTurn(response: LlmResponse, side: ToolRequestor): ParticipantTurn {
  const toolCalls: ToolCall[] = response.toolCalls.map((call) => ({
    id: call.id,
    name: call.name,
    arguments: call.arguments ?? {},
    requestor: side,
    // Arguments that are not a JSON object are kept as written, for the error sent back to the model.
    ...(call.arguments === undefined ? { raw_arguments: call.argumentsText } : {}),
  }));
  return {
    content: response.text && response.text.trim() !== "" ? response.text : null,
    tool_calls: toolCalls.length > 0 ? toolCalls : null,
    cost: response.cost,
    usage: messageUsage(response.usage),
    raw_data: response.raw ?? null,
  };
}

/** A model call's usage as a message records it (τ²'s two keys, and the prompt-cache tokens when reported). */
function messageUsage(usage: LlmUsage): Usage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    ...(usage.cacheReadTokens ? { cache_read_tokens: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
  };
}

/**
 * The conversation as `side` sees it, as model messages. `names` remembers tool names by call id
 * across turns (tool results arrive after their calls).
 */
export function participantView(
  messages: readonly Message[],
  side: ToolRequestor,
  names = new Map<string, string>(),
): LlmMessage[] {
  const out: LlmMessage[] = [];
  for (const message of messages) {
    if (message.role === side) {
      const calls = (message.tool_calls ?? []).map((c) => {
        names.set(c.id, c.name);
        return { id: c.id, name: c.name, arguments: c.arguments, argumentsText: rawArguments(c) };
      });
      out.push({
        role: "assistant",
        content: message.content ?? null,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
    } else if (
      (message.role === "assistant" || message.role === "user") &&
      !message.tool_calls?.length &&
      message.content
    ) {
      out.push({ role: "user", content: message.content });
    } else if (message.role === "tool" && message.requestor === side) {
      out.push({
        role: "tool",
        toolCallId: message.id,
        toolName: names.get(message.id) ?? "",
        content: message.content ?? "",
        isError: message.error,
      });
    }
  }
  return out;
}

function rawArguments(call: ToolCall): string {
  const raw = (call as { raw_arguments?: unknown }).raw_arguments;
  // The model sees its own floats as it wrote them (`2.0`), not as JavaScript would print them.
  return typeof raw === "string" ? raw : stringifyKeepingPyFloats(call.arguments);
}
