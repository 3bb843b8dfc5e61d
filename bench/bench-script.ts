import { builtinDomains } from "../src/domains/registry.js";
import { buildParticipants, type Participants, type ParticipantsSpec } from "../src/runner/build.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
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

/**
 * The benchmarks' participants: passk's own prompts on the mock domain, the agent and the customer
 * answered by the mock model at `baseUrl` (their model names end with `suffix`, e.g. "-warmup").
 */
export function benchParticipants(
  baseUrl: string,
  settings: Pick<ParticipantsSpec, "env" | "maxAttempts" | "timeoutSeconds"> & { suffix?: string } = {},
): Participants {
  const { suffix = "", ...calls } = settings;
  return buildParticipants({
    agent: { model: `openai-compatible:bench-agent${suffix}`, baseUrl },
    user: { model: `openai-compatible:bench-user${suffix}`, baseUrl },
    protocol: "passk",
    dataDir: tau2DataDir(),
    domains: [builtinDomains.get("mock")!],
    env: { OPENAI_COMPATIBLE_API_KEY: "bench" },
    ...calls,
  });
}
