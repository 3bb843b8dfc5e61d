import { createHash } from "node:crypto";
import { goldAgent } from "../agents/gold-agent.js";
import type { Agent } from "../core/agent.js";
import { startAgent, taskReadingAgent } from "../core/task-reading-agent.js";

/**
 * A seeded flaky agent with a known success probability per task, for testing what statistics and
 * adaptive trials make of chance: in each conversation it plays the task's gold actions (as
 * `scripted:gold`) with probability `successProbability(taskId)`, decided by a hash of the task and
 * the trial's seed — so a run is reproducible and trials are independent — and otherwise only says it
 * cannot help.
 */
export function flakyGoldAgent(successProbability: (taskId: string) => number): Agent {
  return taskReadingAgent({ name: "flaky-gold", model: "flaky-gold" }, (init, task) => {
    const draw = createHash("sha256").update(`${task.id}\u0000${init.seed}`).digest().readUInt32BE(0);
    if (draw / 2 ** 32 < successProbability(task.id)) return startAgent(goldAgent, init, task);
    return {
      respond: async () => ({
        role: "assistant",
        content: "I am sorry, I cannot help with that.",
        cost: 0,
      }),
    };
  });
}

/**
 * A fixed spread of per-task success probabilities, by a hash of the task id: a third of the tasks
 * always pass, a sixth never do, and the rest pass with 0.2, 0.4, 0.6 or 0.8 — roughly the mix real
 * agents show (most tasks decided, some flaky).
 */
export function spreadSuccessProbability(taskId: string): number {
  const bucket = createHash("sha256").update(taskId).digest().readUInt32BE(0) % 12;
  return [1, 1, 1, 1, 0, 0, 0.2, 0.4, 0.6, 0.8, 0.4, 0.6][bucket]!;
}
