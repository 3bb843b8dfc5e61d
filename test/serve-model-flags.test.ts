import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { REPO_ROOT } from "./helpers/run-cli.js";

// `passk serve` takes the call settings `passk run` takes (--agent-llm-args, --user-llm-args,
// --judge-llm-base-url/-args, --timeout, --max-retries, --cache, --agent-prompt-template, --tool-spec): a playground
// conversation's model calls carry them, read on the wire at a mock provider.

const passk = path.join(REPO_ROOT, "bin", "passk.js");
const env = {
  ...process.env,
  PASSK_DATA_DIR: tau2DataDir(),
  OPENAI_COMPATIBLE_API_KEY: "sk-test-serve-flags",
};
const REWRITTEN = "Create a task (description from --tool-spec).";
const temperature = (request: MockLlmRequest) => (request.body as { temperature?: number }).temperature;

let model: MockLlmServer;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  model = await startMockLlmServer({
    script: (request) => {
      if (!isUserSimulatorRequest(request)) return mockReply.text("Done. Anything else?");
      const said = (request.body as { messages: Array<{ role: string }> }).messages;
      return mockReply.text(said.filter((m) => m.role === "user").length > 1 ? "Bye. ###STOP###" : "Hello.");
    },
  });
  const folder = mkdtempSync(path.join(tmpdir(), "passk-serve-flags-"));
  // A --tool-spec file: the mock domain's agent tools as sent, one description rewritten.
  const listed = spawnSync(process.execPath, [passk, "tools", "--domain", "mock", "--format", "openai"], {
    env,
    encoding: "utf8",
  });
  const tools = JSON.parse(listed.stdout) as Array<{ function: { name: string; description: string } }>;
  tools.find((t) => t.function.name === "create_task")!.function.description = REWRITTEN;
  const toolSpec = path.join(folder, "tools.json");
  writeFileSync(toolSpec, JSON.stringify({ agent_tools: tools, user_tools: [] }));
  child = spawn(
    process.execPath,
    [
      passk,
      "serve",
      "--port",
      "0",
      "--store",
      path.join(folder, "store.db"),
      "--agent-llm",
      "openai-compatible:mock-agent",
      "--agent-llm-base-url",
      model.baseUrl,
      "--agent-llm-args",
      '{"temperature": 0.3}',
      "--user-llm",
      "openai-compatible:mock-user",
      "--user-llm-base-url",
      model.baseUrl,
      "--user-llm-args",
      '{"temperature": 0.9}',
      "--timeout",
      "30",
      "--max-retries",
      "2",
      "--cache",
      path.join(folder, "cache.db"),
      "--tool-spec",
      toolSpec,
    ],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`passk serve did not start: ${stderr}`)), 45_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on("exit", (code) => reject(new Error(`passk serve exited with ${code}: ${stderr}`)));
  });
});
afterAll(async () => {
  child?.kill("SIGTERM");
  await model?.close();
});

describe("passk serve with passk run's model flags", () => {
  it("a simulated conversation's agent and customer calls carry their own call settings", async () => {
    const started = await fetch(`${url}/api/conversations`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url },
      body: JSON.stringify({ domain: "mock", taskId: "create_task_1", mode: "simulate" }),
    });
    expect(started.status).toBe(201);
    await expect
      .poll(() => model.requests.filter((r) => !isUserSimulatorRequest(r)).length, { timeout: 30_000 })
      .toBeGreaterThan(0);
    await expect
      .poll(() => model.requests.filter(isUserSimulatorRequest).length, { timeout: 30_000 })
      .toBeGreaterThan(1);
    for (const request of model.requests)
      expect(temperature(request)).toBe(isUserSimulatorRequest(request) ? 0.9 : 0.3);
    // --tool-spec: the agent is told the rewritten description.
    const agentTools = (
      model.requests.find((r) => !isUserSimulatorRequest(r))!.body as {
        tools: Array<{ function: { name: string; description: string } }>;
      }
    ).tools;
    expect(agentTools.find((t) => t.function.name === "create_task")!.function.description).toBe(REWRITTEN);
  }, 90_000);

  it.each([
    [["--timeout", "soon"], '--timeout "soon" is not a number of seconds'],
    [["--max-retries", "0"], '--max-retries "0" is not a whole number from 1 to 100'],
    [["--agent-llm-args", "{temperature"], "--agent-llm-args"],
  ])(
    "a bad %j is one sentence at start, exit 1",
    (flags, says) => {
      const result = spawnSync(process.execPath, [passk, "serve", "--port", "0", ...flags], {
        env,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(says);
      expect(result.stderr).not.toContain("    at ");
    },
    90_000,
  );
});
