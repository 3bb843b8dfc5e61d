import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { goldScript, mockReply, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";

const SECRET = "sk-test-conversation-commands-0123";
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: SECRET };
const task = new DomainData(builtinDomains.get("mock")!, tau2DataDir()).task("create_task_1");
const dir = mkdtempSync(path.join(tmpdir(), "passk-conversation-"));

let server: MockLlmServer;
let refusing: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({ script: [] });
  refusing = await startMockLlmServer({ script: () => mockReply.error(401, { message: "invalid key" }) });
});
afterAll(async () => {
  await server.close();
  await refusing.close();
});

const models = (baseUrl: string, withUser = true) => [
  "--agent-llm",
  "openai-compatible:mock-agent",
  "--agent-llm-base-url",
  baseUrl,
  ...(withUser ? ["--user-llm", "openai-compatible:mock-user", "--user-llm-base-url", baseUrl] : []),
];

describe("passk simulate and passk chat over HTTP", () => {
  it("simulate prints the conversation live, tool calls and results included, then the reward breakdown", async () => {
    server.setScript(goldScript(task));
    const run = await runCli(["simulate", "--domain", "mock", "--task", task.id, ...models(server.baseUrl)], {
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("agent: Hi! How can I help you today?");
    expect(run.stdout).toContain(
      '→ agent calls create_task({"user_id":"user_1","title":"Important Meeting"})',
    );
    expect(run.stdout).toMatch(/← \{"task_id": "task_2"/);
    expect(run.stdout).toContain("── ended: user_stop");
    expect(run.stdout).toMatch(/reward: 1\.00\n\s+DB\s+1\.00/);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  it("simulate exits 3 when the conversation ends in an infrastructure error, and grades nothing", async () => {
    const failing = await startMockLlmServer({
      script: () => mockReply.error(503, { message: "overloaded" }),
    });
    try {
      const run = await runCli(
        ["simulate", "--domain", "mock", "--task", task.id, ...models(failing.baseUrl), "--max-retries", "1"],
        { env },
      );
      expect(run.code).toBe(3);
      expect(run.stdout).toContain("── ended: infrastructure_error");
      expect(run.stdout).not.toContain("reward:");
      expect(run.stderr).toMatch(
        /^error: the conversation ended in an infrastructure error \(.*503.*\), so it is not graded as the agent's; fix the cause \(see the error\) and run it again\n$/,
      );
      const json = await runCli(
        [
          "simulate",
          "--domain",
          "mock",
          "--task",
          task.id,
          ...models(failing.baseUrl),
          "--max-retries",
          "1",
          "--json",
        ],
        { env },
      );
      expect(json.code).toBe(3);
      expect((JSON.parse(json.stdout) as { termination_reason: string }).termination_reason).toBe(
        "infrastructure_error",
      );
    } finally {
      await failing.close();
    }
  });

  it("simulate --perturb: the conversation meets the perturbation, marked and recorded; a bad spec is one sentence", async () => {
    server.setScript(goldScript(task));
    const run = await runCli(
      [
        "simulate",
        "--domain",
        "mock",
        "--task",
        task.id,
        ...models(server.baseUrl),
        "--perturb",
        "tool-faults:rate=1,kinds=transient",
        "--json",
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const simulation = JSON.parse(run.stdout) as {
      info: { perturbations: string[] };
      messages: Array<{ role: string; content?: string; perturbations?: Array<{ perturbation: string }> }>;
    };
    expect(simulation.info.perturbations).toEqual(["tool-faults@1:kinds=transient,rate=1"]);
    const faulted = simulation.messages.filter((m) => m.role === "tool" && m.perturbations);
    expect(faulted.length).toBeGreaterThan(0);
    expect(faulted[0]!.perturbations![0]!.perturbation).toBe("tool-faults@1");
    expect(faulted[0]!.content).toContain("temporarily unavailable");

    const bad = await runCli(
      [
        "simulate",
        "--domain",
        "mock",
        "--task",
        task.id,
        ...models(server.baseUrl),
        "--perturb",
        "no-such-thing",
      ],
      { env },
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .*no-such-thing/);
  });

  it("chat lets a person play the customer from the terminal", async () => {
    server.setScript(goldScript(task));
    const run = await runCli(
      ["chat", "--domain", "mock", "--task", task.id, ...models(server.baseUrl, false)],
      {
        env,
        input: "Please create a task called 'Important Meeting' for user_1.\nThanks! ###STOP###\n",
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("You are the customer.");
    expect(run.stdout).toContain("→ agent calls create_task(");
    expect(run.stdout).toContain("── ended: user_stop");
    expect(run.stdout).toContain("reward: 1.00");
    // The person's messages went to the agent model; no user model was called.
    expect(JSON.stringify(server.requests.at(-1)!.messages)).toContain("Important Meeting");
  });

  it("--cache replays identical model calls without the provider", async () => {
    const cache = path.join(dir, "cache.db");
    server.setScript(goldScript(task));
    const args = ["simulate", "--domain", "mock", "--task", task.id, "--cache", cache];
    const first = await runCli([...args, ...models(server.baseUrl)], { env });
    expect(first.stdout).toContain("reward: 1.00");
    // Same models, messages and parameters: every reply comes from the cache, none from the (refusing) server.
    const again = await runCli([...args, ...models(refusing.baseUrl)], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("reward: 1.00");
    expect(refusing.requests).toHaveLength(0);
  });
});
