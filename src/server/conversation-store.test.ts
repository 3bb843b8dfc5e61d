import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Store } from "../store/store.js";
import type { SequencedEvent } from "./api-schemas.js";
import {
  createMemoryConversationStore,
  summarizeConversation,
  type ConversationMeta,
  type ConversationStore,
} from "./conversation-store.js";
import { sqliteConversationStore } from "./sqlite-conversation-store.js";

const folder = mkdtempSync(path.join(tmpdir(), "passk-conversations-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const meta = (id: string, minute: number): ConversationMeta => ({
  id,
  domain: "airline",
  taskId: "8",
  mode: "simulate",
  agent: "scripted:gold",
  user: "scripted:gold",
  startedAt: `2025-06-01T12:${String(minute).padStart(2, "0")}:00.000Z`,
});

const events: SequencedEvent[] = [
  {
    seq: 0,
    type: "conversation-start",
    conversationId: "a",
    mode: "simulate",
    domain: "airline",
    taskId: "8",
    agent: "scripted:gold",
    user: "scripted:gold",
  },
  { seq: 1, type: "message", message: { role: "assistant", content: "Hi! How can I help you today?" } },
  { seq: 2, type: "message", message: { role: "user", content: "  I want to   book a flight.\n" } },
];

const stores: Record<string, (max: number) => ConversationStore> = {
  memory: (max) => createMemoryConversationStore({ max }),
  sqlite: (max) =>
    sqliteConversationStore(Store.open(path.join(folder, `${Math.random()}.db`), { create: true }), { max }),
};

describe("summarizeConversation", () => {
  it("reads status, termination, reward, message count and the customer's first line from the events", () => {
    const running = summarizeConversation(meta("a", 0), events, "2025-06-01T12:05:00.000Z");
    expect(running).toMatchObject({
      status: "running",
      endedAt: null,
      messages: 2,
      firstLine: "I want to book a flight.",
      reward: null,
    });
    const ended = summarizeConversation(
      meta("a", 0),
      [
        ...events,
        {
          seq: 3,
          type: "simulation-end",
          terminationReason: "user_stop",
          error: null,
          durationSeconds: 1,
          agentCost: 0,
          userCost: 0,
        },
        { seq: 4, type: "reward", rewardInfo: { reward: 0 }, failedChecks: [] },
        { seq: 5, type: "conversation-end", reason: "finished", message: null },
      ],
      "2025-06-01T12:05:00.000Z",
    );
    expect(ended).toMatchObject({
      status: "finished",
      endedAt: "2025-06-01T12:05:00.000Z",
      terminationReason: "user_stop",
      reward: 0,
    });
  });
});

describe.each(Object.keys(stores))("the %s conversation store", (kind) => {
  it("keeps conversations whole, replaces them as they go, lists the newest first and forgets past its maximum", () => {
    const store = stores[kind]!(2);
    store.put({
      summary: summarizeConversation(meta("a", 0), events.slice(0, 2), null),
      events: events.slice(0, 2),
    });
    store.put({ summary: summarizeConversation(meta("a", 0), events, null), events });
    expect(store.get("a")).toEqual({ summary: summarizeConversation(meta("a", 0), events, null), events });
    store.put({ summary: summarizeConversation(meta("b", 2), [], null), events: [] });
    expect(store.list(10).map((c) => c.id)).toEqual(["b", "a"]);
    store.put({ summary: summarizeConversation(meta("c", 1), [], null), events: [] });
    // Three kept at most two: the oldest by start ("a") is forgotten.
    expect(store.list(10).map((c) => c.id)).toEqual(["b", "c"]);
    expect(store.get("a")).toBeUndefined();
    expect(store.list(1).map((c) => c.id)).toEqual(["b"]);
  });
});

describe("the store's schema", () => {
  it("has the conversation and imported-file tables from version 3 on", () => {
    const store = Store.open(path.join(folder, "schema.db"), { create: true });
    expect(store.schemaVersion()).toBeGreaterThanOrEqual(3);
    const tables = (
      store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    ).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(["playground_conversations", "imported_files"]));
    store.close();
  });
});
