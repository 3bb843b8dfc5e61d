import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ConversationStore, ConversationSummary } from "../core/conversation-record.js";
import { createMemoryConversationStore, sqliteConversationStore } from "./conversation-store.js";
import { databaseOf } from "./database.js";
import { Store } from "./store.js";

const folder = mkdtempSync(path.join(tmpdir(), "passk-conversations-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The events a server streams; the store keeps what it is given and validates it when read back. */
const EventSchema = z.object({ seq: z.number().int(), type: z.string(), text: z.string().optional() });
type Event = z.infer<typeof EventSchema>;

const summary = (id: string, minute: number, messages = 0): ConversationSummary => ({
  id,
  domain: "airline",
  taskId: "8",
  mode: "simulate",
  agent: "scripted:gold",
  user: "scripted:gold",
  startedAt: `2025-06-01T12:${String(minute).padStart(2, "0")}:00.000Z`,
  endedAt: null,
  status: "running",
  terminationReason: null,
  reward: null,
  messages,
  firstLine: messages > 0 ? "I want to book a flight." : null,
});

const events: Event[] = [
  { seq: 0, type: "conversation-start" },
  { seq: 1, type: "message", text: "Hi! How can I help you today?" },
  { seq: 2, type: "message", text: "I want to book a flight." },
];

const sqlite = (max: number) =>
  sqliteConversationStore(Store.open(path.join(folder, `${Math.random()}.db`), { create: true }), {
    events: EventSchema,
    max,
  });

const stores: Record<string, (max: number) => ConversationStore<Event>> = {
  memory: (max) => createMemoryConversationStore<Event>({ max }),
  sqlite,
};

describe.each(Object.keys(stores))("the %s conversation store", (kind) => {
  it("keeps conversations whole, replaces them as they go, lists the newest first and forgets past its maximum", () => {
    const store = stores[kind]!(2);
    store.put({ summary: summary("a", 0, 1), events: events.slice(0, 2) });
    store.put({ summary: summary("a", 0, 2), events });
    expect(store.get("a")).toEqual({ summary: summary("a", 0, 2), events });
    store.put({ summary: summary("b", 2), events: [] });
    expect(store.list(10).map((c) => c.id)).toEqual(["b", "a"]);
    store.put({ summary: summary("c", 1), events: [] });
    // Three kept at most two: the oldest by start ("a") is forgotten.
    expect(store.list(10).map((c) => c.id)).toEqual(["b", "c"]);
    expect(store.get("a")).toBeUndefined();
    expect(store.list(1).map((c) => c.id)).toEqual(["b"]);
  });

  it("keeps the owner's digest once given, through later writes without one", () => {
    const store = stores[kind]!(5);
    store.put({ summary: summary("a", 0), events: [], ownerDigest: "d1" });
    store.put({ summary: summary("a", 0, 2), events });
    expect(store.get("a")?.ownerDigest).toBe("d1");
  });
});

describe("the SQLite conversation store", () => {
  it("reads a row whose events the server's schema refuses as no conversation", () => {
    const file = path.join(folder, "foreign-events.db");
    const writer = sqliteConversationStore(Store.open(file, { create: true }), {
      events: z.object({ seq: z.number(), type: z.string(), text: z.number() }).loose(),
    });
    writer.put({ summary: summary("a", 0), events: [{ seq: 0, type: "message", text: 3 }] });
    const reader = sqliteConversationStore(Store.open(file), { events: EventSchema });
    expect(reader.get("a")).toBeUndefined();
    expect(reader.list(10).map((c) => c.id)).toEqual(["a"]);
  });
});

describe("the store's schema", () => {
  it("has the conversation and imported-file tables from version 3 on", () => {
    const store = Store.open(path.join(folder, "schema.db"), { create: true });
    expect(store.schemaVersion()).toBeGreaterThanOrEqual(3);
    const tables = (
      databaseOf(store).statement("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
        name: string;
      }>
    ).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(["playground_conversations", "imported_files"]));
    store.close();
  });
});
