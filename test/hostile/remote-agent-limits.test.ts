import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import { DEFAULT_MAX_AGENT_MESSAGE_BYTES } from "../../src/agents/remote/index.js";
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

// A remote agent's messages become the trajectory, the store and the results file: one that answers
// megabytes per turn took 1.2 GB of memory for one conversation. A message over the limit is the
// agent's own error, said in a sentence, and is never kept.

const fastRetry = { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5, jitter: 0 };
const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
const LIMIT = DEFAULT_MAX_AGENT_MESSAGE_BYTES;

const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function talkTo(spec: string, options: { maxAgentMessageBytes?: number } = {}) {
  const agent = createAgent(spec, { env: {}, retry: fastRetry, timeoutMs: 10_000, ...options });
  return converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hello"]) });
}

describe("a remote agent's reply over the size limit (HTTP protocol)", () => {
  const tooLarge: Array<[string, string]> = [
    ["one byte over the limit", "x".repeat(LIMIT + 1)],
    ["1 MB", "x".repeat(1024 * 1024)],
    ["multi-byte characters over the limit in bytes, not in characters", "é".repeat(LIMIT / 2 + 1)],
    ["escaped control characters", "\u0001".repeat(LIMIT + 1)],
  ];
  it.each(tooLarge)("%s: the agent's error, with a sentence, nothing kept", async (_name, reply) => {
    const agentSide = await hostileHttpAgent(() => reply);
    servers.push(agentSide);
    const { run } = await talkTo(`http:${agentSide.url}`);
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(
      new RegExp(`the agent sent .*over the limit of \\d+ bytes for one message.*--max-agent-message-bytes`),
    );
    expect(JSON.stringify(run).length).toBeLessThan(50_000);
    // Refused at once: not sent again.
    expect(agentSide.requests.filter((r) => r.path.endsWith("/messages"))).toHaveLength(1);
  });

  it("a 20 MB answer (under the transport's 32 MB cap) is not even read whole", async () => {
    const agentSide = await hostileHttpAgent((_c, _content, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = "x".repeat(1024 * 1024);
      response.write('{"content":"');
      let sent = 0;
      const pump = () => {
        while (sent < 20) {
          sent++;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end('"}');
      };
      response.on("close", () => (sent = Infinity));
      pump();
    });
    servers.push(agentSide);
    const { run } = await talkTo(`http:${agentSide.url}`);
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(
      /the agent sent an answer to POST \/conversations\/c1\/messages \(its JSON\) over the limit of \d+ bytes/,
    );
  });

  it("three conversations answered 20 MB each keep memory bounded", async () => {
    const agentSide = await hostileHttpAgent(() => "y".repeat(20 * 1024 * 1024));
    servers.push(agentSide);
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry: fastRetry });
    const before = process.memoryUsage().rss;
    const runs = await Promise.all(
      [1, 2, 3].map(() => converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hello"]) })),
    );
    expect(runs.map(({ run }) => run.termination_reason)).toEqual([
      "agent_error",
      "agent_error",
      "agent_error",
    ]);
    // Before, three such conversations held 2.3 GB; now each reads at most ~1 MB of the answer.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it("a reply at the limit is an ordinary message", async () => {
    const reply = "z".repeat(LIMIT);
    const agentSide = await hostileHttpAgent(() => reply);
    servers.push(agentSide);
    const { run } = await talkTo(`http:${agentSide.url}`);
    expect(run.termination_reason).toBe("user_stop");
    expect(run.messages.some((m) => m.role === "assistant" && m.content === reply)).toBe(true);
  });

  it.each([
    [2048, 2049, "agent_error"],
    [2048, 2048, "user_stop"],
    [1024 * 1024, 600 * 1024, "user_stop"],
  ] as const)("with a limit of %i bytes, a reply of %i bytes ends %s", async (limit, size, reason) => {
    const agentSide = await hostileHttpAgent(() => "w".repeat(size));
    servers.push(agentSide);
    const { run } = await talkTo(`http:${agentSide.url}`, { maxAgentMessageBytes: limit });
    expect(run.termination_reason).toBe(reason);
  });
});

describe("a remote agent's tool call over the size limit", () => {
  it.each([
    ["one long string", { user_id: "user_1", title: "t".repeat(LIMIT) }],
    ["many keys", Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`key_${i}`, i]))],
    [
      "deep nesting of lists",
      { user_id: "user_1", title: "x", extra: Array.from({ length: 100_000 }, () => [1, 2]) },
    ],
  ])("%s: refused to the agent, never reaches the world, the agent's error", async (_name, args) => {
    const agentSide = await hostileHttpAgent(async ({ start }) => {
      await callMcpTool(start.mcp, "create_task", args);
      return "Done.";
    });
    servers.push(agentSide);
    const { run } = await talkTo(`http:${agentSide.url}`);
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(
      /the agent sent a tool call \(create_task\) with arguments of \d+ bytes, over the limit/,
    );
    expect(run.messages.some((m) => m.role === "tool")).toBe(false);
    expect(JSON.stringify(run).length).toBeLessThan(50_000);
  });
});

describe("an A2A agent's answer over the size limit", () => {
  it("a 1 MB message", async () => {
    const fake: HostileServer = await hostileServer((request, response) => {
      if (request.method === "GET") return sendJson(response, 200, a2aCard(fake.url));
      const { id } = JSON.parse(request.body) as { id: number };
      sendJson(response, 200, {
        jsonrpc: "2.0",
        id,
        result: {
          message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "m".repeat(1024 * 1024) }] },
        },
      });
    });
    servers.push(fake);
    const { run } = await talkTo(`a2a:${fake.url}`);
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(/over the limit of \d+ bytes for one message/);
  });

  it("a flood of appended artifact chunks, streamed", async () => {
    const fake: HostileServer = await hostileServer((request, response) => {
      if (request.method === "GET") return sendJson(response, 200, a2aCard(fake.url, true));
      const { id } = JSON.parse(request.body) as { id: number };
      response.writeHead(200, { "content-type": "text/event-stream" });
      const event = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`;
      response.write(event({ task: { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } }));
      let sent = 0;
      const pump = () => {
        while (sent < 400) {
          sent++;
          const chunk = event({
            artifactUpdate: {
              taskId: "t",
              contextId: "c",
              append: true,
              artifact: { artifactId: "a", parts: [{ text: "a".repeat(64 * 1024) }] },
            },
          });
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end(
          event({ statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } }),
        );
      };
      response.on("close", () => (sent = Infinity));
      pump();
    });
    servers.push(fake);
    const { run } = await talkTo(`a2a:${fake.url}`);
    expect(run.termination_reason).toBe("agent_error");
    expect(errorOf(run)).toMatch(/the agent sent an A2A answer over the limit of 262144 bytes/);
  });
});
