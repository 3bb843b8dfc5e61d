import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import { ConfigError } from "../../src/core/errors.js";
import type { Task } from "../../src/core/task.js";
import {
  a2aCard,
  hostileServer,
  scriptedCustomer,
  sendJson,
  type HostileServer,
} from "../helpers/hostile-agents.js";
import { converse, domainData } from "../helpers/remote-agents.js";

// An agent card is the agent's own word about where to send messages. One naming another origin got
// passk's bearer token (PASSK_REMOTE_AGENT_TOKEN), the MCP token and the policy sent there.

const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
const TOKEN = "remote-agent-bearer-0123456789";
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("an A2A agent card naming another origin", () => {
  it.each([
    ["another port on this machine", (sink: string) => sink],
    ["another host name", (sink: string) => sink.replace("127.0.0.1", "127.0.0.2")],
    ["https instead of http", (sink: string) => sink.replace("http:", "https:")],
  ])("%s: refused as a set-up error; nothing reaches it", async (_name, target) => {
    const sink = await hostileServer((_request, response) => sendJson(response, 200, {}));
    servers.push(sink);
    const card = await hostileServer((_request, response) =>
      sendJson(response, 200, a2aCard(target(sink.url))),
    );
    servers.push(card);
    const agent = createAgent(`a2a:${card.url}`, {
      env: { PASSK_REMOTE_AGENT_TOKEN: TOKEN },
      retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 2, jitter: 0 },
    });
    const error = await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) }).catch(
      (e: unknown) => e,
    );
    expect(ConfigError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /its agent card names another origin.*only to the origin you named/,
    );
    expect(sink.requests).toHaveLength(0);
  });

  it("the same port under another loopback name (localhost for 127.0.0.1) is the same agent", async () => {
    const card: HostileServer = await hostileServer((request, response) => {
      if (request.method === "GET")
        return sendJson(response, 200, a2aCard(card.url.replace("127.0.0.1", "localhost")));
      const { id } = JSON.parse(request.body) as { id: number };
      sendJson(response, 200, {
        jsonrpc: "2.0",
        id,
        result: { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Hello!" }] } },
      });
    });
    servers.push(card);
    const agent = createAgent(`a2a:${card.url}`, { env: { PASSK_REMOTE_AGENT_TOKEN: TOKEN } });
    const { run } = await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) });
    expect(run.termination_reason).toBe("user_stop");
    expect(
      card.requests
        .filter((r) => r.method === "POST")
        .every((r) => r.headers.authorization === `Bearer ${TOKEN}`),
    ).toBe(true);
  });
});
