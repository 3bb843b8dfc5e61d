import { describe, expect, it } from "vitest";
import type { LlmResponse } from "./llm.js";
import type { Message } from "./message.js";
import { participantTurn, participantView } from "./participant-view.js";

const conversation: Message[] = [
  { role: "system", content: "ignored" },
  { role: "assistant", content: "Hi! How can I help you today?" },
  { role: "user", content: "My phone has no data." },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "a1", name: "get_line", arguments: { id: "L1" }, requestor: "assistant" }],
  },
  { role: "tool", id: "a1", content: '{"status": "active"}', requestor: "assistant", error: false },
  {
    role: "user",
    content: null,
    tool_calls: [{ id: "u1", name: "toggle_data", arguments: {}, requestor: "user", raw_arguments: "{oops" }],
  },
  { role: "tool", id: "u1", content: "Error: bad arguments", requestor: "user", error: true },
  { role: "assistant", content: "Please restart it." },
];

describe("participantView", () => {
  it("shows the agent its own turns and tool results, and the customer's plain text", () => {
    expect(participantView(conversation, "assistant")).toEqual([
      { role: "assistant", content: "Hi! How can I help you today?" },
      { role: "user", content: "My phone has no data." },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "a1", name: "get_line", arguments: { id: "L1" }, argumentsText: '{"id":"L1"}' }],
      },
      {
        role: "tool",
        toolCallId: "a1",
        toolName: "get_line",
        content: '{"status": "active"}',
        isError: false,
      },
      { role: "assistant", content: "Please restart it." },
    ]);
  });

  it("shows the customer the same with roles flipped, its raw argument text kept", () => {
    expect(participantView(conversation, "user")).toEqual([
      { role: "user", content: "Hi! How can I help you today?" },
      { role: "assistant", content: "My phone has no data." },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "u1", name: "toggle_data", arguments: {}, argumentsText: "{oops" }],
      },
      {
        role: "tool",
        toolCallId: "u1",
        toolName: "toggle_data",
        content: "Error: bad arguments",
        isError: true,
      },
      { role: "user", content: "Please restart it." },
    ]);
  });
});

describe("participantTurn", () => {
  const response: LlmResponse = {
    text: "  ",
    toolCalls: [
      { id: "c1", name: "ok", arguments: { x: 1 }, argumentsText: '{"x": 1}' },
      { id: "c2", name: "bad", argumentsText: "[1]" },
    ],
    usage: { promptTokens: 10, completionTokens: 3 },
    cost: null,
  };

  it("writes the calls for the side that made them, keeping text that is not a JSON object", () => {
    expect(participantTurn(response, "user")).toEqual({
      content: null,
      tool_calls: [
        { id: "c1", name: "ok", arguments: { x: 1 }, requestor: "user" },
        { id: "c2", name: "bad", arguments: {}, requestor: "user", raw_arguments: "[1]" },
      ],
      cost: null,
      usage: { prompt_tokens: 10, completion_tokens: 3 },
      raw_data: null,
    });
  });
});
