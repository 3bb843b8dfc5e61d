import { goldFinalMessage } from "../../src/agents/gold-agent.js";
import type { Task } from "../../src/core/task.js";
import { mockReply } from "../../src/testing/mock-llm-reply.js";

// The mock customer of the voice tests, shared: the mock LLM's script for the customer of a voice call,
// and how to pick tasks one mock realtime server can tell apart by the caller's first words.

export function scenarioText(task: Task): string {
  const instructions = task.user_scenario.instructions;
  return typeof instructions === "string"
    ? instructions
    : [instructions.reason_for_call, instructions.known_info ?? ""].join(" ");
}

function scenarioOpening(task: Task): string {
  const instructions = task.user_scenario.instructions;
  // The prompt indents the scenario's lines: match within its first line.
  return (typeof instructions === "string" ? instructions : instructions.reason_for_call)
    .split("\n")[0]!
    .slice(0, 60);
}

/** The customer of a voice call, by ear: opens with the reason and what it knows, stops at the gold goodbye. */
export function customerScript(tasks: readonly Task[]) {
  return (request: { system: string; messages: { role: string; content?: unknown }[] }) => {
    if (request.system.startsWith("You decide how a caller")) return mockReply.text("NO");
    const task = tasks.find((t) => request.system.includes(scenarioOpening(t)));
    if (!task) return mockReply.text("Sorry, wrong number. ###STOP###");
    const heard = request.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
    if (request.messages.length <= 1 && !heard.trim()) return mockReply.text(scenarioText(task));
    if (heard.includes(goldFinalMessage(task))) return mockReply.text("Thank you, goodbye. ###STOP###");
    return mockReply.text("Okay.");
  };
}

/**
 * The first tasks of a domain with distinct customers and requests: one mock realtime server serves the whole run and
 * tells its calls apart by what the caller says first, as a real agent cannot know a task id.
 */
export function oneTaskPerCustomer(tasks: readonly Task[], count: number): Task[] {
  const seen = new Set<string>();
  return tasks
    .filter((task) => {
      const instructions = task.user_scenario.instructions;
      const keys =
        typeof instructions === "string"
          ? [instructions]
          : [instructions.known_info ?? "", instructions.reason_for_call.split(".")[0]!];
      if (keys.some((key) => seen.has(key))) return false;
      for (const key of keys) seen.add(key);
      return true;
    })
    .slice(0, count);
}
