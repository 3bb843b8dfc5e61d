import { describe, expect, it } from "vitest";
import { searchTranscripts } from "./transcript-search.js";

const conversation = (taskId: string, trial: number) => ({
  domain: "airline",
  task_id: taskId,
  trial,
  messages: [
    { role: "assistant" as const, content: "Hi! How can I help you today?" },
    { role: "user" as const, content: "I want to cancel reservation XEHM4B, please." },
    {
      role: "assistant" as const,
      content: null,
      tool_calls: [
        {
          id: "1",
          name: "cancel_reservation",
          arguments: { reservation_id: "XEHM4B" },
          requestor: "assistant" as const,
        },
      ],
    },
    {
      role: "tool" as const,
      id: "1",
      content: "Error: timed out",
      requestor: "assistant" as const,
      error: true,
    },
  ],
});

describe("searchTranscripts", () => {
  it("finds words, tool calls and tool results, case-insensitive, with their place and context", () => {
    const { hits, truncated } = searchTranscripts([conversation("3", 0)], "xehm4b");
    expect(truncated).toBe(false);
    expect(hits.map((h) => [h.messageIndex, h.role])).toEqual([
      [1, "user"],
      [2, "assistant"],
    ]);
    expect(hits[0]!.snippet).toEqual({
      before: "I want to cancel reservation ",
      match: "XEHM4B",
      after: ", please.",
    });
    expect(hits[1]!.snippet.before).toBe('cancel_reservation({"reservation_id":"');
    expect(searchTranscripts([conversation("3", 0)], "TIMED OUT").hits[0]).toMatchObject({
      messageIndex: 3,
      role: "tool",
    });
    expect(searchTranscripts([conversation("3", 0)], "no such words").hits).toEqual([]);
  });

  it("stops at the limit and says so", () => {
    const many = Array.from({ length: 10 }, (_, trial) => conversation("3", trial));
    const { hits, truncated } = searchTranscripts(many, "XEHM4B", 5);
    expect(hits).toHaveLength(5);
    expect(truncated).toBe(true);
    expect(hits.map((h) => h.trial)).toEqual([0, 0, 1, 1, 2]);
  });
});
