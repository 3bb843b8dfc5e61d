import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import type { Agent } from "../../src/core/agent.js";
import type { Task } from "../../src/core/task.js";
import { DEFAULT_MAX_DURATION_MS } from "../../src/orchestrator/simulate.js";
import {
  a2aCard,
  errorOf,
  hostileHttpAgent,
  hostileServer,
  scriptedCustomer,
  sendJson,
  type HostileServer,
} from "../helpers/hostile-agents.js";
import { converse, domainData } from "../helpers/remote-agents.js";

// A remote agent decides how long passk waits: a Retry-After of a day (or one that overflows Node's
// timers), or an A2A stream that says "working" forever. Neither may hold a conversation without end.

const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
const retry = { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5, jitter: 0 };

const servers: HostileServer[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const farRetryAfters: Array<[string, Record<string, string>]> = [
  ["Retry-After: 86400 (a day)", { "retry-after": "86400" }],
  ["Retry-After: 100000", { "retry-after": "100000" }],
  ["Retry-After: 3000000 (past Node's 32-bit timers)", { "retry-after": "3000000" }],
  ["Retry-After: 121 (just past the ceiling)", { "retry-after": "121" }],
  ["Retry-After as a date in 2099", { "retry-after": "Wed, 21 Oct 2099 07:28:00 GMT" }],
  ["retry-after-ms: 1e12", { "retry-after-ms": "1e12" }],
];

describe("a remote agent's Retry-After beyond passk's ceiling (120 s, as for model calls)", () => {
  for (const phase of ["while answering", "when the conversation starts"] as const) {
    it.each(farRetryAfters)(
      `${phase}, %s: an infrastructure error at once, with a sentence`,
      async (_name, headers) => {
        const warnings: string[] = [];
        const onWarning = (warning: Error) => warnings.push(warning.name);
        process.on("warning", onWarning);
        try {
          const tooBusy = (response: ServerResponse) => {
            response.writeHead(429, { "content-type": "text/plain", ...headers });
            response.end("slow down");
          };
          const agentSide =
            phase === "when the conversation starts"
              ? await hostileServer((_request, response) => tooBusy(response))
              : await hostileHttpAgent((_c, _content, response) => tooBusy(response));
          servers.push(agentSide);
          const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry });
          const started = Date.now();
          const { run } = await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) });
          expect(Date.now() - started).toBeLessThan(5_000);
          expect(run.termination_reason).toBe("infrastructure_error");
          expect(errorOf(run)).toMatch(
            /asked passk to wait \d+ s \(Retry-After\) while (answering|starting the conversation), longer than the 120 s passk waits/,
          );
          expect(warnings).not.toContain("TimeoutOverflowWarning");
        } finally {
          process.off("warning", onWarning);
        }
      },
    );
  }

  it("a Retry-After within the ceiling is honoured and the conversation goes on", async () => {
    let attempts = 0;
    const agentSide = await hostileHttpAgent((_c, _content, response) => {
      if (++attempts > 1) return "All good.";
      response.writeHead(429, { "retry-after": "1" });
      response.end("slow down");
    });
    servers.push(agentSide);
    const started = Date.now();
    const agent = createAgent(`http:${agentSide.url}`, { env: {}, retry });
    const { run } = await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) });
    expect(run.termination_reason).toBe("user_stop");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});

describe("an A2A agent streaming `working` for ever", () => {
  it("the conversation's wall-clock limit ends it as an infrastructure error, and the stream is closed", async () => {
    let closed = false;
    const fake: HostileServer = await hostileServer((request, response) => {
      if (request.method === "GET") return sendJson(response, 200, a2aCard(fake.url, true));
      const { id } = JSON.parse(request.body) as { id: number };
      response.writeHead(200, { "content-type": "text/event-stream" });
      const working = () =>
        response.write(
          `data: ${JSON.stringify({ jsonrpc: "2.0", id, result: { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } } })}\n\n`,
        );
      const interval = setInterval(working, 20);
      response.on("close", () => {
        closed = true;
        clearInterval(interval);
      });
    });
    servers.push(fake);
    const agent = createAgent(`a2a:${fake.url}`, { env: {}, retry, timeoutMs: 500 });
    const started = Date.now();
    const { run } = await converse({
      domain: "mock",
      task,
      agent,
      user: scriptedCustomer(["Hi"]),
      maxDurationMs: 1_500,
    });
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(errorOf(run)).toMatch(/ran past its wall-clock limit of 1\.5 s/);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect.poll(() => closed).toBe(true);
  });

  it("without --max-sim-seconds every conversation still ends at the default ceiling of one hour", async () => {
    expect(DEFAULT_MAX_DURATION_MS).toBe(3_600_000);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // An agent that keeps working for ever (it honours the conversation's signal, as every agent must).
    const endless: Agent = {
      name: "endless",
      start: async ({ signal }) => ({
        respond: () =>
          new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
      }),
    };
    let ended = false;
    const conversation = converse({ domain: "mock", task, agent: endless, user: scriptedCustomer(["Hi"]) });
    void conversation.then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(DEFAULT_MAX_DURATION_MS - 1_000);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const { run } = await conversation;
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(errorOf(run)).toMatch(/ran past its wall-clock limit of 3600 s \(--max-sim-seconds\)/);
  });
});
