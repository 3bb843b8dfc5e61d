import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import type { Task } from "../../src/core/task.js";
import {
  a2aCard,
  errorOf,
  hostileServer,
  scriptedCustomer,
  sendJson,
  type HostileServer,
} from "../helpers/hostile-agents.js";
import { converse, domainData } from "../helpers/remote-agents.js";

// Malformed A2A answers end as infrastructure errors, as before — but with a sentence saying what was
// malformed, not a raw JavaScript message ("Cannot read properties of undefined (reading 'task')").

const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
const retry = { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 2, jitter: 0 };
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function talk(answer: (id: unknown) => unknown, card?: (url: string) => unknown) {
  const fake: HostileServer = await hostileServer((request, response) => {
    if (request.method === "GET") return sendJson(response, 200, (card ?? a2aCard)(fake.url));
    const { id } = JSON.parse(request.body) as { id: unknown };
    sendJson(response, 200, answer(id));
  });
  servers.push(fake);
  const agent = createAgent(`a2a:${fake.url}`, { env: {}, retry });
  return (await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) })).run;
}

const RAW_JS = /Cannot read properties|is not a function|is not iterable|reading '/;

describe("a malformed A2A JSON-RPC answer", () => {
  it.each([
    ["no result and no error", (id: unknown) => ({ jsonrpc: "2.0", id })],
    ["a null result", (id: unknown) => ({ jsonrpc: "2.0", id, result: null })],
    ["a string result", (id: unknown) => ({ jsonrpc: "2.0", id, result: "done" })],
    [
      "a task whose status is a string",
      (id: unknown) => ({
        jsonrpc: "2.0",
        id,
        result: { task: { id: "t", contextId: "c", status: "done" } },
      }),
    ],
    ["an empty object", () => ({})],
  ])("%s: the agent's own malformed answer, with a sentence, no raw JavaScript", async (_name, answer) => {
    const run = await talk(answer);
    expect(run.termination_reason, errorOf(run)).toBe("agent_error");
    expect(errorOf(run)).toMatch(/malformed|not A2A|A2A/);
    expect(errorOf(run)).not.toMatch(RAW_JS);
  });

  it.each([
    [
      "interfaces that are not a list",
      (url: string) => ({ ...(a2aCard(url) as object), supportedInterfaces: 5 }),
    ],
    [
      "an interface without a binding",
      (url: string) => ({ ...(a2aCard(url) as object), supportedInterfaces: [{ url }] }),
    ],
    ["a card that is a list", () => []],
    ["a card that is a number", () => 42],
  ])("a garbage agent card (%s): a sentence, no raw JavaScript", async (_name, card) => {
    const error = await talk(() => ({}), card).then(
      (run) => errorOf(run),
      (e: unknown) => String(e),
    );
    expect(error).not.toMatch(RAW_JS);
    expect(error).not.toBe("");
  });
});
