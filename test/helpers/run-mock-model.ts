import type { Task } from "../../src/core/task.js";
import {
  goldReplies,
  isUserSimulatorRequest,
  mockReply,
  type MockLlmReply,
  type MockLlmRequest,
} from "../../src/testing/index.js";

/** How one (task, trial) of a crafted run goes. */
export type CraftedOutcome = "pass" | "fail";

export interface CraftedModelOptions {
  tasks: readonly Task[];
  /** Seeds of trials 0…K−1 (the run's `--seed` derives them). */
  trialSeeds: readonly number[];
  /** The outcome of each (task, trial); missing ones pass. */
  outcome?: (taskId: string, trial: number) => CraftedOutcome;
  /** Attempts of a (task, trial) that fail with HTTP 500 before it goes as planned (infrastructure errors). */
  infraFailures?: (taskId: string, trial: number) => number;
}

/** The customer's opening words in a task (what the crafted model says first). */
export const reasonOf = (task: Task) => {
  const instructions = task.user_scenario.instructions;
  return typeof instructions === "string" ? instructions : instructions.reason_for_call;
};

/**
 * A mock model for concurrent runs: both the agent and the user simulator of many conversations at once,
 * stateless per reply (each reply is chosen from the conversation the request carries, so interleaved
 * conversations do not disturb each other). It finds the task from the customer's opening words and
 * the trial from the `seed` the request carries, then plays the task's gold conversation — or, for a
 * failing trial, has the customer hang up at once (reward 0 for tasks that need the agent's actions).
 */
export function craftedModel(options: CraftedModelOptions): (request: MockLlmRequest) => MockLlmReply {
  const replies = new Map(options.tasks.map((task) => [task.id, goldReplies(task)]));
  const failuresLeft = new Map<string, number>();
  return (request) => {
    const seed = (request.body as { seed?: unknown }).seed;
    const trial = options.trialSeeds.indexOf(typeof seed === "number" ? seed : Number.NaN);
    if (trial < 0) return mockReply.error(400, { message: `crafted model: unknown seed ${String(seed)}` });
    const own = request.messages.filter((m) => m.role === "assistant").length;
    if (isUserSimulatorRequest(request)) {
      const task = options.tasks.find((t) => request.system.includes(reasonOf(t)));
      if (!task) return mockReply.error(400, { message: "crafted model: no task matches the scenario" });
      if (own === 0 && options.infraFailures) {
        const key = `${task.id}/${trial}`;
        const left = failuresLeft.get(key) ?? options.infraFailures(task.id, trial);
        if (left > 0) {
          failuresLeft.set(key, left - 1);
          return mockReply.error(500, { message: "crafted outage" });
        }
        failuresLeft.set(key, 0);
      }
      if ((options.outcome?.(task.id, trial) ?? "pass") === "fail")
        return mockReply.text("Never mind. ###STOP###");
      return replies.get(task.id)!.user[own] ?? mockReply.text("###STOP###");
    }
    const opening = request.messages.find((m) => m.role === "user")?.content;
    const task = options.tasks.find((t) => opening === reasonOf(t));
    if (!task) return mockReply.error(400, { message: "crafted model: no task matches the opening" });
    // The agent's history starts with its greeting.
    return replies.get(task.id)!.agent[own - 1] ?? mockReply.text("Is there anything else?");
  };
}
