import {
  isUserSimulatorRequest,
  mockReply,
  type MockLlmRequest,
  type MockLlmReply,
} from "../src/testing/index.js";

/**
 * The benchmarks' scripted model. The customer talks for `turns` turns, then says ###STOP###; the agent
 * answers every turn (with a tool call every other turn, so tools run too). Models named `…-warmup`
 * answer at once, so a benchmark can warm the JIT before it measures.
 */
export function benchScript(turns: number): (request: MockLlmRequest) => MockLlmReply {
  return (request) => {
    const now = request.model.endsWith("-warmup") ? { delayMs: 0 } : {};
    const userTurns = request.messages.filter(
      (m) => m.role === (isUserSimulatorRequest(request) ? "assistant" : "user"),
    ).length;
    if (isUserSimulatorRequest(request))
      return mockReply.text(userTurns >= turns ? "Thanks! ###STOP###" : "Can you check my tasks?", now);
    const last = request.messages.at(-1);
    if (last?.role === "user" && userTurns % 2 === 1) return mockReply.toolCall("get_users", {}, now);
    return mockReply.text("Here is what I found.", now);
  };
}

/** Model calls of a conversation: each agent or customer message that reports usage came from one. */
export function modelCalls(messages: ReadonlyArray<{ role: string; usage?: unknown }>): number {
  return messages.filter((m) => (m.role === "assistant" || m.role === "user") && m.usage).length;
}
