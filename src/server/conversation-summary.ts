import type { ConversationMode, ConversationSummary } from "../core/conversation-record.js";
import type { SequencedEvent } from "./api-schemas.js";

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
