import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { firstDivergence, showCall } from "./trial-divergence.js";

const calls = (...list: Array<[string, Record<string, unknown>]>): Message => ({
  role: "assistant",
  content: null,
  tool_calls: list.map(([name, args], i) => ({
    id: `id${i}-${Math.random()}`,
    name,
    arguments: args,
    requestor: "assistant" as const,
  })),
});
const say = (role: "assistant" | "user", content: string): Message => ({ role, content });
const tool = (content: string): Message => ({
  role: "tool",
  id: "x",
  content,
  requestor: "assistant",
  error: false,
});

describe("firstDivergence", () => {
  const base = [
    say("assistant", "Hi"),
    say("user", "Cancel A"),
    calls(["get", { id: "A" }]),
    tool("{}"),
    calls(["cancel", { id: "A" }]),
    tool("ok"),
    say("assistant", "Done"),
  ];

  it("is null for the same conversation, whatever the call ids or key order", () => {
    const again = base.map((m) =>
      m.role === "assistant" && m.tool_calls
        ? calls(...m.tool_calls.map((c) => [c.name, { ...c.arguments }] as [string, Record<string, unknown>]))
        : m,
    );
    expect(firstDivergence(base, again)).toBeNull();
    expect(firstDivergence([calls(["f", { a: 1, b: 2 }])], [calls(["f", { b: 2, a: 1 }])])).toBeNull();
  });

  it("finds the first call that differs, before any difference in words", () => {
    const other = [
      say("assistant", "Hello there"),
      say("user", "Please cancel A"),
      calls(["get", { id: "A" }]),
      tool("{}"),
      calls(["cancel", { id: "B" }]),
      tool("ok"),
    ];
    expect(firstDivergence(base, other)).toEqual({
      a: 4,
      b: 4,
      kind: "action",
      sentence: 'Call 2 differs: cancel({"id":"A"}) in the first, cancel({"id":"B"}) in the second.',
    });
  });

  it("finds where one conversation makes a call the other never makes", () => {
    const stopped = [
      say("assistant", "Hi"),
      say("user", "Cancel A"),
      calls(["get", { id: "A" }]),
      tool("{}"),
      say("assistant", "Anything else?"),
    ];
    expect(firstDivergence(base, stopped)).toMatchObject({ a: 4, b: 4, kind: "action" });
    expect(firstDivergence(stopped, base)).toMatchObject({ a: 4, b: 4, kind: "action" });
    expect(firstDivergence(base, stopped)!.sentence).toBe(
      'After 1 common call, only the first goes on with cancel({"id":"A"}).',
    );
  });

  it("falls back to the first message whose words differ, then to length", () => {
    const reworded = base.map((m, i) => (i === 6 ? say("assistant", "All done") : m));
    expect(firstDivergence(base, reworded)).toMatchObject({ a: 6, b: 6, kind: "words" });
    expect(firstDivergence(base, [...base, say("user", "bye")])).toMatchObject({
      kind: "length",
      a: 6,
      b: 7,
    });
  });

  it("tells apart two conversations whose only difference is a tool's answer", () => {
    const answered = (error: boolean, content: string): Message[] => [
      say("user", "Cancel A"),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", name: "cancel", arguments: { id: "A" }, requestor: "assistant" }],
      },
      { role: "tool", id: "c1", content, requestor: "assistant", error },
      say("assistant", "All done!"),
    ];
    const timedOut = answered(
      true,
      "Error: the request timed out after 30 seconds and was not processed. Try again.",
    );
    expect(firstDivergence(timedOut, answered(false, '{"status": "cancelled"}'))).toEqual({
      a: 2,
      b: 2,
      kind: "result",
      sentence:
        'Call 1, cancel({"id":"A"}), was answered differently: an error, "Error: the request timed out after 30 seconds and was not processed. Try again." in the first, "{"status": "cancelled"}" in the second.',
    });
    expect(firstDivergence(timedOut, answered(true, timedOut[2]!.content!))).toBeNull();
  });

  it("shows calls cut to a length", () => {
    expect(showCall({ name: "f", arguments: { text: "x".repeat(300) } }, 20)).toBe('f({"text":"xxxxxxxx…');
  });
});
