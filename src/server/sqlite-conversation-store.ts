import { z } from "zod";
import type { Store } from "../store/store.js";
import { ConversationSummarySchema, SequencedEventSchema } from "./api-schemas.js";
import { MAX_KEPT_CONVERSATIONS, type ConversationStore } from "./conversation-store.js";

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

const EventsSchema = z.array(SequencedEventSchema);

/** A row as the API's summary; undefined when the row does not parse (written by something else). */
function toSummary(row: ConversationRow) {
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
 * one row per conversation, its events as JSON, rewritten as it goes; the newest `max` are kept.
 */
export function sqliteConversationStore(store: Store, options: { max?: number } = {}): ConversationStore {
  const max = options.max ?? MAX_KEPT_CONVERSATIONS;
  return {
    put({ summary, events, ownerDigest }) {
      store.transaction(() => {
        const exists = store.statement("SELECT 1 FROM playground_conversations WHERE id = ?").get(summary.id);
        store
          .statement(
            `INSERT INTO playground_conversations (${SUMMARY_COLUMNS}, events, updated_at, owner_digest)
             VALUES (@id, @domain, @task_id, @mode, @agent, @user, @started_at, @ended_at, @status,
               @termination_reason, @reward, @messages, @first_line, @events, @updated_at, @owner_digest)
             ON CONFLICT (id) DO UPDATE SET ended_at = excluded.ended_at, status = excluded.status,
               termination_reason = excluded.termination_reason, reward = excluded.reward,
               messages = excluded.messages, first_line = excluded.first_line, events = excluded.events,
               updated_at = excluded.updated_at,
               owner_digest = COALESCE(excluded.owner_digest, owner_digest)`,
          )
          .run({
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
            updated_at: store.now(),
            owner_digest: ownerDigest ?? null,
          });
        if (!exists) {
          store
            .statement(
              `DELETE FROM playground_conversations WHERE id NOT IN
                 (SELECT id FROM playground_conversations ORDER BY started_at DESC, id DESC LIMIT ?)`,
            )
            .run(max);
        }
      });
    },
    get(id) {
      const row = store
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
      const rows = store
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
