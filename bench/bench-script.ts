import {
  isUserSimulatorRequest,
  mockReply,
  type MockLlmRequest,
  type MockLlmReply,
} from "../src/testing/index.js";

/**
 * The benchmarks' scripted model. The customer talks for `turns` turns, then says ###STOP###; the agent
 * answers every turn (with a tool call every other turn, so tools run too).
 */
export function benchScript(turns: number): (request: MockLlmRequest) => MockLlmReply {
  return (request) => {
    const userTurns = request.messages.filter(
      (m) => m.role === (isUserSimulatorRequest(request) ? "assistant" : "user"),
    ).length;
    if (isUserSimulatorRequest(request))
      return mockReply.text(userTurns >= turns ? "Thanks! ###STOP###" : "Can you check my tasks?");
    const last = request.messages.at(-1);
    if (last?.role === "user" && userTurns % 2 === 1) return mockReply.toolCall("get_users", {});
    return mockReply.text("Here is what I found.");
  };
}
