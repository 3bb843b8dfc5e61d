/**
 * A mock OpenAI-compatible model in its own process, so the benchmark measures the harness's CPU
 * alone. Every reply waits LATENCY_MS. The customer talks for TURNS turns, then says ###STOP###; the
 * agent answers every turn (with a tool call every other turn, so tools run too).
 * Prints its base URL on stdout, then serves until killed.
 */
import { isUserSimulatorRequest, mockReply, startMockLlmServer } from "../src/testing/index.js";

const latencyMs = Number(process.argv[2] ?? 500);
const turns = Number(process.argv[3] ?? 5);

const server = await startMockLlmServer({
  delayMs: latencyMs,
  script: (request) => {
    const userTurns = request.messages.filter(
      (m) => m.role === (isUserSimulatorRequest(request) ? "assistant" : "user"),
    ).length;
    if (isUserSimulatorRequest(request))
      return mockReply.text(userTurns >= turns ? "Thanks! ###STOP###" : "Can you check my tasks?");
    const last = request.messages.at(-1);
    if (last?.role === "user" && userTurns % 2 === 1) return mockReply.toolCall("get_users", {});
    return mockReply.text("Here is what I found.");
  },
});
process.stdout.write(`${server.baseUrl}\n`);
