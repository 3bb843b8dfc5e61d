import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConversationStartSchema, type McpAccess } from "../../src/agents/remote/protocol.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { runCli } from "../helpers/run-cli.js";

// F1-a (hostile round 2): `passk run` over real HTTP against a team's agent that crashes on some conversations: its error answers
// are its own failures (reward 0, counted in pass^k, `--fail-under` fails), while an agent that cannot be
// reached at all is an infrastructure error (excluded, counted as not graded).

const dir = mkdtempSync(path.join(tmpdir(), "passk-agent-errors-"));
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** One MCP tools/call with bare fetch, as any agent could make it. */
async function callTool(access: McpAccess, name: string, args: Record<string, unknown>): Promise<void> {
  const response = await fetch(access.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${access.token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  await response.text();
}

/**
 * An HTTP-protocol agent for the mock domain's create_task_1: every other conversation it crashes with a
 * 500 and an error body; the others it does the task right.
 */
async function crashingAgent(): Promise<string> {
  const starts = new Map<string, McpAccess>();
  let conversations = 0;
  const server = createServer((request, response) => {
    void readBody(request).then(async (text) => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (request.method === "POST" && request.url === "/conversations") {
        const id = `c${++conversations}`;
        starts.set(id, ConversationStartSchema.parse(JSON.parse(text)).mcp);
        return send(201, { id });
      }
      const id = /^\/conversations\/([^/]+)/.exec(request.url ?? "")?.[1] ?? "";
      if (request.method === "DELETE") return send(200, {});
      if (Number(id.slice(1)) % 2 === 1) return send(500, { error: "my agent crashed: KeyError 'foo'" });
      await callTool(starts.get(id)!, "create_task", { user_id: "user_1", title: "Important Meeting" });
      return send(200, { content: "Is there anything else I can help you with? The task is created." });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const runWith = (agentSpec: string, saveTo: string, extra: string[] = []) =>
  runCli(
    [
      "run",
      "--domain",
      "mock",
      "--task-ids",
      "create_task_1",
      "--num-trials",
      "4",
      "--max-concurrency",
      "1",
      "--agent-llm",
      agentSpec,
      "--user-llm",
      "scripted:gold",
      "--max-retries",
      "1",
      "--max-attempts",
      "1",
      "--save-to",
      saveTo,
      "--store",
      path.join(dir, "passk.db"),
      ...extra,
    ],
    { env: { PASSK_DATA_DIR: tau2DataDir() } },
  );

interface SavedRun {
  simulations: Array<{
    termination_reason: string;
    reward_info: { reward: number } | null;
    info?: { error?: string; error_type?: string };
  }>;
}

describe("passk run with a remote agent that answers errors", () => {
  it("an error answer scores 0 and counts in pass^k; --fail-under fails on it", async () => {
    const url = await crashingAgent();
    const saveTo = path.join(dir, "crashing.json");
    const result = await runWith(`http:${url}`, saveTo, ["--fail-under", "pass^1=0.9"]);
    expect(result.code, result.stderr).not.toBe(0);
    const saved = JSON.parse(readFileSync(saveTo, "utf8")) as SavedRun;
    const outcomes = saved.simulations.map((s) => [s.termination_reason, s.reward_info?.reward]).sort();
    expect(outcomes).toEqual([
      ["agent_error", 0],
      ["agent_error", 0],
      ["user_stop", 1],
      ["user_stop", 1],
    ]);
    const crash = saved.simulations.find((s) => s.termination_reason === "agent_error")!;
    expect(crash.info?.error_type).toBe("RemoteAgentError");
    expect(crash.info?.error).toMatch(/HTTP 500.*KeyError 'foo'.*the agent's own failure/);
    // Every conversation is graded: pass^1 is 2 of 4, not 2 of 2.
    expect(result.stdout).toMatch(/mock\s+1\s+4\s+0\s+0\.500\s+0\.500/);
  });

  it("an agent that refuses connections is an infrastructure error: nothing graded, exit 3", async () => {
    const url = await crashingAgent();
    servers.pop()!.close();
    const saveTo = path.join(dir, "refused.json");
    const result = await runWith(`http:${url}`, saveTo);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain("infrastructure_error 4");
    expect(result.stderr).not.toContain("agent_error");
  });

  it("a module agent that throws is the agent's error too: scored 0 and counted", async () => {
    const file = path.join(dir, "crashing-agent.mjs");
    writeFileSync(
      file,
      `export default { name: "crashing", start: () => ({ respond: async () => { throw new Error("KeyError 'foo'"); } }) };\n`,
    );
    const saveTo = path.join(dir, "module.json");
    const result = await runWith(`module:${file}`, saveTo);
    expect(result.code, result.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(saveTo, "utf8")) as SavedRun;
    expect(saved.simulations.map((s) => [s.termination_reason, s.reward_info?.reward])).toEqual(
      Array(4).fill(["agent_error", 0]),
    );
    expect(saved.simulations[0]!.info?.error).toBe("KeyError 'foo'");
    expect(result.stdout).toMatch(/mock\s+1\s+4\s+0\s+0\.000\s+0\.000/);
  });
});
