import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import type { Task } from "../../src/core/task.js";
import {
  a2aCard,
  callMcpTool,
  errorOf,
  hostileHttpAgent,
  hostileServer,
  scriptedCustomer,
  sendJson,
  type HostileServer,
} from "../helpers/hostile-agents.js";
import { converse, domainData } from "../helpers/remote-agents.js";

// What a remote agent answers is kept (the trajectory, the store, the results file) or quoted (stderr,
// info.error): JSON nested a thousand levels deep made the results file unreadable by Python's json, a
// 5 MB error message was quoted whole, and redirects were followed wherever they led, as a GET.

const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
const retry = { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 2, jitter: 0 };
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function talk(spec: string, options: { maxAgentMessageBytes?: number } = {}) {
  const agent = createAgent(spec, { env: {}, retry, timeoutMs: 20_000, ...options });
  return (await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) })).run;
}

/** `{"a": {"a": … 1}}`: `levels` objects, one in another. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** An A2A agent answering every JSON-RPC request with `answer(id)`. */
async function a2aAgent(answer: (id: unknown) => unknown, streaming = false): Promise<HostileServer> {
  const fake: HostileServer = await hostileServer((request, response) => {
    if (request.method === "GET") return sendJson(response, 200, a2aCard(fake.url, streaming));
    const { id } = JSON.parse(request.body) as { id: unknown };
    if (!streaming) return sendJson(response, 200, answer(id));
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(`data: ${JSON.stringify(answer(id))}\n\n`);
  });
  servers.push(fake);
  return fake;
}

const DEEP = /the agent sent .* nested deeper than 64 levels of objects and lists; it was not kept/;

describe("JSON nested deeper than 64 levels from a remote agent", () => {
  it("tool-call arguments 1000 levels deep (MCP): the agent's error, never kept", async () => {
    const agentSide = await hostileHttpAgent(async ({ start }) => {
      await callMcpTool(start.mcp, "create_task", { user_id: "user_1", title: "t", extra: nested(999) });
      return "Done.";
    });
    servers.push(agentSide);
    const run = await talk(`http:${agentSide.url}`);
    expect(run.termination_reason, errorOf(run)).toBe("agent_error");
    expect(errorOf(run)).toMatch(/a tool call \(create_task\) with arguments nested deeper than 64 levels/);
    expect(run.messages.some((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0)).toBe(false);
    expect(JSON.stringify(run)).not.toContain('{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a"');
  });

  it("tool-call arguments exactly 64 levels deep still reach the world", async () => {
    const agentSide = await hostileHttpAgent(async ({ start }) => {
      await callMcpTool(start.mcp, "create_task", { user_id: "user_1", title: "t", extra: nested(63) });
      return "Done.";
    });
    servers.push(agentSide);
    const run = await talk(`http:${agentSide.url}`);
    expect(run.termination_reason, errorOf(run)).toBe("user_stop");
    expect(
      run.messages.some((m) => m.role === "assistant" && m.tool_calls?.[0]?.name === "create_task"),
    ).toBe(true);
  });

  it("an HTTP protocol reply whose JSON nests 1000 levels: the agent's error", async () => {
    const agentSide = await hostileHttpAgent((_c, _content, response) =>
      sendJson(response, 200, { content: "Hello", extra: nested(1000) }),
    );
    servers.push(agentSide);
    const run = await talk(`http:${agentSide.url}`);
    expect(run.termination_reason, errorOf(run)).toBe("agent_error");
    expect(errorOf(run)).toMatch(DEEP);
    expect(agentSide.requests.filter((r) => r.path.endsWith("/messages"))).toHaveLength(1);
  });

  it("an A2A reply carrying data 1000 levels deep: the agent's error", async () => {
    await a2aAgent((id) => ({
      jsonrpc: "2.0",
      id,
      result: {
        message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Hello" }, { data: nested(1000) }] },
      },
    }));
    const run = await talk(`a2a:${servers[0]!.url}`);
    expect(run.termination_reason, errorOf(run)).toBe("agent_error");
    expect(errorOf(run)).toMatch(DEEP);
  });
});

describe("a huge A2A JSON-RPC error message", () => {
  // Streamed events are read up to 4 MB by the A2A SDK itself.
  it.each([
    ["5 MB, answered", 5_000_000, false],
    ["3 MB, streamed", 3_000_000, true],
  ] as const)("%s: quoted cut, saying it was cut", async (_name, chars, streaming) => {
    await a2aAgent(
      (id) => ({ jsonrpc: "2.0", id, error: { code: -32000, message: "e".repeat(chars) } }),
      streaming,
    );
    const run = await talk(`a2a:${servers[0]!.url}`);
    expect(run.termination_reason, errorOf(run).slice(0, 500)).toBe("agent_error");
    expect(errorOf(run).length).toBeLessThan(1000);
    expect(errorOf(run)).toMatch(/e{100}… \(cut: \d+ characters in all\)/);
  });
});

describe("redirects of the HTTP protocol", () => {
  it("a redirect loop on POST /conversations says it is a redirect loop", async () => {
    const loop = await hostileServer((_request, response) => {
      response.writeHead(307, { location: "/conversations" });
      response.end();
    });
    servers.push(loop);
    const run = await talk(`http:${loop.url}`);
    expect(run.termination_reason).not.toBe("user_stop");
    expect(errorOf(run)).toMatch(/POST \/conversations was redirected more than 5 times \(a redirect loop/);
    expect(errorOf(run)).not.toMatch(/fetch failed/);
  });

  it.each([
    [302, "another origin"],
    [302, "the same origin"],
    [303, "the same origin"],
  ] as const)(
    "a %i to %s on POST /conversations is refused, never followed as a GET",
    async (status, where) => {
      const sink = await hostileServer((_request, response) => sendJson(response, 200, { id: "sunk" }));
      servers.push(sink);
      const agentSide: HostileServer = await hostileServer((request, response) => {
        if (request.path === "/elsewhere") return sendJson(response, 200, { id: "sunk" });
        const base = where === "another origin" ? sink.url : agentSide.url;
        response.writeHead(status, { location: `${base}/elsewhere` });
        response.end();
      });
      servers.push(agentSide);
      const run = await talk(`http:${agentSide.url}`);
      expect(run.termination_reason).toBe("agent_error");
      expect(errorOf(run)).toMatch(
        where === "another origin"
          ? new RegExp(`answered HTTP ${status} to .*which passk does not follow: it is on another origin`)
          : new RegExp(`answered HTTP ${status} to .*turns the POST into a GET without its body`),
      );
      expect(sink.requests).toHaveLength(0);
      expect(agentSide.requests.filter((r) => r.path === "/elsewhere")).toHaveLength(0);
    },
  );
});

describe("a redirect that keeps the method and the body", () => {
  it("a 307 to the same origin on POST /conversations is followed with the body and the token", async () => {
    // The agent moved from /old to /: every request is redirected there, on the same origin.
    const agentSide = await hostileServer((request, response) => {
      if (request.path.startsWith("/old/")) {
        response.writeHead(307, { location: request.path.slice("/old".length) });
        return void response.end();
      }
      if (request.method === "DELETE") return void response.writeHead(204).end();
      if (request.path === "/conversations") return sendJson(response, 201, { id: "c1" });
      sendJson(response, 200, { content: "Hello from behind a redirect." });
    });
    servers.push(agentSide);
    const agent = createAgent(`http:${agentSide.url}/old`, {
      env: { PASSK_REMOTE_AGENT_TOKEN: "token-of-the-agent-123" },
      retry,
      timeoutMs: 20_000,
    });
    const run = (await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) })).run;
    expect(run.termination_reason, errorOf(run)).toBe("user_stop");
    expect(run.messages.some((m) => m.content === "Hello from behind a redirect.")).toBe(true);
    const started = agentSide.requests.find((r) => r.path === "/conversations")!;
    expect(JSON.parse(started.body)).toHaveProperty("policy");
    expect(started.headers.authorization).toBe("Bearer token-of-the-agent-123");
  });
});

describe("an answer over the transport's 32 MiB cap", () => {
  const size = 33 * 1024 * 1024;
  it("from an HTTP protocol agent is named the agent's answer", async () => {
    const agentSide = await hostileHttpAgent((_c, _content, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(`{"content":"${"x".repeat(size)}"}`);
    });
    servers.push(agentSide);
    const run = await talk(`http:${agentSide.url}`, { maxAgentMessageBytes: 32 * 1024 * 1024 });
    expect(errorOf(run)).toMatch(/the agent's answer is larger than 33554432 bytes/);
    expect(errorOf(run)).not.toMatch(/provider/);
  });

  it("from an A2A agent is named the agent's answer", async () => {
    await a2aAgent((id) => ({
      jsonrpc: "2.0",
      id,
      result: { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "x".repeat(size) }] } },
    }));
    const run = await talk(`a2a:${servers[0]!.url}`);
    expect(errorOf(run)).toMatch(/the agent's answer is larger than 33554432 bytes/);
    expect(errorOf(run)).not.toMatch(/provider/);
  });
});
