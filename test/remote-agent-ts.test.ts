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

// The TypeScript example (AI SDK, MCP client of @modelcontextprotocol/sdk, A2A server of @a2a-js/sdk with
// streaming) in its own process, its model the mock server playing each task's gold actions.
let mock: MockLlmServer;
let agentProcess: AgentProcess;
beforeAll(async () => {
  mock = await startMockLlmServer({ script: [] });
  agentProcess = await startAgentProcess(
    process.execPath,
    ["--import", "tsx", "examples/agents/ts-ai-sdk/agent.ts", "--port", "0"],
    { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: "sk-example-agent-key", AGENT_MODEL: "mock-agent" },
  );
});
afterAll(async () => {
  await agentProcess?.close();
  await mock?.close();
});

describe("the TypeScript example agent (AI SDK, A2A with streaming, tools over MCP)", () => {
  for (const domain of ["airline", "telecom"]) {
    it(`completes ${domain} conversations with reward 1.0, its MCP calls in the trajectory in order`, async () => {
      const agent = createAgent(`a2a:${agentProcess.url}`, { env: {} });
      for (const task of goldTasks(domain, 3)) {
        mock.setScript(goldScript(task));
        const user = createUserSimulator("openai-compatible:mock-user", {
          baseUrl: mock.baseUrl,
          env: { OPENAI_COMPATIBLE_API_KEY: "sk-user" },
          guidelines: readUserGuidelines(tau2DataDir()),
        });
        const { run, reward } = await converse({ domain, task, agent, user });
        expect(run.termination_reason, `${task.id}: ${JSON.stringify(run.info)}`).toBe("user_stop");
        expect(reward, task.id).toBe(1);
        expect(agentToolCalls(run), task.id).toEqual(goldAgentActions(task));
      }
    });
  }
});
