import type { Message } from "../core/message.js";

/** One place a query was found: which conversation, which message, and the words around it. */
export interface TranscriptHit {
  domain: string;
  taskId: string;
  trial: number;
  /** Index into the conversation's messages (the explorer's turn links use it). */
  messageIndex: number;
  role: Message["role"];
  snippet: { before: string; match: string; after: string };
}

export interface SearchableConversation {
  domain: string;
  task_id: string;
  trial: number;
  messages: readonly Message[];
}

/** What a message says, as searched: its words, its tool calls (name and arguments). */
function searchableText(message: Message): string {
  const calls =
    message.role === "assistant" || message.role === "user"
      ? (message.tool_calls ?? []).map((call) => `${call.name}(${JSON.stringify(call.arguments)})`)
      : [];
  return [message.content ?? "", ...calls].filter((part) => part !== "").join("\n");
}

const CONTEXT = 60;

/**
 * Every message of `conversations` that contains `query` (case-insensitive, as typed), in order, at
 * most `limit` of them: one hit per message, the first occurrence with up to 60 characters each side.
 */
export function searchTranscripts(
  conversations: Iterable<SearchableConversation>,
  query: string,
  limit = 100,
): { hits: TranscriptHit[]; truncated: boolean } {
  const needle = query.toLowerCase();
  const hits: TranscriptHit[] = [];
  for (const conversation of conversations) {
    for (const [messageIndex, message] of conversation.messages.entries()) {
      const text = searchableText(message);
      const at = text.toLowerCase().indexOf(needle);
      if (at < 0) continue;
      if (hits.length === limit) return { hits, truncated: true };
      const start = Math.max(0, at - CONTEXT);
      const end = Math.min(text.length, at + needle.length + CONTEXT);
      hits.push({
        domain: conversation.domain,
        taskId: conversation.task_id,
        trial: conversation.trial,
        messageIndex,
        role: message.role,
        snippet: {
          before: (start > 0 ? "…" : "") + text.slice(start, at),
          match: text.slice(at, at + needle.length),
          after: text.slice(at + needle.length, end) + (end < text.length ? "…" : ""),
        },
      });
    }
  }
  return { hits, truncated: false };
}
