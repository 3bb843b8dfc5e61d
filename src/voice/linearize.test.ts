import { describe, expect, it } from "vitest";
import type { ToolCall, ToolMessage } from "../core/message.js";
import {
  agentUtterances,
  conversationMessages,
  linearizeTicks,
  spokenConversation,
  toolTrajectory,
} from "./linearize.js";
import { responsiveness } from "./full-duplex-call.js";
import { emptyChunk, type Tick, type TickChunk } from "./ticks.js";

// Hand-built ticks and the messages the reference's rules make of them.

const T = "2026-11-29T00:00:00.000Z";

function chunk(role: "assistant" | "user", content: string | null, utterance?: string): TickChunk {
  return {
    ...emptyChunk(role, T),
    content,
    contains_speech: utterance !== undefined,
    utterance_ids: utterance !== undefined ? [utterance] : null,
  };
}

interface Side {
  text: string;
  utt: string;
}

/** Ticks from a per-tick script: each side's text and utterance (absent: silent), tool calls and results. */
function ticks(
  script: {
    agent?: Side;
    user?: Side;
    agentCalls?: ToolCall[];
    agentResults?: ToolMessage[];
    userCalls?: ToolCall[];
    userResults?: ToolMessage[];
  }[],
): Tick[] {
  return script.map((s, i) => ({
    tick_id: i,
    timestamp: T,
    agent_chunk: s.agent ? chunk("assistant", s.agent.text, s.agent.utt) : chunk("assistant", null),
    user_chunk: s.user ? chunk("user", s.user.text, s.user.utt) : chunk("user", ""),
    agent_tool_calls: s.agentCalls ?? [],
    user_tool_calls: s.userCalls ?? [],
    agent_tool_results: s.agentResults ?? [],
    user_tool_results: s.userResults ?? [],
    user_transcript: null,
    tick_duration_seconds: 0.2,
    wall_clock_duration_seconds: null,
  }));
}

const call = (id: string, requestor: "user" | "assistant" = "assistant"): ToolCall => ({
  id,
  name: "get_user_details",
  arguments: { user_id: "u" },
  requestor,
});
const result = (id: string, requestor: "user" | "assistant" = "assistant"): ToolMessage => ({
  id,
  role: "tool",
  content: `result ${id}`,
  requestor,
  error: false,
});

describe("linearising a call's ticks", () => {
  const a = (text: string, utt = "a1") => ({ text, utt });
  const u = (text: string, utt = "u1") => ({ text, utt });

  it("turns speech and tool calls into the conversation, tool results after their call", () => {
    const record = ticks([
      {},
      { user: u("I need ") },
      { user: u("help.") },
      {},
      { agentCalls: [call("c1")], agentResults: [result("c1")] },
      { agent: a("Found ") },
      { agent: a("you.") },
    ]);
    expect(conversationMessages(record)).toEqual([
      { role: "user", content: "I need help." },
      { role: "assistant", content: null, tool_calls: [call("c1")] },
      result("c1"),
      { role: "assistant", content: "Found you." },
    ]);
    expect(spokenConversation(record)).toEqual([
      { role: "user", content: "I need help." },
      { role: "assistant", content: "Found you." },
    ]);
  });

  it("splits the agent's segment where the caller's contained one ends (a backchannel)", () => {
    const record = ticks([
      {},
      { agent: a("a") },
      { agent: a("b") },
      { agent: a("c"), user: u("m") },
      { agent: a("d"), user: u("m") },
      { agent: a("e") },
      { agent: a("f") },
    ]);
    expect(spokenConversation(record)).toEqual([
      { role: "assistant", content: "abcd" },
      { role: "user", content: "mm" },
      { role: "assistant", content: "ef" },
    ]);
  });

  it("orders crossing segments by their start; a segment inside another goes where it ends", () => {
    const crossing = ticks([{}, { agent: a("x") }, { agent: a("y"), user: u("p") }, { user: u("q") }]);
    expect(spokenConversation(crossing)).toEqual([
      { role: "assistant", content: "xy" },
      { role: "user", content: "pq" },
    ]);
    const inside = ticks([
      {},
      { agent: a("x"), user: u("p") },
      { agent: a("y"), user: u("q") },
      { user: u("r") },
    ]);
    // Agent [1,2] inside the caller's [1,3]: the caller's speech up to its end, the agent's, the rest.
    expect(spokenConversation(inside)).toEqual([
      { role: "user", content: "pq" },
      { role: "assistant", content: "xy" },
      { role: "user", content: "r" },
    ]);
    // A pause longer than the integration window makes two segments: "p" inside the agent's [1,2].
    const apart = ticks([{}, { agent: a("x"), user: u("p") }, { agent: a("y") }, { user: u("q") }]);
    expect(spokenConversation(apart).map((m) => m.content)).toEqual(["x", "p", "y", "q"]);
  });

  it("keeps a segment across pauses up to the integration window, with a space between utterances", () => {
    const paused = ticks([{}, { agent: a("ab") }, {}, { agent: a("cd") }]);
    expect(conversationMessages(paused, 1)).toEqual([
      { role: "assistant", content: "ab" },
      { role: "assistant", content: "cd" },
    ]);
    expect(conversationMessages(paused, 2)).toEqual([{ role: "assistant", content: "abcd" }]);
    const two = ticks([{}, { agent: a("Yes.", "a1") }, { agent: a("Okay.", "a2") }]);
    expect(spokenConversation(two)).toEqual([{ role: "assistant", content: "Yes. Okay." }]);
  });

  it("pairs results with their calls by id across ticks (customer tool calls from its own side)", () => {
    const messages = linearizeTicks([
      {
        self: { role: "user", content: null, tool_calls: [call("x", "user"), call("y", "user")] },
        other: null,
        env: null,
      },
      { self: null, other: null, env: [result("y", "user"), result("x", "user")] },
      {
        self: { role: "user", content: "Done.", utterance_ids: ["u"], contains_speech: true },
        other: null,
        env: null,
      },
    ]);
    expect(messages).toEqual([
      { role: "user", content: null, tool_calls: [call("x", "user"), call("y", "user")] },
      result("y", "user"),
      result("x", "user"),
      { role: "user", content: "Done." },
    ]);
  });

  it("gives the evaluators the tool calls in the order they ran (the customer's first in a tick)", () => {
    const record = ticks([
      {},
      {
        agentCalls: [call("a")],
        agentResults: [result("a")],
        userCalls: [call("u", "user")],
        userResults: [result("u", "user")],
      },
    ]);
    expect(toolTrajectory(record).map((m) => (m.role === "tool" ? `tool ${m.id}` : m.role))).toEqual([
      "user",
      "tool u",
      "assistant",
      "tool a",
    ]);
  });

  it("gives the communicate check one message per agent utterance", () => {
    const record = ticks([
      {},
      { agent: a("The code is ", "a1") },
      { agent: a("52", "a1") },
      { agent: a("44.", "a1") },
      {},
    ]);
    record[0]!.agent_chunk = { ...chunk("assistant", "Hi! How can I help you today?"), chunk_id: 0 };
    expect(agentUtterances(record).map((m) => m.content)).toEqual([
      "Hi! How can I help you today?",
      "The code is 5244.",
      null,
    ]);
  });

  it("counts caller turns the agent left unanswered (the reference's responsiveness info)", () => {
    const caller = [0, 1, 1, 0, 0, 0, 0, 1, 0, 1];
    const agent = [0, 0, 0, 0, 1, 1, 0, 0, 0, 0];
    const record = ticks(
      caller.map((c, i) => ({ ...(c ? { user: u("y") } : {}), ...(agent[i] ? { agent: a("x") } : {}) })),
    );
    expect(responsiveness(record)).toEqual({
      total_user_turns: 3,
      total_agent_turns: 1,
      max_unresponded_user_turns: 2,
      had_unresponsive_period: false,
    });
  });
});
