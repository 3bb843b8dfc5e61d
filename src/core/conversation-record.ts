import { z } from "zod";

/** How a playground conversation runs: both sides simulated, or a person playing the customer. */
export const ConversationModeSchema = z.enum(["simulate", "human"]);
export type ConversationMode = z.infer<typeof ConversationModeSchema>;

export const ConversationStatusSchema = z.enum(["running", "finished", "abandoned", "failed", "interrupted"]);
export type ConversationStatus = z.infer<typeof ConversationStatusSchema>;

/** A playground conversation as kept in the store: reopenable by its URL, listed in the explorer. */
export const ConversationSummarySchema = z.object({
  id: z.string(),
  domain: z.string(),
  /** Null for a free conversation (a person typing, no task). */
  taskId: z.string().nullable(),
  mode: ConversationModeSchema,
  agent: z.string(),
  user: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  status: ConversationStatusSchema,
  terminationReason: z.string().nullable(),
  /** The reward when graded. */
  reward: z.number().nullable(),
  /** Messages so far (tool results included). */
  messages: z.number().int(),
  /** The customer's first words, for the list. */
  firstLine: z.string().nullable(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

/** A kept playground conversation: its summary and every event it streamed (the server's `Event`s). */
export interface StoredConversation<Event> {
  summary: ConversationSummary;
  events: Event[];
  /** The sha256 of the owner's token (hex): who may continue it, after a restart too. Never the token. */
  ownerDigest?: string;
}

/**
 * Where playground conversations are kept, so that a conversation's URL opens it again after a
 * reload or a server restart, and the explorer can list them. `sqliteConversationStore`
 * (src/store/conversation-store.ts) keeps them in the run store; `createMemoryConversationStore` in
 * memory, for servers without one, and tests.
 */
export interface ConversationStore<Event> {
  /** Insert or replace a conversation (its summary and every event so far). */
  put(conversation: StoredConversation<Event>): void;
  get(id: string): StoredConversation<Event> | undefined;
  /** The most recently started conversations first. */
  list(limit: number): ConversationSummary[];
}
