import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../src/agents/create-agent.js";
import { goldScript, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { createUserSimulator, readUserGuidelines } from "../src/users/create-user.js";
import {
  agentToolCalls,
  converse,
  goldAgentActions,
  goldTasks,
  startAgentProcess,
  type AgentProcess,
} from "./helpers/remote-agents.js";

// The Python example agent (standard library only) in its own process: its model is the mock server
// playing each task's gold actions, its tools are passk's MCP endpoint, and passk drives it over A2A
// and over the plain HTTP protocol.
let mock: MockLlmServer;
let agentProcess: AgentProcess;
beforeAll(async () => {
  mock = await startMockLlmServer({ script: [] });
  agentProcess = await startAgentProcess("python3", ["examples/agents/python-a2a/agent.py", "--port", "0"], {
    OPENAI_BASE_URL: mock.baseUrl,
    OPENAI_API_KEY: "sk-example-agent-key",
    AGENT_MODEL: "mock-agent",
  });
});
afterAll(async () => {
  await agentProcess?.close();
  await mock?.close();
});

function customer() {
  return createUserSimulator("openai-compatible:mock-user", {
    baseUrl: mock.baseUrl,
    env: { OPENAI_COMPATIBLE_API_KEY: "sk-user" },
    guidelines: readUserGuidelines(tau2DataDir()),
  });
}

describe("the Python example agent (A2A and HTTP, tools over MCP)", () => {
  const cases: Array<{ protocol: "a2a" | "http"; domain: string; tasks: number }> = [
    { protocol: "a2a", domain: "airline", tasks: 3 },
    { protocol: "a2a", domain: "telecom", tasks: 3 },
    { protocol: "http", domain: "airline", tasks: 2 },
    { protocol: "http", domain: "telecom", tasks: 2 },
  ];
  for (const { protocol, domain, tasks } of cases) {
    it(`completes ${domain} conversations over ${protocol} with reward 1.0, its MCP calls in the trajectory in order`, async () => {
      const agent = createAgent(`${protocol}:${agentProcess.url}`, { env: {} });
      expect(agent.model).toBe(`${protocol}:${agentProcess.url}`);
      for (const task of goldTasks(domain, tasks)) {
        mock.setScript(goldScript(task));
        const { run, reward } = await converse({ domain, task, agent, user: customer() });
        expect(run.termination_reason, `${task.id}: ${JSON.stringify(run.info)}`).toBe("user_stop");
        expect(reward, task.id).toBe(1);
        // Every call the agent made over MCP is in the trajectory, in the order the gold actions give.
        expect(agentToolCalls(run), task.id).toEqual(goldAgentActions(task));
        // Each tool message answers the call just before it.
        for (const [index, message] of run.messages.entries()) {
          const before = run.messages[index - 1];
          if (message.role === "tool" && before?.role === "assistant")
            expect(before.tool_calls?.[0]?.id).toBe(message.id);
        }
      }
      // The agent's model got the world's tool results, as MCP answers, in its own requests.
      const lastAgentRequest = mock.requests.filter((r) => r.model === "mock-agent").at(-1)!;
      expect(lastAgentRequest.messages.some((m) => m.role === "tool")).toBe(true);
    });
  }
});
