import { describe, expect, it } from "vitest";
import type { SequencedEvent } from "./api-schemas.js";
import { summarizeConversation, type ConversationMeta } from "./conversation-summary.js";

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
