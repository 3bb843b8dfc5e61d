import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import {
  goldAgentActions,
  goldScriptByTask,
  goldTasks,
  startAgentProcess,
  startRecordingProxy,
  type AgentProcess,
  type RecordingProxy,
} from "./helpers/remote-agents.js";
import { REPO_ROOT, runCli } from "./helpers/run-cli.js";

// The Go example agent (standard library only, written from the README's "A2A, step by step") in its
// own process, driven by the built CLI over A2A through a recording proxy: its model is the mock server
// playing each task's gold path, its tools are passk's MCP endpoints. Needs the Go toolchain (`go`).
const dir = mkdtempSync(path.join(tmpdir(), "passk-go-agent-"));
const tasks = goldTasks("airline", 3);
let mock: MockLlmServer;
let agentProcess: AgentProcess;
let proxy: RecordingProxy;
beforeAll(async () => {
  const binary = path.join(dir, "go-a2a");
  const build = spawnSync("go", ["build", "-o", binary, "."], {
    cwd: path.join(REPO_ROOT, "examples", "agents", "go-a2a"),
    encoding: "utf8",
    env: { ...process.env, GOCACHE: path.join(dir, "go-cache") },
  });
  if (build.error || build.status !== 0)
    throw new Error(
      `go build failed (is the Go toolchain installed?): ${build.error?.message ?? build.stderr}`,
    );
  mock = await startMockLlmServer({ script: goldScriptByTask(tasks) });
  agentProcess = await startAgentProcess(binary, ["-port", "0"], {
    OPENAI_BASE_URL: mock.baseUrl,
    OPENAI_API_KEY: "sk-go-agent-key",
    AGENT_MODEL: "mock-agent",
  });
  proxy = await startRecordingProxy(agentProcess.url);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await agentProcess?.close();
  await mock?.close();
});

describe("the Go example agent (A2A, tools over MCP), from the README alone", () => {
  it("passk run reaches reward 1.0 on airline tasks, reads the card once, and ends each context", async () => {
    expect(tasks.map((t) => t.id)).toHaveLength(3);
    const saveTo = path.join(dir, "go.json");
    const run = await runCli(
      [
        "run",
        "--domain",
        "airline",
        "--task-ids",
        ...tasks.map((t) => t.id),
        "--agent-llm",
        `a2a:${proxy.url}`,
        "--user-llm",
        "openai-compatible:mock-user",
        "--user-llm-base-url",
        mock.baseUrl,
        "--save-to",
        saveTo,
        "--store",
        path.join(dir, "passk.db"),
        "--progress",
        "none",
      ],
      { env: { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-user" } },
    );
    expect(run.code, `${run.stderr}\n${agentProcess.stderr()}`).toBe(0);
    const results = JSON.parse(readFileSync(saveTo, "utf8")) as {
      simulations: Array<{
        task_id: string;
        termination_reason: string;
        reward_info: { reward: number };
        messages: Array<{ role: string; tool_calls?: Array<{ name: string; arguments: unknown }> | null }>;
      }>;
    };
    const byTask = new Map(results.simulations.map((s) => [s.task_id, s]));
    for (const task of tasks) {
      const simulation = byTask.get(task.id)!;
      expect(simulation.termination_reason, task.id).toBe("user_stop");
      expect(simulation.reward_info.reward, task.id).toBe(1);
      // Every call the agent made over MCP is in the trajectory, in the gold order.
      const calls = simulation.messages
        .filter((m) => m.role === "assistant")
        .flatMap((m) => m.tool_calls ?? [])
        .map(({ name, arguments: args }) => ({ name, arguments: args }));
      expect(calls, task.id).toEqual(goldAgentActions(task));
    }

    // The card once per run; per conversation, a first message without a context and a last one
    // marked passk/end in the context the agent named.
    expect(proxy.requests.filter((r) => r.startsWith("GET "))).toEqual(["GET /.well-known/agent-card.json"]);
    const messages = proxy.bodies
      .filter((b) => b.includes('"SendMessage"'))
      .map(
        (b) =>
          (
            JSON.parse(b) as {
              params: { message: { contextId?: string; metadata: Record<string, unknown> } };
            }
          ).params.message,
      );
    expect(messages.filter((m) => m.contextId === undefined)).toHaveLength(tasks.length);
    const ends = messages.filter((m) => "passk/end" in m.metadata);
    expect(ends).toHaveLength(tasks.length);
    expect(new Set(ends.map((m) => m.contextId)).size).toBe(tasks.length);
  });
});
