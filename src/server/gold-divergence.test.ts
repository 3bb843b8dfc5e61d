import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import type { Action } from "../core/task.js";
import { goldDivergence, goldMatches, type GoldReference } from "./gold-divergence.js";

const WRITES = new Set(["cancel_reservation", "book_reservation", "toggle_airplane_mode"]);

const action = (
  name: string,
  args: Record<string, unknown>,
  requestor: "assistant" | "user" = "assistant",
): Action => ({
  action_id: name,
  requestor,
  name,
  arguments: args,
  info: null,
  compare_args: null,
});

let ids = 0;
const agentCalls = (...calls: Array<[string, Record<string, unknown>]>): Message => ({
  role: "assistant",
  content: null,
  tool_calls: calls.map(([name, args]) => ({
    id: `c${ids++}`,
    name,
    arguments: args,
    requestor: "assistant" as const,
  })),
});
const customerCalls = (...calls: Array<[string, Record<string, unknown>]>): Message => ({
  role: "user",
  content: null,
  tool_calls: calls.map(([name, args]) => ({
    id: `c${ids++}`,
    name,
    arguments: args,
    requestor: "user" as const,
  })),
});
const result = (): Message => ({
  role: "tool",
  id: `c${ids}`,
  content: "{}",
  requestor: "assistant",
  error: false,
});
const agent = (content: string): Message => ({ role: "assistant", content });
const customer = (content: string): Message => ({ role: "user", content });

const GOLD = [
  action("get_reservation_details", { reservation_id: "A" }),
  action("cancel_reservation", { reservation_id: "A" }),
  action("cancel_reservation", { reservation_id: "B" }),
];
const reference = (actions: readonly Action[] = GOLD, actionsCounted = false): GoldReference => ({
  actions,
  changesState: (name) => WRITES.has(name),
  actionsCounted,
});

describe("goldDivergence", () => {
  it("finds none when the trajectory does every gold action in order, extra lookups included", () => {
    const messages = [
      agent("Hi"),
      customer("Cancel A and B"),
      agentCalls(["get_user_details", { user_id: "u" }]),
      result(),
      agentCalls(["get_reservation_details", { reservation_id: "A" }]),
      result(),
      agentCalls(["cancel_reservation", { reservation_id: "A" }]),
      result(),
      agentCalls(["cancel_reservation", { reservation_id: "B" }]),
      result(),
      agent("Done"),
    ];
    expect(goldDivergence(messages, reference())).toBeNull();
    expect(goldMatches(messages, GOLD)).toEqual([true, true, true]);
  });

  it("places a missing write at the agent's first turn after the gold action before it", () => {
    const messages = [
      agent("Hi"),
      customer("Cancel A and B"),
      agentCalls(["get_reservation_details", { reservation_id: "A" }]),
      result(),
      agentCalls(["cancel_reservation", { reservation_id: "A" }]),
      result(),
      agent("1628"), // index 6: where cancel_reservation(B) was due
      customer("Thanks ###STOP###"),
    ];
    expect(goldDivergence(messages, reference())).toEqual({
      messageIndex: 6,
      kind: "missing-action",
      expectedAction: 2,
      sentence: 'Gold action 3, cancel_reservation({"reservation_id":"B"}), was never done; it was due here.',
    });
    expect(goldMatches(messages, GOLD)).toEqual([true, true, false]);
  });

  it("names a write with other arguments than the gold action of that tool", () => {
    const messages = [
      agent("Hi"),
      customer("Cancel A"),
      agentCalls(["get_reservation_details", { reservation_id: "A" }]),
      result(),
      agentCalls(["cancel_reservation", { reservation_id: "Z" }]), // index 4
      result(),
    ];
    const found = goldDivergence(messages, reference(GOLD.slice(0, 2)));
    expect(found).toMatchObject({ messageIndex: 4, kind: "wrong-arguments", expectedAction: 1 });
    expect(found?.sentence).toContain("(in reservation_id)");
  });

  it("calls a write that no gold action does unexpected, even when all gold actions are done too", () => {
    const messages = [
      agentCalls(["book_reservation", { flight: "X" }]), // index 0
      result(),
      agentCalls(["get_reservation_details", { reservation_id: "A" }]),
      result(),
      agentCalls(["cancel_reservation", { reservation_id: "A" }]),
      agentCalls(["cancel_reservation", { reservation_id: "B" }]),
    ];
    expect(goldDivergence(messages, reference())).toMatchObject({
      messageIndex: 0,
      kind: "unexpected-call",
      expectedAction: null,
    });
  });

  it("calls doing a later write before an earlier one out of order, but not skipping a lookup", () => {
    const outOfOrder = [
      agentCalls(["get_reservation_details", { reservation_id: "A" }]),
      agentCalls(["cancel_reservation", { reservation_id: "B" }]), // index 1, before A's cancellation
      agentCalls(["cancel_reservation", { reservation_id: "A" }]),
    ];
    expect(goldDivergence(outOfOrder, reference())).toMatchObject({
      messageIndex: 1,
      kind: "out-of-order",
      expectedAction: 1,
    });
    const skippedLookup = [
      agentCalls(["cancel_reservation", { reservation_id: "A" }]),
      agentCalls(["cancel_reservation", { reservation_id: "B" }]),
    ];
    // The lookup is never done: a departure only when the reward counts actions.
    expect(goldDivergence(skippedLookup, reference())).toBeNull();
    expect(goldDivergence(skippedLookup, reference(GOLD, true))).toMatchObject({
      kind: "missing-action",
      expectedAction: 0,
    });
  });

  it("places the customer's missing action at the agent's turn after the customer said what is wrong", () => {
    const gold = [action("toggle_airplane_mode", {}, "user")];
    const messages = [agent("Hi"), customer("No service"), agent("Done."), customer("Thanks ###STOP###")];
    expect(goldDivergence(messages, reference(gold))).toEqual({
      messageIndex: 2,
      kind: "missing-action",
      expectedAction: 0,
      sentence:
        "Gold action 1, the customer's toggle_airplane_mode({}), was never done; the agent should have led them to it here.",
    });
    const done = [
      agent("Hi"),
      customer("No service"),
      agent("Turn airplane mode off"),
      customerCalls(["toggle_airplane_mode", {}]),
    ];
    expect(goldDivergence(done, reference(gold))).toBeNull();
  });
});
