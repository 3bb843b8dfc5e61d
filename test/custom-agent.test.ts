import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mockReply, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";

let server: MockLlmServer;
beforeAll(async () => {
  // The simulated customer: asks for the task, then ends the call once the agent has answered.
  server = await startMockLlmServer({
    script: (request) =>
      request.messages.length <= 1
        ? mockReply.text("Please create a task called 'Important Meeting' for user_1.")
        : mockReply.text("Great, thanks! ###STOP###"),
  });
});
afterAll(() => server.close());

describe("bring your own agent (--agent-llm module:<path>)", () => {
  it("a team's Agent implementation runs through simulate and is graded", async () => {
    const run = await runCli(
      [
        "simulate",
        "--domain",
        "mock",
        "--task",
        "create_task_1",
        "--agent-llm",
        "module:./examples/custom-agent.ts",
        "--user-llm",
        "openai-compatible:customer",
        "--user-llm-base-url",
        server.baseUrl,
        "--json",
      ],
      { env: { PASSK_DATA_DIR: tau2DataDir() } },
    );
    expect(run.stderr).toBe("");
    const simulation = JSON.parse(run.stdout);
    expect(simulation.termination_reason).toBe("user_stop");
    const call = simulation.messages.find((m: { tool_calls?: unknown[] }) => m.tool_calls?.length);
    expect(call.tool_calls[0]).toMatchObject({
      name: "create_task",
      arguments: { user_id: "user_1", title: "Important Meeting" },
    });
    expect(simulation.reward_info.reward).toBe(1);
  });

  it("a module that exports no agent is a clear error", async () => {
    const run = await runCli(
      [
        "simulate",
        "--domain",
        "mock",
        "--task",
        "create_task_1",
        "--agent-llm",
        "module:./examples/library/tools.ts",
      ],
      {
        env: { PASSK_DATA_DIR: tau2DataDir() },
      },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/must export one Agent/);
  });
});
