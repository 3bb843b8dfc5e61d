import { describe, expect, it } from "vitest";
import type { Agent, UserSimulator } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import type { Judge } from "../core/judge.js";
import { goldAgent } from "../agents/gold-agent.js";
import { startAgent, taskReadingAgent } from "../core/task-reading-agent.js";
import { builtinDomains } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { tau2DataDir, fixtureDomainData } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { hc } from "hono/client";
import {
  ConversationDetailSchema,
  ConversationListSchema,
  DocumentSearchResponseSchema,
  DomainDetailSchema,
  SequencedEventSchema,
  TaskPageSchema,
  type SequencedEvent,
} from "./api-schemas.js";
import { createMemoryConversationStore } from "../store/conversation-store.js";
import { HUMAN_PACED_REPLAY, SCRIPTED_REPLAY_NOTICE } from "./scripted-replay.js";
import { MAX_JSON_BODY_BYTES, createServer, type AppType } from "./create-server.js";
import type { Participants, ServerDeps } from "./server-deps.js";

const SECRET = "sk-test-0123456789abcdefSECRET";

function participants(overrides: Partial<Participants> = {}): Participants {
  return {
    agents: ["scripted:gold"],
    users: ["scripted:gold"],
    agentFor: () => goldAgent,
    customerFor: () => goldUser,
    ...overrides,
  };
}

// Parsed domain data is shared by the servers of this file (each test builds its own server).
const catalog = new DomainCatalog();
const loadDomainData = (domain: AnyDomain, dataDir: string) => catalog.load(domain, { dataDir });

function server(deps: Partial<ServerDeps> = {}) {
  return createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    loadDomainData,
    participants: participants(),
    secrets: [SECRET],
    ...deps,
  });
}

type App = ReturnType<typeof server>;

/** The owner tokens of the conversations these tests started: they control their own conversations. */
const ownerTokens = new Map<string, string>();

async function post(app: App, path: string, body: unknown) {
  const controlled = /^\/api\/conversations\/([^/]+)\/(messages|end)$/.exec(path)?.[1];
  const token = controlled === undefined ? undefined : ownerTokens.get(controlled);
  const response = await app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { "Passk-Owner-Token": token } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  if (path === "/api/conversations" && response.status === 201) {
    const started = (await response.clone().json()) as { conversationId: string; ownerToken: string };
    ownerTokens.set(started.conversationId, started.ownerToken);
  }
  return response;
}

/** Read a conversation's SSE stream until `until` holds (or the stream ends). */
async function readEvents(
  app: App,
  conversationId: string,
  until: (event: SequencedEvent) => boolean = () => false,
  after = -1,
): Promise<SequencedEvent[]> {
  const response = await app.request(`/api/conversations/${conversationId}/events?after=${after}`);
  expect(response.headers.get("Content-Type")).toContain("text/event-stream");
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: SequencedEvent[] = [];
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (!data) continue;
      const event = SequencedEventSchema.parse(JSON.parse(data));
      events.push(event);
      if (until(event)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

async function start(app: App, body: Record<string, unknown>): Promise<string> {
  const response = await post(app, "/api/conversations", body);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { conversationId: string }).conversationId;
}

describe("playground API", () => {
  it("lists the domains with data, the offered participants and the budget", async () => {
    const response = await server({ limits: { dailySpendCapUsd: 5 } }).request("/api/info");
    expect(response.status).toBe(200);
    const info = (await response.json()) as Record<string, unknown>;
    expect(info.agents).toEqual(["scripted:gold"]);
    expect(info.domains).toContainEqual({
      name: "mock",
      description: expect.any(String),
      taskCount: 10,
      hasUserTools: true,
    });
    expect(info.budget).toMatchObject({ capUsd: 5, spentUsd: 0, exhausted: false });
  });

  it("streams a simulated conversation: tool cards, field-level world diffs, then the reward", async () => {
    const app = server();
    const id = await start(app, { domain: "mock", taskId: "create_task_1", mode: "simulate" });
    const events = await readEvents(app, id);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("conversation-start");
    expect(types.at(-1)).toBe("conversation-end");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));

    const callEnd = events.find((e) => e.type === "tool-call-end");
    expect(callEnd).toMatchObject({
      call: { name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } },
    });
    expect(callEnd?.type === "tool-call-end" && callEnd.latencyMs).toBeGreaterThanOrEqual(0);

    // The mock DB has task_1 (of user_1); creating one adds task_2 and lists it under user_1.
    const change = events.find((e) => e.type === "world-change" && e.side === "agent");
    expect(change?.type === "world-change" && change.records).toEqual([
      {
        collection: "tasks",
        id: "task_2",
        kind: "added",
        fields: [
          { path: "task_id", before: null, after: "task_2" },
          { path: "title", before: null, after: "Important Meeting" },
          { path: "description", before: null, after: null },
          { path: "status", before: null, after: "pending" },
        ],
      },
      {
        collection: "users",
        id: "user_1",
        kind: "changed",
        fields: [{ path: "tasks", before: ["task_1"], after: ["task_1", "task_2"] }],
      },
    ]);
    const reward = events.find((e) => e.type === "reward");
    expect(reward?.type === "reward" && reward.rewardInfo.reward).toBe(1);
    expect(reward?.type === "reward" && reward.failedChecks).toEqual([]);
    expect(events.find((e) => e.type === "simulation-end")).toMatchObject({ terminationReason: "user_stop" });

    // A client that reconnects after event 3 gets the rest only.
    const rest = await readEvents(app, id, undefined, 3);
    expect(rest[0]?.seq).toBe(4);
    expect(rest.length).toBe(events.length - 4);
  });

  it("sends the records an agent's call names and the records it changed, whole, as the world holds them", async () => {
    const app = server();
    // Airline task 11: the gold agent moves GV1N64 (business, two flights) down to basic economy.
    const id = await start(app, { domain: "airline", taskId: "11", mode: "simulate" });
    const events = await readEvents(app, id);
    const callEnd = events.find(
      (e) => e.type === "tool-call-end" && e.call.name === "update_reservation_flights",
    );
    const named = callEnd?.type === "tool-call-end" ? (callEnd.records ?? []) : [];
    expect(named.map((r) => `${r.collection}/${r.id}`)).toEqual(["reservations/GV1N64"]);
    // As the world holds it after the call, not before.
    expect(named[0]!.record).toMatchObject({ reservation_id: "GV1N64", cabin: "basic_economy" });
    const change = events.find((e) => e.type === "world-change" && e.side === "agent");
    const current = change?.type === "world-change" ? (change.current ?? []) : [];
    expect(current.find((r) => r.collection === "reservations" && r.id === "GV1N64")?.record).toEqual(
      named[0]!.record,
    );
    const fields =
      change?.type === "world-change" ? change.records.find((r) => r.id === "GV1N64")?.fields : [];
    expect(fields).toContainEqual({ path: "cabin", before: "business", after: "basic_economy" });
  });

  it("lets a person type as the customer and grades the conversation when they end it", async () => {
    const app = server();
    const id = await start(app, { domain: "mock", taskId: "create_task_1", mode: "human" });
    const opening = await readEvents(app, id, (e) => e.type === "awaiting-customer");
    expect(
      opening.filter((e) => e.type === "message").map((e) => e.type === "message" && e.message.content),
    ).toEqual(["Hi! How can I help you today?"]);
    // Typing while the agent is not waiting is refused with 409, and the server goes on.
    expect((await post(app, `/api/conversations/${id}/messages`, { content: "hello" })).status).toBe(200);
    const early = await post(app, `/api/conversations/${id}/messages`, { content: "too soon?" });
    if (early.status !== 200) expect(early.status).toBe(409);

    const answered = await readEvents(app, id, (e) => e.type === "awaiting-customer", opening.at(-1)!.seq);
    const agentTurns = answered.filter((e) => e.type === "message" && e.message.role === "assistant");
    expect(agentTurns.length).toBeGreaterThan(0);

    expect((await post(app, `/api/conversations/${id}/end`, {})).status).toBe(200);
    const end = await readEvents(app, id, undefined, answered.at(-1)!.seq);
    expect(end.at(-1)).toMatchObject({ type: "conversation-end", reason: "finished" });
    expect(end.find((e) => e.type === "simulation-end")).toMatchObject({ terminationReason: "user_stop" });
    expect(end.some((e) => e.type === "reward")).toBe(true);
  });

  it("grades a person's conversation ended while the agent is answering, once the agent's turn is over", async () => {
    // The gold agent, held mid-turn after its greeting until the test lets it answer.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const heldAgent: Agent = taskReadingAgent({ name: "held-gold" }, async (init, task) => {
      const session = await startAgent(goldAgent, init, task);
      let turns = 0;
      return {
        respond: async (incoming) => {
          if (turns++ === 1) await held;
          return session.respond(incoming);
        },
      };
    });
    const app = server({ participants: participants({ agentFor: () => heldAgent }) });
    const id = await start(app, { domain: "mock", taskId: "create_task_1", mode: "human" });
    const opening = await readEvents(app, id, (e) => e.type === "awaiting-customer");
    expect((await post(app, `/api/conversations/${id}/messages`, { content: "hello" })).status).toBe(200);
    expect((await post(app, `/api/conversations/${id}/end`, {})).status).toBe(200);
    release();
    const end = await readEvents(app, id, undefined, opening.at(-1)!.seq);
    expect(end.at(-1)).toMatchObject({ type: "conversation-end", reason: "finished" });
    expect(end.find((e) => e.type === "simulation-end")).toMatchObject({ terminationReason: "user_stop" });
    expect(end.some((e) => e.type === "reward")).toBe(true);
    // The agent's held turn was answered, not thrown away.
    expect(end.some((e) => e.type === "message" && e.message.role === "assistant")).toBe(true);
  });

  it("a person stopping a simulated conversation ends it as stopped: ungraded, nobody's failure", async () => {
    // A simulated customer whose model call is in flight (it waits until aborted, as a fetch would).
    const waitingUser: UserSimulator = {
      name: "slow-user",
      start: ({ signal }) => ({
        respond: () =>
          new Promise((_, reject) =>
            signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
          ),
      }),
    };
    const app = server({ participants: participants({ customerFor: () => waitingUser }) });
    const id = await start(app, { domain: "mock", taskId: "create_task_1", mode: "simulate" });
    await readEvents(app, id, (e) => e.type === "message");
    expect((await post(app, `/api/conversations/${id}/end`, {})).status).toBe(200);
    const events = await readEvents(app, id);
    expect(events.at(-1)).toMatchObject({ type: "conversation-end", reason: "abandoned" });
    expect(events.some((e) => e.type === "reward")).toBe(false);
    expect(events.some((e) => e.type === "simulation-end")).toBe(false);
  });

  it("lets the person use their own tools (the telecom phone) and streams the phone's new state", async () => {
    const app = server();
    const id = await start(app, {
      domain: "telecom",
      taskId: "[service_issue]airplane_mode_on[PERSONA:None]",
      mode: "human",
    });
    const opening = await readEvents(app, id, (e) => e.type === "awaiting-customer");
    const device = (e: SequencedEvent | undefined) =>
      e?.type === "user-state" ? (e.state as { device: { airplane_mode: boolean } }).device : undefined;
    expect(device(opening.find((e) => e.type === "user-state"))?.airplane_mode).toBe(true);
    const bad = await post(app, `/api/conversations/${id}/messages`, {
      content: "x",
      toolCall: { name: "toggle_airplane_mode" },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/either \{content/);
    expect(
      (await post(app, `/api/conversations/${id}/messages`, { toolCall: { name: "toggle_airplane_mode" } }))
        .status,
    ).toBe(200);
    const after = await readEvents(app, id, (e) => e.type === "awaiting-customer", opening.at(-1)!.seq);
    expect(after.find((e) => e.type === "tool-call-end")).toMatchObject({
      call: { name: "toggle_airplane_mode", requestor: "user" },
      result: { error: false },
    });
    expect(after.find((e) => e.type === "world-change")).toMatchObject({ side: "user" });
    expect(device(after.filter((e) => e.type === "user-state").at(-1))?.airplane_mode).toBe(false);
    await post(app, `/api/conversations/${id}/end`, {});
  });

  it("streams the customer's own state when the domain has a user database", async () => {
    const app = server();
    const id = await start(app, { domain: "mock", taskId: "update_task_with_user_tools", mode: "simulate" });
    const events = await readEvents(app, id);
    const states = events.filter((e) => e.type === "user-state");
    expect(states.length).toBeGreaterThan(0);
  });
});

describe("a customer that can answer the agent", () => {
  it("refuses to simulate a model agent with the scripted customer, and lets a person play the customer", async () => {
    const app = server({
      participants: participants({ agents: ["scripted:gold", "openai-compatible:x"] }),
    });
    const refused = await post(app, "/api/conversations", {
      domain: "mock",
      taskId: "create_task_1",
      mode: "simulate",
      agent: "openai-compatible:x",
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toBe(
      "the scripted customer scripted:gold only follows scripted:gold's gold path and cannot answer openai-compatible:x: " +
        "start passk serve with --user-llm <provider>:<model>, or play the customer yourself",
    );
    const human = await post(app, "/api/conversations", {
      domain: "mock",
      taskId: "create_task_1",
      mode: "human",
      agent: "openai-compatible:x",
    });
    expect(human.status).toBe(201);
    const { conversationId } = (await human.json()) as { conversationId: string };
    await app.request(`/api/conversations/${conversationId}/end`, { method: "POST" });
  });
});

describe("the keyless playground: a paced replay of the gold path", () => {
  it("says what it is, paces every message, and the customer opens with the chip's line, never its instructions", async () => {
    const paceMs = 40;
    const app = server({ scriptedReplay: { ...HUMAN_PACED_REPLAY, paceMs: () => paceMs } });
    const info = (await (await app.request("/api/info")).json()) as { scriptedReplay: unknown };
    expect(info.scriptedReplay).toEqual(SCRIPTED_REPLAY_NOTICE);
    const detail = (await (await app.request("/api/domains/airline")).json()) as {
      scenarios: Array<{ taskId: string; openingLine: string }>;
    };
    expect(detail.scenarios).toHaveLength(5);
    const airline = fixtureDomainData("airline");
    for (const chip of detail.scenarios) {
      const began = Date.now();
      const id = await start(app, { domain: "airline", taskId: chip.taskId, mode: "simulate" });
      const events = await readEvents(app, id);
      const elapsed = Date.now() - began;
      const messages = events.flatMap((e) =>
        e.type === "message" && e.message.role !== "tool" ? [e.message] : [],
      );
      const said = messages.filter((m) => m.role === "user" && typeof m.content === "string");
      expect(said[0]!.content, chip.taskId).toBe(chip.openingLine);
      const instructions = airline.task(chip.taskId).user_scenario.instructions;
      const written = (typeof instructions === "string" ? [instructions] : Object.values(instructions))
        .filter((text): text is string => typeof text === "string")
        .flatMap((text) => text.split(/\n+/))
        .map((line) => line.trim())
        .filter((line) => line.length > 20);
      for (const message of said)
        for (const line of written) expect(message.content, chip.taskId).not.toContain(line);
      // Every message but the greeting (history) waited its pace.
      expect(elapsed, chip.taskId).toBeGreaterThanOrEqual((messages.length - 1) * paceMs);
      expect(events.at(-1)).toMatchObject({ type: "conversation-end" });
    }
  });

  it("is off with models: no notice, and the scripted customer opens as the task says", async () => {
    const app = server();
    const info = (await (await app.request("/api/info")).json()) as { scriptedReplay: unknown };
    expect(info.scriptedReplay).toBeNull();
  });
});

describe("input validation", () => {
  it("answers malformed requests with 400 and a reason, and keeps serving", async () => {
    const app = server();
    const cases: Array<[string, unknown, number, RegExp]> = [
      ["/api/conversations", "{not json", 400, /Malformed JSON/],
      ["/api/conversations", {}, 400, /body\.domain/],
      ["/api/conversations", { domain: "mock", mode: "simulate" }, 400, /taskId is required/],
      ["/api/conversations", { domain: "mock", mode: "dance", taskId: "x" }, 400, /body\.mode/],
      ["/api/conversations", { domain: "mock", mode: "human", extra: 1 }, 400, /extra/],
      ["/api/conversations", { domain: "airlines", mode: "human" }, 404, /domain "airlines" is not known/],
      ["/api/conversations", { domain: "mock", mode: "human", taskId: "nope" }, 404, /mock task "nope"/],
      ["/api/conversations", { domain: "mock", mode: "human", agent: "openai:gpt-5" }, 400, /not offered/],
      ["/api/conversations/nope/messages", { content: "" }, 400, /content must not be empty/],
      ["/api/conversations/nope/messages", { content: "hi" }, 404, /conversation "nope"/],
      ["/api/runs/import", "{}", 404, /no run store/],
    ];
    for (const [path, body, status, message] of cases) {
      const response = await post(app, path, body);
      const answer = (await response.json()) as { code: string; message: string };
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(answer.message).toMatch(message);
      expect(typeof answer.code).toBe("string");
    }
    const notJson = await app.request("/api/conversations", { method: "POST", body: "domain=mock" });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { message: string }).message).toMatch(
      /Content-Type: application\/json/,
    );
    // An oversized body is refused before it is read in full.
    const huge = await post(app, "/api/conversations", {
      domain: "mock",
      mode: "human",
      padding: "x".repeat(MAX_JSON_BODY_BYTES),
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { message: string }).message).toMatch(/request body is larger than/);
    const longMessage = await post(app, "/api/conversations/nope/messages", {
      content: "x".repeat(2 * MAX_JSON_BODY_BYTES),
    });
    expect(longMessage.status).toBe(413);
    expect((await app.request("/api/nothing-here")).status).toBe(404);
    expect((await app.request("/api/conversations/x/events?after=abc")).status).toBe(400);
    expect((await app.request("/api/info")).status).toBe(200);
  });

  it("answers unexpected failures with a bare 500 and PasskErrors without secrets", async () => {
    const failing = server({
      participants: participants({
        agentFor: () => {
          throw new Error(`database password hunter2 and ${SECRET}`);
        },
      }),
    });
    const crash = await post(failing, "/api/conversations", { domain: "mock", mode: "human" });
    expect(crash.status).toBe(500);
    expect(await crash.json()).toEqual({ code: "internal_error", message: "Internal server error" });

    const misconfigured = server({
      participants: participants({
        agentFor: () => {
          throw new ConfigError(`provider rejected key ${SECRET}`);
        },
      }),
    });
    const refused = await post(misconfigured, "/api/conversations", { domain: "mock", mode: "human" });
    expect(refused.status).toBe(400);
    const text = await refused.text();
    expect(text).toContain("[redacted]");
    expect(text).not.toContain(SECRET);
  });

  it("never streams a key a participant leaks", async () => {
    const leaky: Agent = {
      name: "leaky",
      start: () => ({
        respond: async () => {
          throw new Error(`401 from provider: invalid key ${SECRET}`);
        },
      }),
    };
    const app = server({ participants: participants({ agentFor: () => leaky }) });
    const id = await start(app, { domain: "mock", taskId: "create_task_1", mode: "simulate" });
    const response = await app.request(`/api/conversations/${id}/events`);
    const text = await response.text();
    expect(text).toContain("agent_error");
    expect(text).toContain("[redacted]");
    expect(text).not.toContain(SECRET);
  });
});

describe("public deployment limits", () => {
  it("rate-limits each client with 429, Retry-After and a clear message", async () => {
    let clock = new Date("2025-06-01T10:00:00Z");
    const app = server({
      now: () => clock,
      trustProxy: true,
      limits: { rateLimitMax: 2, rateLimitWindowMs: 60_000 },
    });
    const from = (ip: string) =>
      app.request("/api/conversations", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": ip },
        body: JSON.stringify({ domain: "mock", mode: "human" }),
      });
    expect((await from("10.0.0.1")).status).toBe(201);
    expect((await from("10.0.0.1")).status).toBe(201);
    const third = await from("10.0.0.1");
    expect(third.status).toBe(429);
    expect(third.headers.get("Retry-After")).toBe("60");
    expect(await third.json()).toEqual({
      code: "rate_limited",
      message: "Too many requests from your address: at most 2 per minute. Try again in 60 s.",
    });
    // Another client is not affected; reading is not limited; the window passes.
    expect((await from("10.0.0.2")).status).toBe(201);
    expect((await app.request("/api/info")).status).toBe(200);
    clock = new Date(clock.getTime() + 60_000);
    expect((await from("10.0.0.1")).status).toBe(201);
  });

  it("runs a simulated conversation with the perturbations it names; a bad one is a 400 naming it", async () => {
    const app = server();
    const info = (await (await app.request("/api/info")).json()) as {
      perturbations: Array<{ name: string }>;
    };
    expect(info.perturbations.map((p) => p.name)).toEqual(expect.arrayContaining(["tool-faults", "persona"]));
    const id = await start(app, {
      domain: "mock",
      mode: "simulate",
      taskId: "create_task_1",
      perturbations: ["tool-faults:rate=1,kinds=transient"],
    });
    const events = await readEvents(app, id, (e) => e.type === "conversation-end");
    expect(events[0]).toMatchObject({
      type: "conversation-start",
      perturbations: ["tool-faults@1:kinds=transient,rate=1"],
    });
    const faulted = events.filter(
      (e) => e.type === "tool-call-end" && (e.result as { perturbations?: unknown }).perturbations,
    );
    expect(faulted.length).toBeGreaterThan(0);

    const unknown = await post(app, "/api/conversations", {
      domain: "mock",
      mode: "simulate",
      taskId: "create_task_1",
      perturbations: ["no-such-thing"],
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toMatch(
      /^perturbations: .*no-such-thing/,
    );
    const human = await post(app, "/api/conversations", {
      domain: "mock",
      mode: "human",
      perturbations: ["tool-faults"],
    });
    expect(human.status).toBe(400);
  });

  it("grades a playground conversation with the run's pipeline: the judge's cost is recorded and spent", async () => {
    // A judge whose one model call costs $0.125 and that finds every assertion met.
    const judge: Judge = {
      judge: async ({ assertions, onCost }) => {
        onCost?.(0.125);
        return assertions.map((nl_assertion) => ({ nl_assertion, met: true, justification: "seen" }));
      },
    };
    const app = server({ judge, limits: { dailySpendCapUsd: 5 } });
    // Retail task 2 grades NL assertions too.
    const id = await start(app, { domain: "retail", mode: "simulate", taskId: "2" });
    const events = await readEvents(app, id, (e) => e.type === "conversation-end");
    const reward = events.find((e) => e.type === "reward");
    expect(reward).toMatchObject({ rewardInfo: { info: { judge_cost: 0.125 } } });
    expect(events.at(-1)).toMatchObject({ type: "conversation-end", reason: "finished" });
    const budget = (await (await app.request("/api/budget")).json()) as { spentUsd: number };
    // The scripted participants cost nothing: what was spent is the judge's.
    expect(budget.spentUsd).toBeCloseTo(0.125, 10);
  });

  it("refuses new conversations once the daily cap is spent, stops running ones, resets the next day", async () => {
    let clock = new Date("2025-06-01T10:00:00Z");
    // Every agent turn costs $0.30; the cap is $0.50.
    const pricey: Agent = {
      name: "pricey",
      start: () => ({
        respond: async () => ({
          role: "assistant",
          content: "Sure, tell me more.",
          cost: 0.3,
          usage: { prompt_tokens: 100, completion_tokens: 10 },
        }),
      }),
    };
    const app = server({
      now: () => clock,
      participants: participants({ agentFor: () => pricey }),
      limits: { dailySpendCapUsd: 0.5 },
    });
    const id = await start(app, { domain: "mock", mode: "human" });
    let seen = await readEvents(app, id, (e) => e.type === "awaiting-customer");
    for (const text of ["hello", "again"]) {
      expect((await post(app, `/api/conversations/${id}/messages`, { content: text })).status).toBe(200);
      seen = await readEvents(app, id, (e) => e.type === "awaiting-customer", seen.at(-1)!.seq);
    }
    const budget = (await (await app.request("/api/budget")).json()) as {
      spentUsd: number;
      exhausted: boolean;
    };
    expect(budget.spentUsd).toBeCloseTo(0.6, 10);
    expect(budget.exhausted).toBe(true);

    const refused = await post(app, "/api/conversations", { domain: "mock", mode: "human" });
    expect(refused.status).toBe(429);
    // Come back when the day's budget resets.
    expect(Number(refused.headers.get("Retry-After"))).toBe(
      Math.ceil((Date.parse("2025-06-02T00:00:00Z") - clock.getTime()) / 1000),
    );
    expect(await refused.json()).toEqual({
      code: "spend_cap_reached",
      message:
        "Today's spending cap of $0.50 is reached: new conversations are refused until 2025-06-02T00:00:00.000Z " +
        "(conversations running when it was reached were stopped).",
    });

    // The running conversation was stopped at the model call that reached the cap.
    expect(seen.at(-1)).toMatchObject({
      type: "conversation-end",
      reason: "abandoned",
      message: "the conversation was stopped: today's spending cap is reached",
    });

    clock = new Date("2025-06-02T00:00:01Z");
    expect((await post(app, "/api/conversations", { domain: "mock", mode: "human" })).status).toBe(201);
  });

  it("refuses conversations beyond the concurrency limit and abandons idle people", async () => {
    const app = server({ limits: { maxActive: 1, humanIdleMs: 50 } });
    const id = await start(app, { domain: "mock", mode: "human" });
    const busy = await post(app, "/api/conversations", { domain: "mock", mode: "human" });
    expect(busy.status).toBe(503);
    expect(busy.headers.get("Retry-After")).toBe("10");
    const events = await readEvents(app, id);
    expect(events.at(-1)).toMatchObject({ type: "conversation-end", reason: "abandoned" });
    expect((await post(app, "/api/conversations", { domain: "mock", mode: "human" })).status).toBe(201);
  });
});

describe("participants", () => {
  it("uses the user simulator the browser picked among those offered", async () => {
    const named: string[] = [];
    const app = server({
      participants: participants({
        users: ["scripted:gold", "scripted:other"],
        customerFor: (spec): UserSimulator => {
          named.push(spec);
          return goldUser;
        },
      }),
    });
    const id = await start(app, {
      domain: "mock",
      taskId: "create_task_1",
      mode: "simulate",
      user: "scripted:other",
    });
    const events = await readEvents(app, id);
    expect(named).toEqual(["scripted:other"]);
    expect(events[0]).toMatchObject({
      type: "conversation-start",
      user: "scripted:other",
      agent: "scripted:gold",
    });
  });
});

describe("kept conversations", () => {
  it("a conversation's link opens it after a restart: finished ones whole, running ones ended as interrupted", async () => {
    const conversations = createMemoryConversationStore<SequencedEvent>();
    const first = server({ conversations });
    // A finished simulation, and a person's conversation still waiting for them when the server stops.
    const finished = await start(first, { domain: "mock", taskId: "create_task_1", mode: "simulate" });
    const finishedEvents = await readEvents(first, finished);
    const waiting = await start(first, { domain: "mock", taskId: "create_task_1", mode: "human" });
    const before = await readEvents(first, waiting, (e) => e.type === "awaiting-customer");
    // Kept as it goes (batched): wait until the store has what the reader saw.
    await expect.poll(() => conversations.get(waiting)?.events.length).toBe(before.length);

    const second = server({ conversations });
    expect(await readEvents(second, finished)).toEqual(finishedEvents);
    const reopened = await readEvents(second, waiting);
    expect(reopened.slice(0, before.length)).toEqual(before);
    expect(reopened.at(-1)).toMatchObject({
      seq: before.length,
      type: "conversation-end",
      reason: "interrupted",
    });
    // A reader resuming after what it has gets only the end.
    expect(await readEvents(second, waiting, undefined, before.at(-1)!.seq)).toEqual([reopened.at(-1)]);
    const detail = ConversationDetailSchema.parse(
      await (await second.request(`/api/conversations/${waiting}`)).json(),
    );
    expect(detail).toMatchObject({ live: false, conversation: { status: "interrupted", mode: "human" } });
    // Listed only when asked for by id (a browser lists those it started): no one learns others' links.
    const unasked = ConversationListSchema.parse(await (await second.request("/api/conversations")).json());
    expect(unasked.conversations).toEqual([]);
    const list = ConversationListSchema.parse(
      await (await second.request(`/api/conversations?ids=${finished},${waiting}`)).json(),
    );
    expect(list.conversations.map((c) => [c.id, c.status])).toEqual([
      [waiting, "interrupted"],
      [finished, "finished"],
    ]);
    expect(list.conversations[1]).toMatchObject({
      reward: 1,
      terminationReason: "user_stop",
      domain: "mock",
      taskId: "create_task_1",
    });
    // Typing into it is refused: it is not running here.
    expect((await post(second, `/api/conversations/${waiting}/messages`, { content: "hello?" })).status).toBe(
      404,
    );
    expect((await second.request("/api/conversations/not-a-conversation/events")).status).toBe(404);
  });
});

describe("typed client", () => {
  it("reaches every area of the API through hc<AppType>, with answers the shared schemas accept", async () => {
    const app = server();
    const client = hc<AppType>("http://localhost", {
      fetch: (input: Request | string | URL, init?: RequestInit) => app.request(input, init),
    });
    const info = await client.api.info.$get();
    expect(info.status).toBe(200);
    const domain = await client.api.domains[":domain"].$get({ param: { domain: "airline" } });
    const detail = DomainDetailSchema.parse(await domain.json());
    // Scenario chips are real requests, one per kind, each with the customer's opening line.
    expect(detail.scenarios.map((c) => c.kind)).toEqual([
      "happy-path",
      "policy-driven",
      "trap",
      "lookup",
      "contradiction",
    ]);
    for (const chip of detail.scenarios) {
      expect(detail.tasks.some((t) => t.id === chip.taskId)).toBe(true);
      expect(chip.openingLine.length).toBeGreaterThan(10);
    }
    const started = await client.api.conversations.$post({
      json: { domain: "mock", taskId: "create_task_1", mode: "simulate" },
    });
    expect(started.status).toBe(201);
    const score = await client.api.domains[":domain"]["agent-score"].$get({
      param: { domain: "mock" },
      query: { agent: "scripted:gold" },
    });
    // No store: the score is unknown, not an error.
    expect(await score.json()).toEqual({ agent: "scripted:gold", domain: "mock", run: null });
    const runs = await client.api.runs.$get();
    expect(runs.status).toBe(404);
  });

  it("offers at least five real requests in each of τ²'s domains", async () => {
    const app = server();
    for (const name of ["airline", "retail", "telecom", "banking_knowledge"]) {
      const detail = DomainDetailSchema.parse(await (await app.request(`/api/domains/${name}`)).json());
      expect(detail.scenarios.length, name).toBeGreaterThanOrEqual(5);
      expect(new Set(detail.scenarios.map((c) => c.kind)).size, name).toBe(detail.scenarios.length);
      const ids = detail.tasks.map((t) => t.id);
      while (ids.length < detail.taskCount) {
        const page = TaskPageSchema.parse(
          await (await app.request(`/api/domains/${name}/tasks?offset=${ids.length}`)).json(),
        );
        expect(page.tasks.length, name).toBeGreaterThan(0);
        ids.push(...page.tasks.map((t) => t.id));
      }
      for (const chip of detail.scenarios) expect(ids, name).toContain(chip.taskId);
    }
  });

  it("searches a domain's documents for a person: banking_knowledge's knowledge base, best first", async () => {
    const app = server();
    const detail = DomainDetailSchema.parse(
      await (await app.request("/api/domains/banking_knowledge")).json(),
    );
    expect(detail.hasDocuments).toBe(true);
    const found = DocumentSearchResponseSchema.parse(
      await (await app.request("/api/domains/banking_knowledge/documents?q=overdraft%20fee")).json(),
    );
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.hits.map((h) => h.score)).toEqual([...found.hits.map((h) => h.score)].sort((a, b) => b - a));
    for (const hit of found.hits) expect(hit.content.toLowerCase()).toMatch(/overdraft|fee/);
    // A domain without documents, and a missing query, are clear refusals.
    const airline = await app.request("/api/domains/airline/documents?q=bags");
    expect(airline.status).toBe(404);
    expect(await airline.json()).toMatchObject({ code: "documents_not_found" });
    expect((await app.request("/api/domains/banking_knowledge/documents")).status).toBe(400);
  });
});

describe("the policy linked to the action", () => {
  it("marks an agent's tool call with the policy passage it exercises; a call the policy never speaks of, with none", async () => {
    const app = server();
    const id = await start(app, { domain: "airline", taskId: "8", mode: "simulate" });
    const events = await readEvents(app, id);
    const starts = events.filter((e) => e.type === "tool-call-start");
    const linkOf = (name: string) => starts.find((e) => e.call.name === name)?.policyLink;
    expect(linkOf("book_reservation")?.section).toBe("Airline Agent Policy › Book flight");
    expect(linkOf("get_user_details")?.section).toBe("Airline Agent Policy › Domain Basic › User");
    expect(starts.some((e) => e.call.name === "search_direct_flight")).toBe(true);
    expect(linkOf("search_direct_flight")).toBeUndefined();
    // The end of a call carries the same link; its range is a passage of the policy the page shows.
    const end = events.find((e) => e.type === "tool-call-end" && e.call.name === "book_reservation");
    expect(end?.type === "tool-call-end" && end.policyLink).toEqual(linkOf("book_reservation"));
    const detail = DomainDetailSchema.parse(await (await app.request("/api/domains/airline")).json());
    const link = linkOf("book_reservation")!;
    expect(detail.policy.slice(link.start, link.end)).toContain("free checked bag");
  });

  it("marks an agent's refusal with the rule it rests on, and nothing else it says", async () => {
    const refusing: Agent = {
      name: "refusing",
      start: () => ({
        respond: async (incoming) => ({
          role: "assistant",
          content: /basic economy/.test(String(incoming.at(-1)?.content))
            ? "I'm sorry, but basic economy flights cannot be modified."
            : "Sure, which reservation is it?",
        }),
      }),
    };
    const app = server({ participants: participants({ agentFor: () => refusing }) });
    const id = await start(app, { domain: "airline", taskId: "0", mode: "human" });
    let seen = await readEvents(app, id, (e) => e.type === "awaiting-customer");
    const say = async (content: string) => {
      expect((await post(app, `/api/conversations/${id}/messages`, { content })).status).toBe(200);
      seen = await readEvents(app, id, (e) => e.type === "awaiting-customer", seen.at(-1)!.seq);
      return seen.filter((e) => e.type === "message" && e.message.role === "assistant");
    };
    const [plain] = await say("I want to change my flight.");
    expect(plain?.type === "message" && plain.policyLink).toBeUndefined();
    const [refusal] = await say("It is a basic economy ticket, change it anyway.");
    const link = refusal?.type === "message" ? refusal.policyLink : undefined;
    expect(link?.section).toBe("Airline Agent Policy › Modify flight");
    const detail = DomainDetailSchema.parse(await (await app.request("/api/domains/airline")).json());
    expect(detail.policy.slice(link!.start, link!.end)).toContain(
      "Basic economy flights cannot be modified.",
    );
    expect((await post(app, `/api/conversations/${id}/end`, {})).status).toBe(200);
  });
});
