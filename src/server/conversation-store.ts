import type { ConversationMode, ConversationSummary, SequencedEvent } from "./api-schemas.js";

/** A kept playground conversation: its summary and every event it streamed. */
export interface StoredConversation {
  summary: ConversationSummary;
  events: SequencedEvent[];
  /** The sha256 of the owner's token (hex): who may continue it, after a restart too. Never the token. */
  ownerDigest?: string;
}

/**
 * Where playground conversations are kept, so that a conversation's URL opens it again after a
 * reload or a server restart, and the explorer can list them. The SQLite adapter
 * (`sqliteConversationStore`) keeps them in the run store; `createMemoryConversationStore` for
 * servers without one, and tests.
 */
export interface ConversationStore {
  /** Insert or replace a conversation (its summary and every event so far). */
  put(conversation: StoredConversation): void;
  get(id: string): StoredConversation | undefined;
  /** The most recently started conversations first. */
  list(limit: number): ConversationSummary[];
}

/** How many conversations a store keeps: past this, the oldest are forgotten (a public server's store stays bounded). */
export const MAX_KEPT_CONVERSATIONS = 1000;

/** What the hub knows of a conversation when it starts. */
export interface ConversationMeta {
  id: string;
  domain: string;
  taskId: string | null;
  mode: ConversationMode;
  agent: string;
  user: string | null;
  startedAt: string;
}

const FIRST_LINE_MAX = 200;

/** A conversation's summary from what it has streamed so far. */
export function summarizeConversation(
  meta: ConversationMeta,
  events: readonly SequencedEvent[],
  endedAt: string | null,
): ConversationSummary {
  let status: ConversationSummary["status"] = "running";
  let terminationReason: string | null = null;
  let reward: number | null = null;
  let messages = 0;
  let firstLine: string | null = null;
  for (const event of events) {
    switch (event.type) {
      case "message":
        messages++;
        if (
          firstLine === null &&
          event.message.role === "user" &&
          typeof event.message.content === "string"
        ) {
          const flat = event.message.content.replace(/\s+/g, " ").trim();
          if (flat !== "")
            firstLine = flat.length > FIRST_LINE_MAX ? `${flat.slice(0, FIRST_LINE_MAX - 1)}…` : flat;
        }
        break;
      case "simulation-end":
        terminationReason = event.terminationReason;
        break;
      case "reward":
        reward = event.rewardInfo.reward;
        break;
      case "conversation-end":
        status = event.reason;
        break;
      default:
        break;
    }
  }
  return {
    ...meta,
    endedAt: status === "running" ? null : endedAt,
    status,
    terminationReason,
    reward,
    messages,
    firstLine,
  };
}

/** Conversations kept in memory (a server without a run store, and tests), the newest `max`. */
export function createMemoryConversationStore(options: { max?: number } = {}): ConversationStore {
  const max = options.max ?? MAX_KEPT_CONVERSATIONS;
  const kept = new Map<string, StoredConversation>();
  const newestFirst = () =>
    [...kept.values()].sort((a, b) => b.summary.startedAt.localeCompare(a.summary.startedAt));
  return {
    put(conversation) {
      const isNew = !kept.has(conversation.summary.id);
      kept.set(conversation.summary.id, {
        ...conversation,
        summary: { ...conversation.summary },
        events: [...conversation.events],
      });
      if (isNew && kept.size > max) {
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
