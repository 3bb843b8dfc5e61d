import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { deterministicReview, type FailedSimulation } from "./checks.js";
import { reviewSimulations } from "./review-run.js";

// Trajectories built by hand with a known culprit: each check must find the culprit it claims to cover,
// at the right turn, and must not fire on the innocent variant.

const data = (name: string) => new DomainData(builtinDomains.get(name)!, tau2DataDir());
const airline = data("airline");
const telecom = data("telecom");
const mock = data("mock");

const say = (role: "assistant" | "user", content: string): Message => ({ role, content });
const call = (role: "assistant" | "user", name: string, args: Record<string, unknown>): Message => ({
  role,
  content: null,
  tool_calls: [{ id: `c-${name}`, name, arguments: args, requestor: role }],
});
const numbered = (messages: Message[]): Message[] => messages.map((m, i) => ({ ...m, turn_idx: i }));

function review(domain: DomainData, taskId: string, simulation: FailedSimulation, goldReachesGoal = true) {
  return deterministicReview(simulation, {
    task: domain.task(taskId),
    domain: domain.domain,
    goldReachesGoal,
  });
}

describe("deterministic blame checks", () => {
  it("infrastructure errors are the infrastructure's, or the simulator's when it failed", () => {
    const base = { messages: [], termination_reason: "infrastructure_error" };
    expect(review(airline, "7", { ...base, info: { error: "HTTP 503" } })).toMatchObject({
      culprit: "infrastructure",
    });
    expect(
      review(airline, "7", { ...base, info: { fault: "user_simulator", error: "empty" } }),
    ).toMatchObject({
      culprit: "user_simulator",
      check: "simulator-fault",
    });
  });

  it("a task whose gold actions do not reach its goal is the task's (mock's two defective tasks, found by gold replay)", async () => {
    const failed = { termination_reason: "user_stop", messages: [], reward_info: { reward: 0 } };
    const { reviews } = await reviewSimulations(
      ["update_task_with_user_tools", "create_task_1"].map((task_id) => ({
        domain: "mock",
        task_id,
        trial: 0,
        ...failed,
      })),
      {
        taskOf: (_d, id) => mock.task(id),
        domainOf: () => ({ domain: mock.domain, policy: mock.policy, newWorld: (o) => mock.newWorld(o) }),
      },
    );
    expect(reviews.map((r) => [r.task_id, r.review.culprit])).toEqual([
      ["update_task_with_user_tools", "task"],
      ["create_task_1", "undetermined"],
    ]);
  });

  it("the customer claiming an action it never took (telecom's phone)", () => {
    const messages = numbered([
      say("assistant", "Hi! How can I help you today?"),
      say("user", "My mobile data does not work."),
      say("assistant", "Please turn off airplane mode."),
      say("user", "I've turned the airplane mode off, still nothing."),
    ]);
    const taskId = telecom.tasks[0]!.id;
    expect(review(telecom, taskId, { termination_reason: "user_stop", messages })).toMatchObject({
      culprit: "user_simulator",
      check: "customer-claimed-undone-action",
      turn: 3,
    });
    // Innocent: it did call the tool first.
    const honest = numbered([
      ...messages.slice(0, 3),
      call("user", "toggle_airplane_mode", {}),
      messages[3]!,
    ]);
    expect(review(telecom, taskId, { termination_reason: "user_stop", messages: honest })?.check).not.toBe(
      "customer-claimed-undone-action",
    );
  });

  it("the customer stating a fact absent from its scenario", () => {
    const messages = numbered([
      say("assistant", "Hi! How can I help you today?"),
      say("user", "Please cancel reservation QQ77ZZ for me."),
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages })).toMatchObject({
      culprit: "user_simulator",
      check: "customer-invented-fact",
      turn: 1,
    });
    const fromScenario = numbered([messages[0]!, say("user", "Please cancel reservation XEHM4B.")]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages: fromScenario })?.check).not.toBe(
      "customer-invented-fact",
    );
  });

  it("a description of the problem is not a claim; a claim cites the customer's words and the missing call", () => {
    const taskId = "[mobile_data_issue]data_mode_off[PERSONA:None]";
    const opening = say(
      "user",
      "Hi, I've been having some issues with my mobile data. It's either not working at all or it's extremely slow.",
    );
    const described = numbered([
      say("assistant", "Hi! How can I help?"),
      opening,
      say("assistant", "Let me look."),
    ]);
    expect(review(telecom, taskId, { termination_reason: "user_stop", messages: described })).toBeUndefined();
    const claimed = numbered([...described, say("user", "Okay, I've turned mobile data on now. What next?")]);
    const found = review(telecom, taskId, { termination_reason: "user_stop", messages: claimed });
    expect(found).toMatchObject({
      culprit: "user_simulator",
      check: "customer-claimed-undone-action",
      turn: 3,
    });
    expect(found?.evidence).toEqual([
      { turn: 3, who: "customer", quote: "Okay, I've turned mobile data on now." },
      {
        turn: null,
        who: "customer",
        quote: "no toggle_data call by the customer exists in the conversation",
      },
    ]);
  });

  it("the customer ending right after the agent offered to do the undone gold work, and not after small talk", () => {
    const messages = numbered([
      say("assistant", "Hi! How can I help you today?"),
      say("user", "I want to cancel XEHM4B and 59XX6W."),
      say("assistant", "I can cancel both. Shall I go ahead and cancel 59XX6W first?"),
      say("user", "###STOP###"),
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages })).toMatchObject({
      culprit: "user_simulator",
      check: "customer-ended-while-reachable",
      turn: 3,
    });
    const smallTalk = numbered([
      ...messages.slice(0, 2),
      say("assistant", "59XX6W has been looked at. Is there anything else?"),
      messages[3]!,
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages: smallTalk })).toBeUndefined();
  });

  it("a call answered with an error that the agent never retried is the agent's, citing the error", () => {
    const messages = numbered([
      say("user", "Please cancel XEHM4B."),
      call("assistant", "cancel_reservation", { reservation_id: "XEHM4B" }),
      {
        role: "tool",
        id: "c-cancel_reservation",
        content: "Error: the request timed out after 30 seconds and was not processed. Try again.",
        requestor: "assistant",
        error: true,
      },
      say("assistant", "All done! It is cancelled."),
    ]);
    const found = review(airline, "7", { termination_reason: "user_stop", messages });
    expect(found).toMatchObject({ culprit: "agent", check: "errored-call-not-retried", turn: 1 });
    expect(found?.evidence?.map((e) => e.quote)).toContain(
      "Error: the request timed out after 30 seconds and was not processed. Try again.",
    );
    // Retried and answered: nothing to blame the retry on.
    const retried = numbered([
      ...messages.slice(0, 3),
      call("assistant", "cancel_reservation", { reservation_id: "XEHM4B" }),
      { role: "tool", id: "c-cancel_reservation", content: "{}", requestor: "assistant", error: false },
      say("assistant", "Done now."),
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages: retried })?.check).not.toBe(
      "errored-call-not-retried",
    );
  });

  it("a write with other arguments than the gold call names the argument, unless the customer said the value", () => {
    const cancel = (id: string) => [
      call("assistant", "cancel_reservation", { reservation_id: id }),
      {
        role: "tool" as const,
        id: "c-cancel_reservation",
        content: "{}",
        requestor: "assistant" as const,
        error: false,
      },
    ];
    const agentsMistake = numbered([say("user", "Cancel my reservations please."), ...cancel("NQNU5R")]);
    const found = review(airline, "7", { termination_reason: "user_stop", messages: agentsMistake });
    expect(found).toMatchObject({ culprit: "agent", check: "wrong-write-arguments", turn: 1 });
    expect(found?.reason).toContain('reservation_id: "NQNU5R", gold');
    const customersWords = numbered([say("user", "Cancel NQNU5R please."), ...cancel("NQNU5R")]);
    expect(
      review(airline, "7", { termination_reason: "user_stop", messages: customersWords })?.check,
    ).not.toBe("wrong-write-arguments");
  });

  it("an extra write no gold action makes is the agent's when the database ended different, unless the customer named it", () => {
    const extra = (said: string) =>
      numbered([
        say("user", said),
        call("assistant", "cancel_reservation", { reservation_id: "NQNU5R" }),
        { role: "tool", id: "c-cancel_reservation", content: "{}", requestor: "assistant", error: false },
      ]);
    const graded = { reward: 0, db_check: { db_match: false, db_reward: 0 } };
    // Task 1's gold only looks things up: the cancellation is the agent's own idea.
    const found = review(airline, "1", {
      termination_reason: "user_stop",
      messages: extra("Please help with my trip."),
      reward_info: graded,
    });
    expect(found).toMatchObject({ culprit: "agent", check: "unexpected-write", turn: 1 });
    // The customer named it — an id its scenario does not hold: the customer's own invention.
    expect(
      review(airline, "1", {
        termination_reason: "user_stop",
        messages: extra("Cancel NQNU5R."),
        reward_info: graded,
      }),
    ).toMatchObject({ culprit: "user_simulator", check: "customer-invented-fact" });
    expect(
      review(airline, "1", {
        termination_reason: "user_stop",
        messages: extra("Please help with my trip."),
        reward_info: { reward: 0, db_check: { db_match: true, db_reward: 1 } },
      }),
    ).toBeUndefined();
  });

  it("acting without an explicit confirmation is left to the reviewer: passing conversations do it too", () => {
    const messages = numbered([
      say("assistant", "Hi! How can I help you today?"),
      say("user", "I want to cancel XEHM4B."),
      call("assistant", "get_reservation_details", { reservation_id: "XEHM4B" }),
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages })).toBeUndefined();
  });

  it("an agent that kept erroring is the agent's; running out of steps is not guessed", () => {
    const errors = numbered([
      call("assistant", "toggle_data", {}),
      {
        role: "tool",
        id: "c-toggle_data",
        content: "Error: Tool 'toggle_data' not found.",
        requestor: "assistant",
        error: true,
      },
    ]);
    expect(
      review(telecom, telecom.tasks[0]!.id, { termination_reason: "too_many_errors", messages: errors }),
    ).toMatchObject({
      culprit: "agent",
      check: "agent-termination",
    });
    expect(review(airline, "7", { termination_reason: "max_steps", messages: [] })).toBeUndefined();
    expect(review(airline, "7", { termination_reason: "user_stop", messages: [] })).toBeUndefined();
  });
});
