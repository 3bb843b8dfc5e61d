import { z } from "zod";
import {
  ConversationSummarySchema,
  type ConversationStore,
  type ConversationSummary,
  type StoredConversation,
} from "../core/conversation-record.js";
import { databaseOf } from "./database.js";
import type { Store } from "./store.js";

/** How many conversations a store keeps: past this, the oldest are forgotten (a public server's store stays bounded). */
const MAX_KEPT_CONVERSATIONS = 1000;

interface ConversationRow {
  id: string;
  domain: string;
  task_id: string | null;
  mode: string;
  agent: string;
  user: string | null;
  started_at: string;
  ended_at: string | null;
  status: string;
  termination_reason: string | null;
  reward: number | null;
  messages: number;
  first_line: string | null;
}

const SUMMARY_COLUMNS =
  "id, domain, task_id, mode, agent, user, started_at, ended_at, status, termination_reason, reward, messages, first_line";

/** A row as a summary; undefined when the row does not parse (written by something else). */
function toSummary(row: ConversationRow): ConversationSummary | undefined {
  const parsed = ConversationSummarySchema.safeParse({
    id: row.id,
    domain: row.domain,
    taskId: row.task_id,
    mode: row.mode,
    agent: row.agent,
    user: row.user,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    status: row.status,
    terminationReason: row.termination_reason,
    reward: row.reward,
    messages: row.messages,
    firstLine: row.first_line,
  });
  return parsed.success ? parsed.data : undefined;
}

/**
 * Playground conversations kept in the run store's `playground_conversations` table (schema v3):
 * one row per conversation, its events as JSON, rewritten as it goes; the newest `max` are kept. The
 * events are the server's: `events` validates them as they are read back (a row that does not parse
 * is no conversation).
 */
export function sqliteConversationStore<Event>(
  store: Store,
  options: { events: z.ZodType<Event>; max?: number },
): ConversationStore<Event> {
  const db = databaseOf(store);
  const max = options.max ?? MAX_KEPT_CONVERSATIONS;
  const EventsSchema = z.array(options.events);
  return {
    put({ summary, events, ownerDigest }) {
      db.transaction(() => {
        const exists = db.statement("SELECT 1 FROM playground_conversations WHERE id = ?").get(summary.id);
        db.statement(
          `INSERT INTO playground_conversations (${SUMMARY_COLUMNS}, events, updated_at, owner_digest)
             VALUES (@id, @domain, @task_id, @mode, @agent, @user, @started_at, @ended_at, @status,
               @termination_reason, @reward, @messages, @first_line, @events, @updated_at, @owner_digest)
             ON CONFLICT (id) DO UPDATE SET ended_at = excluded.ended_at, status = excluded.status,
               termination_reason = excluded.termination_reason, reward = excluded.reward,
               messages = excluded.messages, first_line = excluded.first_line, events = excluded.events,
               updated_at = excluded.updated_at,
               owner_digest = COALESCE(excluded.owner_digest, owner_digest)`,
        ).run({
          id: summary.id,
          domain: summary.domain,
          task_id: summary.taskId,
          mode: summary.mode,
          agent: summary.agent,
          user: summary.user,
          started_at: summary.startedAt,
          ended_at: summary.endedAt,
          status: summary.status,
          termination_reason: summary.terminationReason,
          reward: summary.reward,
          messages: summary.messages,
          first_line: summary.firstLine,
          events: JSON.stringify(events),
          updated_at: db.now(),
          owner_digest: ownerDigest ?? null,
        });
        if (!exists) {
          db.statement(
            `DELETE FROM playground_conversations WHERE id NOT IN
                 (SELECT id FROM playground_conversations ORDER BY started_at DESC, id DESC LIMIT ?)`,
          ).run(max);
        }
      });
    },
    get(id) {
      const row = db
        .statement(
          `SELECT ${SUMMARY_COLUMNS}, events, owner_digest FROM playground_conversations WHERE id = ?`,
        )
        .get(id) as (ConversationRow & { events: string; owner_digest: string | null }) | undefined;
      if (!row) return undefined;
      const summary = toSummary(row);
      let events: unknown;
      try {
        events = JSON.parse(row.events);
      } catch {
        return undefined;
      }
      const parsed = EventsSchema.safeParse(events);
      if (!summary || !parsed.success) return undefined;
      return { summary, events: parsed.data, ...(row.owner_digest ? { ownerDigest: row.owner_digest } : {}) };
    },
    list(limit) {
      const rows = db
        .statement(
          `SELECT ${SUMMARY_COLUMNS} FROM playground_conversations ORDER BY started_at DESC, id DESC LIMIT ?`,
        )
        .all(limit) as ConversationRow[];
      return rows.flatMap((row) => {
        const summary = toSummary(row);
        return summary ? [summary] : [];
      });
    },
  };
}

/** Conversations kept in memory (a server without a run store, and tests), the newest `max`. */
export function createMemoryConversationStore<Event>(
  options: { max?: number } = {},
): ConversationStore<Event> {
  const max = options.max ?? MAX_KEPT_CONVERSATIONS;
  const kept = new Map<string, StoredConversation<Event>>();
  const newestFirst = () =>
    [...kept.values()].sort((a, b) => b.summary.startedAt.localeCompare(a.summary.startedAt));
  return {
    put(conversation) {
      const before = kept.get(conversation.summary.id);
      // As the SQLite store does: a write without the owner's digest keeps the one given before.
      const ownerDigest = conversation.ownerDigest ?? before?.ownerDigest;
      kept.set(conversation.summary.id, {
        summary: { ...conversation.summary },
        events: [...conversation.events],
        ...(ownerDigest !== undefined ? { ownerDigest } : {}),
      });
      if (!before && kept.size > max) {
        for (const old of newestFirst().slice(max)) kept.delete(old.summary.id);
      }
    },
    get(id) {
      const found = kept.get(id);
      return found ? { ...found, summary: { ...found.summary }, events: [...found.events] } : undefined;
    },
    list(limit) {
      return newestFirst()
        .slice(0, limit)
        .map((c) => ({ ...c.summary }));
    },
  };
}
