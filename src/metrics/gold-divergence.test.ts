import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import type { Action, Task } from "../core/task.js";
import { goldDivergence, goldReferenceOf, goldMatches, type GoldReference } from "./gold-divergence.js";

const WRITES = new Set(["cancel_reservation", "book_reservation", "toggle_airplane_mode", "reboot_device"]);

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
const reference = (
  actions: readonly Action[] = GOLD,
  actionsCounted = false,
  stateCounted = true,
): GoldReference => ({
  actions,
  changesState: (name) => WRITES.has(name),
  actionsCounted,
  stateCounted,
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

  it("places a write never attempted at the agent's last turn: the conversation ended without it", () => {
    const messages = [
      agent("Hi"),
      customer("Cancel A and B"),
      agentCalls(["get_reservation_details", { reservation_id: "A" }]),
      result(),
      agentCalls(["cancel_reservation", { reservation_id: "A" }]),
      result(),
      agent("A is cancelled."),
      customer("And B?"),
      agent("B cannot be cancelled, sorry."), // index 8: the agent's last turn
      customer("Thanks ###STOP###"),
    ];
    expect(goldDivergence(messages, reference())).toEqual({
      messageIndex: 8,
      kind: "missing-action",
      expectedAction: 2,
      sentence:
        'Gold action 3, cancel_reservation({"reservation_id":"B"}), was never done: this is the agent\'s last turn.',
    });
    expect(goldMatches(messages, GOLD)).toEqual([true, true, false]);
  });

  it("finds no departure on a task graded on what was said only: the reward basis counts no action or state", () => {
    const messages = [
      agent("Hi"),
      customer("Cancel A and B"),
      agentCalls(["cancel_reservation", { reservation_id: "A" }]),
      result(),
      agent("B cannot be cancelled, sorry."),
      customer("Thanks ###STOP###"),
    ];
    expect(goldDivergence(messages, reference(GOLD, false, true))).toMatchObject({ kind: "missing-action" });
    expect(goldDivergence(messages, reference(GOLD, false, false))).toBeNull();
    const communicateOnly: Pick<Task, "evaluation_criteria"> = {
      evaluation_criteria: {
        actions: GOLD,
        env_assertions: null,
        communicate_info: null,
        nl_assertions: null,
        reward_basis: ["COMMUNICATE"],
      },
    };
    expect(goldReferenceOf(communicateOnly, undefined)).toMatchObject({
      actionsCounted: false,
      stateCounted: false,
    });
    const dbGraded: Pick<Task, "evaluation_criteria"> = {
      evaluation_criteria: {
        actions: GOLD,
        env_assertions: null,
        communicate_info: null,
        nl_assertions: null,
        reward_basis: ["DB", "COMMUNICATE"],
      },
    };
    expect(goldReferenceOf(dbGraded, undefined)).toMatchObject({ stateCounted: true });
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
    expect(found?.sentence).toContain('in reservation_id: "Z", gold "A"');
    // A booking of another flight names the flight, not "never done".
    const book = action("book_reservation", {
      flights: [{ flight_number: "HAT136" }, { flight_number: "HAT039" }],
    });
    const wrongFlight = [
      customer("Book it"),
      agentCalls(["book_reservation", { flights: [{ flight_number: "HAT069" }] }]),
      result(),
    ];
    expect(goldDivergence(wrongFlight, reference([book]))?.sentence).toContain(
      'in flights[0].flight_number: "HAT069", gold "HAT136"; flights[1]: (none), gold {"flight_number":"HAT039"}',
    );
    const oneLeg = [
      customer("Book it"),
      agentCalls([
        "book_reservation",
        { flights: [{ flight_number: "HAT136" }, { flight_number: "HAT040" }] },
      ]),
      result(),
    ];
    expect(goldDivergence(oneLeg, reference([book]))?.sentence).toContain(
      'in flights[1].flight_number: "HAT040", gold "HAT039"',
    );
  });

  it("does not count a call its tool answered with an error as done: a failed call never redone is the departure", () => {
    const cancelA = agentCalls(["cancel_reservation", { reservation_id: "A" }]);
    const timedOut: Message = {
      role: "tool",
      id: cancelA.role === "assistant" ? cancelA.tool_calls![0]!.id : "",
      content: "Error: the request timed out after 30 seconds and was not processed. Try again.",
      requestor: "assistant",
      error: true,
    };
    const messages = [
      customer("Cancel A"),
      cancelA,
      timedOut,
      agent("All done!"),
      customer("Thanks ###STOP###"),
    ];
    const gold = GOLD.slice(1, 2);
    expect(goldDivergence(messages, reference(gold))).toMatchObject({
      messageIndex: 1,
      kind: "failed-call",
      expectedAction: 0,
    });
    expect(goldDivergence(messages, reference(gold))?.sentence).toContain("timed out");
    expect(goldMatches(messages, gold)).toEqual([false]);
    // Retried and answered: done.
    const retry = agentCalls(["cancel_reservation", { reservation_id: "A" }]);
    const answered: Message = {
      role: "tool",
      id: retry.role === "assistant" ? retry.tool_calls![0]!.id : "",
      content: "{}",
      requestor: "assistant",
      error: false,
    };
    const retried = [...messages.slice(0, 3), retry, answered, agent("Done now.")];
    expect(goldDivergence(retried, reference(gold))).toBeNull();
    expect(goldMatches(retried, gold)).toEqual([true]);
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

  it("calls doing every write, a later one before an earlier one, out of order, but not skipping a lookup", () => {
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

  it("places the customer's missing action at the agent's transfer, and ignores the customer's other troubleshooting", () => {
    const gold = [action("toggle_airplane_mode", {}, "user")];
    const messages = [
      agent("Hi"),
      customer("No service"),
      agent("Please restart your phone."),
      customerCalls(["reboot_device", {}]), // not a gold step, not a departure
      result(),
      agentCalls(["transfer_to_human_agents", { summary: "no service" }]), // index 5
      agent("YOU ARE BEING TRANSFERRED"),
    ];
    expect(goldDivergence(messages, reference(gold))).toEqual({
      messageIndex: 5,
      kind: "missing-action",
      expectedAction: 0,
      sentence:
        "Gold action 1, the customer's toggle_airplane_mode({}), was never done: the agent transferred to a human instead.",
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
