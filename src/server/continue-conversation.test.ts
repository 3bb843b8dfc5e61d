import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Agent, UserSimulator } from "../core/agent.js";
import { hasToolCalls, type AssistantMessage, type Message } from "../core/message.js";
import { builtinDomains } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldAgent } from "../agents/gold-agent.js";
import { SequencedEventSchema, StartConversationResponseSchema, type SequencedEvent } from "./api-schemas.js";
import { createServer } from "./create-server.js";
import type { Participants } from "./server-deps.js";
import type { ConversationStore } from "../core/conversation-record.js";
import { sqliteConversationStore } from "../store/conversation-store.js";
import { Store } from "../store/store.js";

const catalog = new DomainCatalog();

/**
 * An agent that cancels the reservation the customer names, and reports a reservation's status when
 * asked to check it: its answers depend on the world, so a continued conversation shows whether the
 * world was rebuilt. It continues from its history (its state is the last message it receives).
 */
const cancellingAgent: Agent = {
  name: "cancelling-agent",
  resumesFromHistory: true,
  start: () => {
    let calls = 0;
    return {
      respond: async (incoming: readonly Message[]): Promise<AssistantMessage> => {
        const last = incoming.at(-1);
        const call = (name: string) => ({
          role: "assistant" as const,
          content: null,
          tool_calls: [
            {
              id: `call_${name}_${calls++}`,
              name,
              arguments: { reservation_id: "EHGLP3" },
              requestor: "assistant" as const,
            },
          ],
        });
        if (last?.role === "user" && /cancel/i.test(String(last.content))) return call("cancel_reservation");
        if (last?.role === "user" && /check/i.test(String(last.content)))
          return call("get_reservation_details");
        if (last?.role === "tool") {
          const status = (JSON.parse(String(last.content)) as { status?: string | null }).status ?? "active";
          return { role: "assistant", content: `EHGLP3 is ${status}.` };
        }
        return { role: "assistant", content: "How can I help?" };
      },
    };
  },
};

/**
 * A customer who asks to cancel EHGLP3; in its first conversation its next model call hangs until the
 * conversation is stopped, in a continued one it asks to check the reservation, then ends.
 */
function customer(conversations = 0): UserSimulator {
  return {
    name: "cancelling-customer",
    resumesFromHistory: true,
    start: ({ signal, history }) => {
      const first = conversations++ === 0;
      let turns = history.filter((m) => m.role === "user").length;
      return {
        respond: () => {
          const turn = turns++;
          if (turn === 0) return Promise.resolve({ role: "user", content: "Please cancel EHGLP3." });
          if (first)
            return new Promise((_, reject) =>
              signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
            );
          if (turn === 1) return Promise.resolve({ role: "user", content: "Can you check EHGLP3?" });
          return Promise.resolve({ role: "user", content: "###STOP###" });
        },
      };
    },
  };
}

function server(participants: Participants, conversations?: ConversationStore<SequencedEvent>) {
  return createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    loadDomainData: (domain: AnyDomain, dataDir: string) => catalog.load(domain, { dataDir }),
    participants,
    ...(conversations ? { conversations } : {}),
  });
}
type App = ReturnType<typeof server>;

const post = (app: App, path: string, body: unknown, token?: string) =>
  app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { "Passk-Owner-Token": token } : {}) },
    body: JSON.stringify(body),
  });

/** A conversation's events, until `until` holds or the stream ends. */
async function readEvents(
  app: App,
  id: string,
  until: (event: SequencedEvent) => boolean = () => false,
): Promise<SequencedEvent[]> {
  const response = await app.request(`/api/conversations/${id}/events`);
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

const messagesOf = (events: readonly SequencedEvent[]) =>
  events.flatMap((e) => (e.type === "message" ? [e.message] : []));

async function started(response: Response) {
  expect(response.status, await response.clone().text()).toBe(201);
  return StartConversationResponseSchema.parse(await response.json());
}

describe("continuing a stopped playground conversation", () => {
  it("continues with the earlier messages and the world they left: the cancelled reservation stays cancelled", async () => {
    const app = server({
      agents: ["test:cancelling"],
      users: ["test:customer"],
      agentFor: () => cancellingAgent,
      customerFor: (() => {
        const user = customer();
        return () => user;
      })(),
    });
    const first = await started(
      await post(app, "/api/conversations", { domain: "airline", taskId: "0", mode: "simulate" }),
    );
    // The agent cancelled EHGLP3 and said so; the customer's next call hangs, and the owner stops it.
    await readEvents(
      app,
      first.conversationId,
      (e) =>
        e.type === "message" &&
        e.message.role === "assistant" &&
        /is cancelled/.test(String(e.message.content)),
    );
    expect(
      (await post(app, `/api/conversations/${first.conversationId}/end`, {}, first.ownerToken)).status,
    ).toBe(200);
    const stopped = await readEvents(app, first.conversationId);
    expect(stopped.at(-1)).toMatchObject({ type: "conversation-end", reason: "abandoned" });
    const earlier = messagesOf(stopped);
    expect(earlier.some((m) => hasToolCalls(m) && m.tool_calls[0]!.name === "cancel_reservation")).toBe(true);

    // Only the owner may continue it; an unknown id is a 404.
    expect(
      (await post(app, "/api/conversations/no-such-conversation/continue", {}, first.ownerToken)).status,
    ).toBe(404);
    expect((await post(app, `/api/conversations/${first.conversationId}/continue`, {})).status).toBe(403);
    expect(
      (await post(app, `/api/conversations/${first.conversationId}/continue`, {}, "not-the-token")).status,
    ).toBe(403);

    const next = await started(
      await post(app, `/api/conversations/${first.conversationId}/continue`, {}, first.ownerToken),
    );
    expect(next.conversationId).not.toBe(first.conversationId);
    const events = await readEvents(app, next.conversationId);
    expect(events[0]).toMatchObject({
      type: "conversation-start",
      continues: first.conversationId,
      domain: "airline",
      taskId: "0",
      agent: "test:cancelling",
      user: "test:customer",
    });
    const messages = messagesOf(events);
    // The earlier messages come first, as they were.
    expect(messages.slice(0, earlier.length).map((m) => [m.role, m.content])).toEqual(
      earlier.map((m) => [m.role, m.content]),
    );
    // Then the conversation goes on in the rebuilt world: the reservation it cancelled is cancelled.
    const after = messages.slice(earlier.length);
    expect(after.map((m) => m.content)).toContain("Can you check EHGLP3?");
    const details = after.find((m) => m.role === "tool");
    expect(JSON.parse(String(details?.content))).toMatchObject({
      reservation_id: "EHGLP3",
      status: "cancelled",
    });
    expect(after.map((m) => m.content)).toContain("EHGLP3 is cancelled.");
    expect(events.at(-1)).toMatchObject({ type: "conversation-end", reason: "finished" });
    expect(events.find((e) => e.type === "simulation-end")).toMatchObject({ terminationReason: "user_stop" });
    // A conversation that finished cannot be continued.
    expect(
      (await post(app, `/api/conversations/${next.conversationId}/continue`, {}, next.ownerToken)).status,
    ).toBe(409);
  });

  it("refuses, naming the participant, when one cannot continue from its history", async () => {
    const waiting: UserSimulator = {
      name: "waiting",
      resumesFromHistory: true,
      start: ({ signal }) => ({
        respond: () =>
          new Promise((_, reject) =>
            signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
          ),
      }),
    };
    const app = server({
      agents: ["scripted:gold"],
      users: ["test:waiting"],
      agentFor: () => goldAgent,
      customerFor: () => waiting,
    });
    const first = await started(
      await post(app, "/api/conversations", { domain: "mock", taskId: "create_task_1", mode: "simulate" }),
    );
    await readEvents(app, first.conversationId, (e) => e.type === "message");
    // Still running: it is not continued.
    const running = await post(
      app,
      `/api/conversations/${first.conversationId}/continue`,
      {},
      first.ownerToken,
    );
    expect(running.status).toBe(409);
    await post(app, `/api/conversations/${first.conversationId}/end`, {}, first.ownerToken);
    expect((await readEvents(app, first.conversationId)).at(-1)).toMatchObject({ reason: "abandoned" });
    const refused = await post(
      app,
      `/api/conversations/${first.conversationId}/continue`,
      {},
      first.ownerToken,
    );
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toMatch(
      new RegExp(`the agent ${goldAgent.name} cannot continue`),
    );
  });

  it("continues one its server was stopped in the middle of, for its owner only, from the store", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "passk-continue-")), "passk.db");
    const participants = (user: UserSimulator): Participants => ({
      agents: ["test:cancelling"],
      users: ["test:customer"],
      agentFor: () => cancellingAgent,
      customerFor: () => user,
    });
    // The first server: the agent cancels EHGLP3; the server then goes away while the customer thinks.
    const before = Store.open(file, { create: true });
    const first = server(
      participants(customer()),
      sqliteConversationStore(before, { events: SequencedEventSchema }),
    );
    const opened = await started(
      await post(first, "/api/conversations", { domain: "airline", taskId: "0", mode: "simulate" }),
    );
    await readEvents(
      first,
      opened.conversationId,
      (e) =>
        e.type === "message" &&
        /is cancelled/.test(String(e.message.role === "assistant" && e.message.content)),
    );
    // The store holds its events (kept soon after each one), with who started it — as a digest only.
    await expect
      .poll(
        () =>
          messagesOf(
            sqliteConversationStore(before, { events: SequencedEventSchema }).get(opened.conversationId)
              ?.events ?? [],
          ).length,
      )
      .toBeGreaterThanOrEqual(4);
    const kept = sqliteConversationStore(before, { events: SequencedEventSchema }).get(
      opened.conversationId,
    )!;
    expect(kept.ownerDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(kept)).not.toContain(opened.ownerToken);
    before.close();

    // A new server over the same store: the conversation reads as interrupted; its owner continues it.
    const after = Store.open(file, { create: false });
    try {
      // The same customer, on its second conversation (the continued one).
      const second = server(
        participants(customer(1)),
        sqliteConversationStore(after, { events: SequencedEventSchema }),
      );
      const path_ = `/api/conversations/${opened.conversationId}/continue`;
      const noToken = await post(second, path_, {});
      expect(noToken.status, await noToken.clone().text()).toBe(403);
      expect((await post(second, path_, {}, "not-the-token")).status).toBe(403);
      const next = await started(await post(second, path_, {}, opened.ownerToken));
      const events = await readEvents(second, next.conversationId);
      expect(events[0]).toMatchObject({ type: "conversation-start", continues: opened.conversationId });
      const messages = messagesOf(events);
      expect(
        messages.find((m) => m.role === "tool" && /"status":\s*"cancelled"/.test(String(m.content))),
      ).toBeDefined();
      expect(messages.map((m) => m.content)).toContain("EHGLP3 is cancelled.");
      expect(events.at(-1)).toMatchObject({ type: "conversation-end", reason: "finished" });
    } finally {
      after.close();
    }
  });
});
