import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../src/agents/create-agent.js";
import { McpToolServer } from "../src/agents/remote/mcp-tool-server.js";
import {
  ConversationStartSchema,
  remoteAgentProtocolJsonSchema,
  type ConversationStart,
  type McpAccess,
} from "../src/agents/remote/protocol.js";
import { remoteAgent } from "../src/agents/remote/remote-agent.js";
import { DEFAULT_FIRST_AGENT_MESSAGE, type AgentView, type UserSimulator } from "../src/core/agent.js";
import { ConfigError } from "../src/core/errors.js";
import type { SimulationRun } from "../src/core/simulation.js";
import type { Task } from "../src/core/task.js";
import { toolSpecs } from "../src/env/tool-schema.js";
import { isPyFloat } from "../src/python/py-float.js";
import { agentToolCalls, converse, domainData } from "./helpers/remote-agents.js";
import { REPO_ROOT } from "./helpers/run-cli.js";

// Fake agents in this process, each a few lines of HTTP, so that every fault can be produced on purpose:
// the plain HTTP protocol (and a little A2A), the agent's MCP calls made with bare fetch.

const fastRetry = { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5, jitter: 0 };
const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
const tools = toolSpecs(domainData("mock").domain.agent.tools);

interface FakeRequest {
  method: string;
  path: string;
  body: unknown;
  headers: IncomingMessage["headers"];
}
type FakeAnswer =
  { status?: number; json?: unknown; text?: string; headers?: Record<string, string> } | { hang: true };

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A fake agent server: every request is recorded and answered by `handle`. */
async function startFake(handle: (request: FakeRequest) => Promise<FakeAnswer>) {
  const requests: FakeRequest[] = [];
  const server = createServer((incoming, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const request: FakeRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        body: text ? (JSON.parse(text) as unknown) : undefined,
        headers: incoming.headers,
      };
      requests.push(request);
      void handle(request).then((answer) => {
        if ("hang" in answer) return;
        const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? "");
        response.writeHead(answer.status ?? 200, {
          "content-type": answer.json !== undefined ? "application/json" : "text/plain",
          ...answer.headers,
        });
        response.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/**
 * An agent speaking passk's HTTP protocol: conversations are numbered, `onMessage` answers each customer
 * message (a string is the reply).
 */
async function httpAgent(
  onMessage: (
    conversation: { id: string; start: ConversationStart },
    content: string,
  ) => Promise<FakeAnswer | string>,
) {
  const conversations = new Map<string, ConversationStart>();
  const fake = await startFake(async (request) => {
    if (request.method === "POST" && request.path === "/conversations") {
      const id = `c${conversations.size + 1}`;
      conversations.set(id, ConversationStartSchema.parse(request.body));
      return { status: 201, json: { id } };
    }
    const match = /^\/conversations\/([^/]+)(\/messages)?$/.exec(request.path);
    const start = match ? conversations.get(match[1]!) : undefined;
    if (!match || !start) return { status: 404, json: { error: "no such conversation" } };
    if (request.method === "DELETE") return { status: 204 };
    const answer = await onMessage({ id: match[1]!, start }, (request.body as { content: string }).content);
    return typeof answer === "string" ? { json: { content: answer } } : answer;
  });
  const deletes = () => fake.requests.filter((r) => r.method === "DELETE").map((r) => r.path);
  const messages = () => fake.requests.filter((r) => r.path.endsWith("/messages"));
  return { ...fake, conversations, deletes, messages };
}

let rpcId = 0;
/** One MCP request with bare fetch, as any agent could send it. */
async function mcp(
  access: McpAccess,
  method: string,
  params: Record<string, unknown> = {},
  options: { token?: string | null; url?: string; body?: string } = {},
): Promise<{ status: number; body: { result?: Record<string, unknown>; error?: { message: string } } }> {
  const token = options.token === undefined ? access.token : options.token;
  const response = await fetch(options.url ?? access.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
    },
    body: options.body ?? JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  return { status: response.status, body: (await response.json()) as never };
}

async function callTool(access: McpAccess, name: string, args: Record<string, unknown>) {
  const { status, body } = await mcp(access, "tools/call", { name, arguments: args });
  expect(status).toBe(200);
  const result = body.result as { content: Array<{ text: string }>; isError: boolean };
  return { text: result.content[0]!.text, isError: result.isError };
}

/** A customer who says its lines in order, then hangs up. */
function customer(lines: readonly string[]): UserSimulator {
  return {
    name: "scripted-customer",
    start: () => {
      let next = 0;
      return {
        respond: async () => ({ role: "user", content: lines[next++] ?? "Thanks, bye. ###STOP###" }),
      };
    },
  };
}

/** The reason a conversation ended unscored (`info.error`). */
const errorOf = (run: SimulationRun) =>
  String((run.info as { error?: unknown } | null | undefined)?.error ?? "");

const REQUEST = "Please create a task called 'Important Meeting' for user_1.";

function startOf(overrides: Partial<AgentView> = {}): AgentView {
  return {
    policy: "Be helpful.",
    tools,
    solo: false,
    seed: 0,
    history: [{ role: "assistant", content: DEFAULT_FIRST_AGENT_MESSAGE }],
    ...overrides,
  };
}

describe("a remote agent's tools over MCP", () => {
  it("lists exactly the tools the agent is given, and records its calls in the trajectory in order", async () => {
    let listed: unknown;
    const results: string[] = [];
    const agentSide = await httpAgent(async ({ start }, content) => {
      if (content !== REQUEST) return "You're welcome!";
      listed = (await mcp(start.mcp, "tools/list")).body.result?.tools;
      results.push((await callTool(start.mcp, "get_users", {})).text);
      const created = await callTool(start.mcp, "create_task", {
        user_id: "user_1",
        title: "Important Meeting",
      });
      results.push(created.text);
      return `Done: ${created.text}`;
    });
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const { run, reward } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });

    expect(listed).toEqual(
      tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })),
    );
    expect(run.termination_reason).toBe("user_stop");
    expect(reward).toBe(1);
    expect(agentToolCalls(run)).toEqual([
      { name: "get_users", arguments: {} },
      { name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } },
    ]);
    // The MCP answers are the tool messages of the trajectory, and the reply is the agent's text message.
    const toolMessages = run.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual(toolMessages);
    expect(run.messages.at(-2)).toMatchObject({ role: "assistant", content: `Done: ${results[1]}` });
    // The conversation was started with the policy, the tools, the greeting and where to call them.
    const start = agentSide.conversations.get("c1")!;
    expect(start.tools).toEqual(tools);
    expect(start.history).toEqual([{ role: "assistant", content: DEFAULT_FIRST_AGENT_MESSAGE }]);
    expect(start.mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/[0-9a-f-]{36}$/);
  });

  it("serializes parallel MCP calls: one assistant message per call, each answered with its own result", async () => {
    const answers: Array<{ title: string; text: string }> = [];
    const agentSide = await httpAgent(async ({ start }, content) => {
      if (content !== REQUEST) return "Bye!";
      const titles = ["First", "Second", "Third"];
      const done = await Promise.all(
        titles.map(async (title) => ({
          title,
          text: (await callTool(start.mcp, "create_task", { user_id: "user_1", title })).text,
        })),
      );
      answers.push(...done);
      return "Created three tasks.";
    });
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });

    const calls = run.messages.filter((m) => m.role === "assistant" && m.tool_calls);
    expect(calls).toHaveLength(3);
    for (const message of calls) expect(message.tool_calls).toHaveLength(1);
    // Each call is followed by its result before the next call reaches the world.
    for (const [i, message] of run.messages.entries())
      if (message.role === "assistant" && message.tool_calls)
        expect(run.messages[i + 1]).toMatchObject({ role: "tool", id: message.tool_calls[0]!.id });
    // Every agent request got the result of its own call (the created task carries its title).
    expect(answers).toHaveLength(3);
    for (const { title, text } of answers) expect(JSON.parse(text)).toMatchObject({ title });
    expect(new Set(answers.map((a) => (JSON.parse(a.text) as { task_id: string }).task_id)).size).toBe(3);
  });

  it("answers an unknown tool with the world's tool error, as a model calling it would get", async () => {
    let unknown: { text: string; isError: boolean } | undefined;
    const agentSide = await httpAgent(async ({ start }, content) => {
      if (content !== REQUEST) return "Bye!";
      unknown = await callTool(start.mcp, "delete_everything", { really: true });
      return "I cannot do that.";
    });
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("user_stop");
    const toolMessage = run.messages.find((m) => m.role === "tool")!;
    expect(toolMessage).toMatchObject({ error: true });
    expect(unknown).toEqual({ text: toolMessage.content, isError: true });
    expect(unknown?.text).toMatch(/delete_everything/);
  });

  it("keeps 2.0 a float in recorded arguments, and answers a malformed MCP request with a parse error", async () => {
    let malformed: { status: number; body: unknown } | undefined;
    const agentSide = await httpAgent(async ({ start }, content) => {
      if (content !== REQUEST) return "Bye!";
      malformed = await mcp(start.mcp, "", {}, { body: "{not json" });
      await mcp(
        start.mcp,
        "tools/call",
        {},
        {
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_users","arguments":{"limit":2.0}}}',
        },
      );
      return "Done.";
    });
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    const args = agentToolCalls(run)[0]!.arguments;
    expect(args).toEqual({ limit: 2 });
    expect(isPyFloat(args, "limit")).toBe(true);
    expect(run.termination_reason).toBe("user_stop");
  });
});

describe("per-conversation isolation", () => {
  it("a token reaches only its own conversation's tools; a wrong, missing or foreign token gets 401", async () => {
    const both = new Map<string, McpAccess>();
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const probes: Record<string, number> = {};
    const agentSide = await httpAgent(async ({ id, start }, content) => {
      if (content !== REQUEST) return "Bye!";
      both.set(id, start.mcp);
      if (both.size === 2) release();
      await bothStarted;
      const other = [...both.entries()].find(([key]) => key !== id)![1];
      probes[`${id}: own token at the other conversation`] = (
        await mcp(
          start.mcp,
          "tools/call",
          { name: "create_task", arguments: { user_id: "user_1", title: "X" } },
          { url: other.url },
        )
      ).status;
      probes[`${id}: no token`] = (await mcp(start.mcp, "tools/list", {}, { token: null })).status;
      probes[`${id}: wrong token`] = (
        await mcp(start.mcp, "tools/list", {}, { token: `${start.mcp.token}x` })
      ).status;
      const created = await callTool(start.mcp, "create_task", { user_id: "user_1", title: `Task of ${id}` });
      return `Created: ${created.text}`;
    });
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const [first, second] = await Promise.all(
      [0, 1].map(() => converse({ domain: "mock", task, agent, user: customer([REQUEST]) })),
    );
    expect(Object.values(probes)).toEqual([401, 401, 401, 401, 401, 401]);
    // Each world holds its own conversation's task only.
    const titles = (run: typeof first.run) => agentToolCalls(run).map((call) => call.arguments.title);
    const [a, b] = [titles(first!.run), titles(second!.run)];
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(new Set([...a, ...b])).toEqual(new Set(["Task of c1", "Task of c2"]));
    expect(both.get("c1")!.token).not.toBe(both.get("c2")!.token);
    expect(both.get("c1")!.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("refuses tool calls outside the agent's turn, and closes the endpoint and the session at the end", async () => {
    const mcpServer = new McpToolServer();
    const agentSide = await httpAgent(async () => "Hello, how can I help?");
    const agent = remoteAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry, mcpServer });
    const session = await agent.start(startOf());
    const access = agentSide.conversations.get("c1")!.mcp;
    const reply = await session.respond([{ role: "user", content: "Hi" }]);
    expect(reply).toEqual({ role: "assistant", content: "Hello, how can I help?" });
    // Between turns passk waits for the customer: nothing the agent calls could enter the trajectory.
    const between = await callTool(access, "get_users", {});
    expect(between.isError).toBe(true);
    expect(between.text).toMatch(/not waiting for your reply/);
    const other = await agent.start(startOf());
    expect(mcpServer.openEndpoints).toBe(2);

    // Ended: its token opens nothing any more, the agent is told; the other conversation goes on.
    await session.end();
    expect((await mcp(access, "tools/list")).status).toBe(401);
    expect(agentSide.deletes()).toEqual(["/conversations/c1"]);
    const otherAccess = agentSide.conversations.get("c2")!.mcp;
    expect((await mcp(otherAccess, "tools/list")).status).toBe(200);
    await expect(session.respond([{ role: "user", content: "Still there?" }])).rejects.toThrow(/has ended/);
    // With the last conversation, the listener closes.
    await other.end();
    expect(mcpServer.openEndpoints).toBe(0);
    expect(mcpServer.listening).toBe(false);
    await expect(fetch(access.url, { method: "POST" })).rejects.toThrow();
  });

  it("ends a conversation that passk let go of without ending it (the session is collected)", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const mcpServer = new McpToolServer();
    const agentSide = await httpAgent(async () => "Hello!");
    const agent = remoteAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry, mcpServer });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("user_stop");
    for (let i = 0; i < 20 && agentSide.deletes().length === 0; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(agentSide.deletes()).toEqual(["/conversations/c1"]);
    expect(mcpServer.listening).toBe(false);
  });

  it("a conversation past its time limit ends as an infrastructure error, its endpoint closed and the agent told", async () => {
    const mcpServer = new McpToolServer();
    const agentSide = await httpAgent(async () => ({ hang: true }));
    const agent = remoteAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry, mcpServer });
    const { run } = await converse({
      domain: "mock",
      task,
      agent,
      user: customer([REQUEST]),
      maxDurationMs: 300,
    });
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(errorOf(run)).toMatch(/wall-clock limit/);
    await expect.poll(() => agentSide.deletes()).toEqual(["/conversations/c1"]);
    expect(mcpServer.openEndpoints).toBe(0);
    expect(mcpServer.listening).toBe(false);
  });
});

describe("infrastructure faults of a remote agent are never the agent's score", () => {
  it("an agent that is down: retried, then an infrastructure error", async () => {
    const gone = await startFake(async () => ({ status: 200 }));
    servers.pop()!.close();
    const agent = createAgent(`http:${gone.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(errorOf(run)).toMatch(/connection refused.*3 attempts|3 attempts.*connection refused/);
    expect(errorOf(run)).toMatch(/not the agent's score/);
  });

  it("a 503 is retried (honouring Retry-After) and the conversation goes on", async () => {
    let attempts = 0;
    const agentSide = await httpAgent(async () =>
      ++attempts === 1 ? { status: 503, text: "overloaded", headers: { "retry-after": "0" } } : "All good.",
    );
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer(["Hi"]) });
    expect(run.termination_reason).toBe("user_stop");
    expect(agentSide.messages()).toHaveLength(2);
    expect(run.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([
      DEFAULT_FIRST_AGENT_MESSAGE,
      "All good.",
    ]);
  });

  it("an agent that stops answering: each attempt times out, then an infrastructure error", async () => {
    const agentSide = await httpAgent(async () => ({ hang: true }));
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry, timeoutMs: 150 });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(errorOf(run)).toMatch(/no sign of life for 0\.15 s/);
    expect(agentSide.messages()).toHaveLength(3);
  });

  it("a failure after a tool call reached the world is not retried (the turn cannot be sent twice)", async () => {
    const agentSide = await httpAgent(async ({ start }) => {
      await callTool(start.mcp, "create_task", { user_id: "user_1", title: "Important Meeting" });
      return { status: 502, text: "bad gateway" };
    });
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(errorOf(run)).toMatch(/after its tool calls had reached the world/);
    expect(agentSide.messages()).toHaveLength(1);
    expect(agentToolCalls(run)).toHaveLength(1);
  });

  it("a URL that is not an agent (404 at the start) stops the run as a set-up error", async () => {
    const fake = await startFake(async () => ({ status: 404, text: "Not Found" }));
    const agent = createAgent(`http:${fake.url}`, { env: {}, retry: fastRetry });
    await expect(converse({ domain: "mock", task, agent, user: customer([REQUEST]) })).rejects.toSatisfy(
      (error: unknown) =>
        ConfigError.isInstance(error) && /answered 404.*check the URL/.test((error as Error).message),
    );
  });
});

describe("an agent that answers with an error fails the conversation itself (scored 0, counted)", () => {
  it("HTTP: a 500 with an error body is the agent's error, scored 0, not retried", async () => {
    const agentSide = await httpAgent(async () => ({
      status: 500,
      json: { error: "my agent crashed: KeyError 'foo'" },
    }));
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const { run, reward } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("agent_error");
    expect((run.info as { error_type?: string }).error_type).toBe("RemoteAgentError");
    expect(errorOf(run)).toMatch(/answered HTTP 500: .*KeyError 'foo'.*the agent's own failure/);
    expect(reward).toBe(0);
    expect(agentSide.messages()).toHaveLength(1);
  });

  it("HTTP: a malformed or empty reply is the agent's error, naming what was wrong", async () => {
    for (const [answer, why] of [
      [{ json: { reply: "wrong field" } }, /wrong shape.*content/],
      [{ text: "" }, /not JSON/],
      [{ json: { content: "   " } }, /an empty reply/],
    ] as const) {
      const agentSide = await httpAgent(async () => answer);
      const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
      const { run, reward } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
      expect(run.termination_reason).toBe("agent_error");
      expect(errorOf(run)).toMatch(why);
      expect(reward).toBe(0);
      expect(agentSide.messages()).toHaveLength(1);
    }
  });

  it("A2A: the card is read once per agent; a conversation opens without a contextId and ends with passk/end", async () => {
    const fake = await startFake(async (request) => {
      if (request.method === "GET") return { json: a2aCard(fake.url) };
      const body = request.body as { id: number; params: { message: { contextId?: string } } };
      const message = {
        messageId: `m${fake.requests.length}`,
        role: "ROLE_AGENT",
        contextId: body.params.message.contextId ?? `context-${fake.requests.length}`,
        parts: [{ text: "Done." }],
      };
      return { json: { jsonrpc: "2.0", id: body.id, result: { message } } };
    });
    const agent = createAgent(`a2a:${fake.url}`, { env: {}, retry: fastRetry });
    for (let i = 0; i < 3; i++) {
      const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
      expect(run.termination_reason).toBe("user_stop");
    }
    expect(fake.requests.filter((r) => r.method === "GET").map((r) => r.path)).toEqual([
      "/.well-known/agent-card.json",
    ]);
    // Each conversation: its first message carries no contextId (the agent's answer names one), every
    // later one names the agent's context, and the last one is marked passk/end, without MCP access.
    const sent = fake.requests
      .filter((r) => r.method === "POST")
      .map((r) => (r.body as { params: { message: A2aSent } }).params.message);
    const contexts = [...new Set(sent.flatMap((m) => (m.contextId ? [m.contextId] : [])))];
    expect(contexts).toHaveLength(3);
    expect(sent.filter((m) => !m.contextId)).toHaveLength(3);
    for (const context of contexts) {
      const last = sent.filter((m) => m.contextId === context).at(-1)!;
      expect(Object.keys(last.metadata)).toEqual(["passk/end"]);
      expect(last.parts).toEqual([
        {
          text: "(passk: the conversation is over; nothing more will be sent in this context)",
          mediaType: "text/plain",
        },
      ]);
    }
    expect(sent.filter((m) => "passk/end" in m.metadata)).toHaveLength(3);
  });

  it("HTTP: a crash when the conversation starts is the agent's error too", async () => {
    const fake = await startFake(async () => ({ status: 500, text: "Traceback: ZeroDivisionError" }));
    const agent = createAgent(`http:${fake.url}`, { env: {}, retry: fastRetry });
    const { run, reward } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(/while starting the conversation.*ZeroDivisionError/);
    expect(reward).toBe(0);
    expect(fake.requests).toHaveLength(1);
  });

  it("A2A: a JSON-RPC error answer, a failed task, a reply with nothing are the agent's errors", async () => {
    for (const [answer, why] of [
      [
        { error: { code: -32603, message: "my agent crashed: KeyError 'foo'" } },
        /A2A error: my agent crashed/,
      ],
      [
        { result: { task: { id: "t", contextId: "c", status: { state: "TASK_STATE_FAILED" } } } },
        /A2A task ended failed/,
      ],
      [{ result: { nonsense: true } }, /A2A/],
    ] as const) {
      const fake = await startFake(async (request) => {
        if (request.method === "GET") return { json: a2aCard(fake.url) };
        return { json: { jsonrpc: "2.0", id: (request.body as { id: number }).id, ...answer } };
      });
      const agent = createAgent(`a2a:${fake.url}`, { env: {}, retry: fastRetry });
      const { run, reward } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
      expect(run.termination_reason, errorOf(run)).toBe("agent_error");
      expect(errorOf(run)).toMatch(why);
      expect(errorOf(run)).toMatch(/the agent's own failure/);
      expect(reward).toBe(0);
      expect(fake.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    }
  });

  it("A2A: a streamed event holding nothing is a malformed answer, the agent's error", async () => {
    const fake = await startFake(async (request) => {
      if (request.method === "GET") return { json: a2aCard(fake.url, true) };
      const id = (request.body as { id: number }).id;
      return {
        text: `data: ${JSON.stringify({ jsonrpc: "2.0", id, result: {} })}\n\n`,
        headers: { "content-type": "text/event-stream" },
      };
    });
    const agent = createAgent(`a2a:${fake.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(/A2A event holding no message, task or update/);
  });

  it("A2A: a refused connection stays an infrastructure error", async () => {
    const gone = await startFake(async () => ({ status: 200 }));
    servers.pop()!.close();
    const agent = createAgent(`a2a:${gone.url}`, { env: {}, retry: fastRetry });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(errorOf(run)).toMatch(/not the agent's score/);
  });
});

describe("secrets", () => {
  it("the MCP token and the agent's own token never reach the trajectory, errors or results", async () => {
    let token = "";
    let attempts = 0;
    const agentSide = await httpAgent(async ({ start }) => {
      token = start.mcp.token;
      return ++attempts === 1
        ? { status: 500, text: `boom, my token was ${token}` }
        : `Your MCP token is ${token}; mine is agent-secret-0123456789`;
    });
    const agent = createAgent(`http:${agentSide.url}`, {
      env: { PASSK_REMOTE_AGENT_TOKEN: "agent-secret-0123456789" },
      retry: { ...fastRetry, maxAttempts: 1 },
    });
    const { run } = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(/boom, my token was \[redacted\]/);
    const again = await converse({ domain: "mock", task, agent, user: customer([REQUEST]) });
    const text = JSON.stringify([run, again.run]);
    expect(token).not.toBe("");
    expect(text).not.toContain(token);
    expect(text).not.toContain("agent-secret-0123456789");
    // The agent's own token went to the agent, as a bearer token.
    expect(
      agentSide.requests.every((r) => r.headers.authorization === "Bearer agent-secret-0123456789"),
    ).toBe(true);
  });
});

describe("specs, settings and the protocol's JSON Schema", () => {
  it("names a malformed spec or setting in one sentence with the fix", () => {
    expect(() => createAgent("a2a:localhost:9999", { env: {} })).toThrow(
      /--agent-llm "a2a:localhost:9999": "localhost:9999" is not an http\(s\) URL; write a2a:<the agent's URL>/,
    );
    for (const [url, port] of [
      ["http://127.0.0.1:/", ""],
      ["http://127.0.0.1:", ""],
      ["http://[::1]:/a2a", ""],
      ["https://agent.example:0", "0"],
      ["http://127.0.0.1:99999", "99999"],
      ["http://127.0.0.1:9a", "9a"],
    ])
      expect(() => createAgent(`a2a:${url}`, { env: {} })).toThrow(
        `--agent-llm "a2a:${url}": "${port}" is not a port (1 to 65535); write the port the agent listens on, e.g. a2a:http://127.0.0.1:9999, or no ":" for the scheme's default`,
      );
    expect(createAgent("a2a:http://[::1]:9999/a2a", { env: {} }).name).toMatch(/a2a/);
    expect(createAgent("http:https://agent.example/v1", { env: {} }).name).toMatch(/http/);
    expect(() => createAgent("http:http://me:pw@agent.example", { env: {} })).toThrow(
      /PASSK_REMOTE_AGENT_TOKEN/,
    );
    expect(() => createAgent("a2a:http://127.0.0.1:1", { env: { PASSK_MCP_PORT: "eighty" } })).toThrow(
      /PASSK_MCP_PORT "eighty" is not valid; set it to a port number/,
    );
    expect(() => createAgent("a2a:http://127.0.0.1:1", { env: { PASSK_MCP_HOST: "0.0.0.0" } })).toThrow(
      /set PASSK_MCP_PUBLIC_URL/,
    );
  });

  it("serves tools at the public URL it is told, on the host and port it is told", async () => {
    const agentSide = await httpAgent(async () => "Hi!");
    expect(() =>
      createAgent(`http:${agentSide.url}`, { env: { PASSK_MCP_PUBLIC_URL: "http://agents.example:8931" } }),
    ).toThrow(/PASSK_MCP_PUBLIC_URL needs a fixed PASSK_MCP_PORT/);
    const port = await freePort();
    const fixed = remoteAgent(`http:${agentSide.url}`, {
      env: {
        PASSK_MCP_HOST: "127.0.0.1",
        PASSK_MCP_PORT: String(port),
        PASSK_MCP_PUBLIC_URL: "http://agents.example:8931/",
      },
    });
    const session = await fixed.start(startOf());
    const access = agentSide.conversations.get("c1")!.mcp;
    expect(access.url).toMatch(/^http:\/\/agents\.example:8931\/mcp\/[0-9a-f-]{36}$/);
    const local = access.url.replace("http://agents.example:8931", `http://127.0.0.1:${port}`);
    expect((await mcp(access, "tools/list", {}, { url: local })).status).toBe(200);
    await session.end();
  });

  it("sends the ticket first in solo mode, and ends when the agent stops", async () => {
    const mcpServer = new McpToolServer();
    const said: string[] = [];
    const agentSide = await httpAgent(async (_conversation, content) => {
      said.push(content);
      return "Solved. ###STOP###";
    });
    const agent = remoteAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry, mcpServer });
    const session = await agent.start(startOf({ solo: true, history: [], ticket: "Ticket #7" }));
    expect(agentSide.conversations.get("c1")!.solo).toBe(true);
    expect(await session.respond([])).toEqual({ role: "assistant", content: "Solved. ###STOP###" });
    expect(said).toEqual(["Ticket #7"]);
    await expect.poll(() => mcpServer.openEndpoints).toBe(0);
    await expect.poll(() => agentSide.deletes()).toEqual(["/conversations/c1"]);
  });

  it("examples/agents/remote-agent-protocol.schema.json is the JSON Schema of the protocol's bodies", () => {
    const file = path.join(REPO_ROOT, "examples", "agents", "remote-agent-protocol.schema.json");
    const written = JSON.parse(readFileSync(file, "utf8")) as unknown;
    expect(written, "regenerate it: npx tsx examples/agents/write-protocol-schema.ts").toEqual(
      remoteAgentProtocolJsonSchema(),
    );
    const defs = (written as { $defs: Record<string, { required?: string[] }> }).$defs;
    expect(defs.ConversationStart?.required).toEqual(["policy", "history", "solo", "tools", "mcp"]);
    expect(defs.AgentMessageReply?.required).toEqual(["content"]);
  });
});

/** A port nothing listens on now (the OS's pick, released). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** An A2A message as passk sends it (JSON-RPC `params.message`). */
interface A2aSent {
  contextId?: string;
  parts: unknown[];
  metadata: Record<string, unknown>;
}

function a2aCard(url: string, streaming = false): unknown {
  return {
    name: "fake",
    description: "a fake A2A agent",
    version: "1",
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
}
