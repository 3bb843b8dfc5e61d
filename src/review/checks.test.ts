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
    policy: domain.policy,
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

  it("the customer ending while the agent asks, before the work could be done", () => {
    const messages = numbered([
      say("assistant", "Hi! How can I help you today?"),
      say("user", "I want to cancel XEHM4B and 59XX6W."),
      say("assistant", "I can cancel both. Shall I go ahead?"),
      say("user", "###STOP###"),
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages })).toMatchObject({
      culprit: "user_simulator",
      check: "customer-ended-early",
      turn: 3,
    });
  });

  it("the agent acting before the explicit confirmation its policy requires", () => {
    const messages = numbered([
      say("assistant", "Hi! How can I help you today?"),
      say("user", "I want to cancel XEHM4B."),
      call("assistant", "cancel_reservation", { reservation_id: "XEHM4B" }),
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages })).toMatchObject({
      culprit: "agent",
      check: "acted-without-confirmation",
      turn: 2,
    });
    const confirmed = numbered([
      ...messages.slice(0, 2),
      say("assistant", "Cancel XEHM4B, refund to the original payment. Confirm?"),
      say("user", "Yes, please go ahead."),
      messages[2]!,
    ]);
    expect(review(airline, "7", { termination_reason: "user_stop", messages: confirmed })).toBeUndefined();
  });

  it("an agent that ran out of steps or errors is the agent's; nothing is guessed otherwise", () => {
    expect(review(airline, "7", { termination_reason: "max_steps", messages: [] })).toMatchObject({
      culprit: "agent",
    });
    expect(review(airline, "7", { termination_reason: "user_stop", messages: [] })).toBeUndefined();
  });
});
