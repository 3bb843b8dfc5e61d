import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import { ConfigError } from "../../src/core/errors.js";
import type { Task } from "../../src/core/task.js";
import { hostileHttpAgent, scriptedCustomer, type HostileServer } from "../helpers/hostile-agents.js";
import { converse, domainData } from "../helpers/remote-agents.js";
import { runCli } from "../helpers/run-cli.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";

// passk's own MCP listener cannot start: the harness failed, not the agent. Before, every conversation
// ended as `agent_error` with reward 0 and the run exited 0 with no sentence.

const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
let squatter: Server;
let busyPort: number;
let agentSide: HostileServer;
beforeAll(async () => {
  squatter = createServer(() => undefined);
  await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
  busyPort = (squatter.address() as AddressInfo).port;
  agentSide = await hostileHttpAgent(() => "Hello, how can I help?");
});
afterAll(async () => {
  await agentSide.close();
  await new Promise((resolve) => squatter.close(resolve));
});

async function converseWith(env: Record<string, string>) {
  const agent = createAgent(`http:${agentSide.url}`, { env, retry: { maxAttempts: 1 } });
  return converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) });
}

describe("passk's MCP listener cannot start", () => {
  it("PASSK_MCP_PORT already in use: a set-up error naming the port and the fix, nothing graded", async () => {
    const error = await converseWith({ PASSK_MCP_PORT: String(busyPort) }).catch((e: unknown) => e);
    expect(ConfigError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toBe(
      `passk cannot serve the agent's tools over MCP at 127.0.0.1:${busyPort}: port ${busyPort} is already in use ` +
        "(another passk run with the same PASSK_MCP_PORT, or another program); set PASSK_MCP_PORT to a free port, or leave it unset for any free port",
    );
  });

  it.each(["not-a-host.invalid", "no-such-machine.example.invalid", "256.256.256.256"])(
    "PASSK_MCP_HOST=%s cannot be resolved: a set-up error naming the variable",
    async (host) => {
      const error = await converseWith({ PASSK_MCP_HOST: host }).catch((e: unknown) => e);
      expect(ConfigError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^passk cannot serve the agent's tools over MCP at ${host.replace(/\./g, "\\.")}:0: .*PASSK_MCP_HOST`,
        ),
      );
    },
  );

  it("PASSK_MCP_HOST naming an address of another machine: a set-up error", async () => {
    const error = await converseWith({ PASSK_MCP_HOST: "192.0.2.1" }).catch((e: unknown) => e);
    expect(ConfigError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /"192\.0\.2\.1" is not an address of this machine \(EADDRNOTAVAIL\)/,
    );
  });

  it("the same agent with a free port converses normally afterwards", async () => {
    const { run } = await converseWith({});
    expect(run.termination_reason).toBe("user_stop");
  });

  it("passk run with PASSK_MCP_PORT in use stops at once with the sentence, exit 1, nothing graded", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "passk-mcp-port-"));
    const run = await runCli(
      [
        "run",
        "--domain",
        "mock",
        "--num-tasks",
        "3",
        "--agent-llm",
        `http:${agentSide.url}`,
        "--user-llm",
        "scripted:gold",
        "--store",
        path.join(dir, "s.db"),
        "--save-to",
        path.join(dir, "r.json"),
      ],
      { env: { PASSK_DATA_DIR: tau2DataDir(), PASSK_MCP_PORT: String(busyPort) } },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`port ${busyPort} is already in use`);
    expect(run.stderr).toMatch(/no conversation was graded with this set-up \(0 of 3 stored\)/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).not.toMatch(/pass\^1/);
  });
});
