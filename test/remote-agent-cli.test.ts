import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2A_MCP_METADATA_KEY, A2A_START_METADATA_KEY } from "../src/agents/remote/protocol.js";
import { goldScript, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import {
  domainData,
  goldTasks,
  startAgentProcess,
  startRecordingProxy,
  type AgentProcess,
  type RecordingProxy,
} from "./helpers/remote-agents.js";
import { playConversation } from "./helpers/playground.js";
import { runCli } from "./helpers/run-cli.js";

// The built CLI drives the Python example agent (in its own process) through a recording proxy, so the
// test sees exactly what passk sent the agent — the MCP tokens included — and can look for them in
// everything passk wrote. Runs under the τ² protocol (the reference's texts), as `passk run` does.
const dir = mkdtempSync(path.join(tmpdir(), "passk-remote-agent-"));
let mock: MockLlmServer;
let agentProcess: AgentProcess;
let proxy: RecordingProxy;
beforeAll(async () => {
  mock = await startMockLlmServer({ script: [] });
  agentProcess = await startAgentProcess("python3", ["examples/agents/python-a2a/agent.py", "--port", "0"], {
    OPENAI_BASE_URL: mock.baseUrl,
    OPENAI_API_KEY: "sk-example-agent-key",
  });
  proxy = await startRecordingProxy(agentProcess.url);
});
afterAll(async () => {
  await proxy?.close();
  await agentProcess?.close();
  await mock?.close();
});

const env = () => ({ PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-user" });
const userFlags = () => ["--user-llm", "openai-compatible:mock-user", "--user-llm-base-url", mock.baseUrl];

/** The MCP tokens passk handed out, read from what the agent received (A2A metadata or HTTP bodies). */
function tokensSent(): string[] {
  return proxy.bodies.flatMap((text) => {
    if (!text) return [];
    const body = JSON.parse(text) as {
      mcp?: { token: string };
      params?: { message?: { metadata?: Record<string, { token?: string }> } };
    };
    const token = body.mcp?.token ?? body.params?.message?.metadata?.[A2A_MCP_METADATA_KEY]?.token;
    return token ? [token] : [];
  });
}

describe("passk run / simulate with a remote agent (--agent-llm a2a:URL, http:URL)", () => {
  it("passk run grades the agent over A2A, names it in the results, and never writes its MCP token", async () => {
    const task = domainData("airline").task("1");
    mock.setScript(goldScript(task));
    const saveTo = path.join(dir, "a2a.json");
    const store = path.join(dir, "passk.db");
    const run = await runCli(
      [
        "run",
        "--domain",
        "airline",
        "--task-ids",
        "1",
        "--num-trials",
        "1",
        "--agent-llm",
        `a2a:${proxy.url}`,
        ...userFlags(),
        "--save-to",
        saveTo,
        "--store",
        store,
      ],
      { env: env() },
    );
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(saveTo, "utf8");
    const results = JSON.parse(text) as {
      info: { agent_info: Record<string, unknown> };
      simulations: Array<{ termination_reason: string; reward_info: { reward: number } }>;
    };
    expect(results.info.agent_info).toEqual({
      implementation: "a2a_agent",
      llm: `a2a:${proxy.url}`,
      llm_args: {},
    });
    expect(results.simulations.map((s) => [s.termination_reason, s.reward_info.reward])).toEqual([
      ["user_stop", 1],
    ]);

    // What the agent received: the MCP endpoint on every message, the policy on the first.
    const sent = proxy.bodies.filter((b) => b.includes('"SendMessage"')).map((b) => JSON.parse(b));
    expect(sent.length).toBeGreaterThan(0);
    const metadata = sent[0].params.message.metadata;
    expect(Object.keys(metadata).sort()).toEqual([A2A_MCP_METADATA_KEY, A2A_START_METADATA_KEY]);
    expect(metadata[A2A_START_METADATA_KEY].policy).toBe(domainData("airline").policy);

    // The agent pays for its own model calls: its cost is "n/a", never a counted $0.0000.
    const table = run.stdout.split("\n");
    const header = table.find((line) => line.includes("agent $/sim"))!;
    const row = table[table.indexOf(header) + 2]!;
    expect(row.slice(header.indexOf("agent $/sim")).trim().split(/\s+/)).toEqual(["n/a", "n/a"]);
    expect(run.stdout).toContain(
      "agent $/sim n/a: the agent runs elsewhere and pays for its own model calls, which passk does not see",
    );
    expect(run.stdout).toContain(
      "cost: the agent's n/a (it runs elsewhere and pays for its own model calls); the customer's unknown (pass --prices FILE)",
    );
    const report = await runCli(["report", saveTo], { env: env() });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain("agent $/sim n/a: the agent runs elsewhere");
    expect(report.stdout).not.toContain("0.0000");

    const tokens = tokensSent();
    expect(tokens.length).toBeGreaterThan(0);
    const written = [text, run.stdout, run.stderr, readFileSync(store).toString("latin1")];
    for (const token of tokens) for (const output of written) expect(output).not.toContain(token);
  });

  it("passk simulate drives the agent over the HTTP protocol", async () => {
    const task = goldTasks("telecom", 1)[0]!;
    mock.setScript(goldScript(task));
    const run = await runCli(
      [
        "simulate",
        "--domain",
        "telecom",
        "--task",
        task.id,
        "--agent-llm",
        `http:${proxy.url}`,
        ...userFlags(),
        "--json",
      ],
      { env: env() },
    );
    expect(run.code, run.stderr).toBe(0);
    const simulation = JSON.parse(run.stdout) as {
      termination_reason: string;
      reward_info: { reward: number };
    };
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.reward_info.reward).toBe(1);
    for (const token of tokensSent()) expect(run.stdout + run.stderr).not.toContain(token);
  });

  it("passk serve offers the agent in the playground and runs a conversation with it, under a spend cap", async () => {
    mock.setScript(goldScript(domainData("airline").task("1")));
    const spec = `a2a:${proxy.url}`;
    // The cap counts the simulated customer's model; the remote agent pays for its own calls.
    const prices = path.join(dir, "prices.json");
    writeFileSync(
      prices,
      JSON.stringify({ models: { "openai-compatible:mock-user": { input_mtok: 1, output_mtok: 2 } } }),
    );
    const serve = await startAgentProcess(
      process.execPath,
      [
        "bin/passk.js",
        "serve",
        "--port",
        "0",
        "--agent-llm",
        spec,
        ...userFlags(),
        "--store",
        path.join(dir, "serve.db"),
        "--daily-spend-cap",
        "5",
        "--prices",
        prices,
      ],
      env(),
    );
    try {
      const base = /http:\/\/\S+/.exec(serve.url)![0];
      const stream = await playConversation(base, {
        domain: "airline",
        mode: "simulate",
        taskId: "1",
        agent: spec,
      });
      expect(stream).toContain('"conversation-end"');
      expect(stream).toMatch(/"reward":1[,}]/);
      for (const token of tokensSent()) expect(stream + serve.stderr()).not.toContain(token);
    } finally {
      await serve.close();
    }
  });

  it("a malformed spec stops before anything runs, with one sentence naming the fix", async () => {
    const run = await runCli(
      ["simulate", "--domain", "mock", "--task", "create_task_1", "--agent-llm", "a2a:agent.local"],
      {
        env: env(),
      },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/"agent\.local" is not an http\(s\) URL; write a2a:<the agent's URL>/);
  });
});
