import { goldFinalMessage } from "../../src/agents/gold-agent.js";
import type { Task } from "../../src/core/task.js";
import { mockReply } from "../../src/testing/mock-llm-reply.js";
import { goldVoicePolicy } from "../../src/testing/gold-voice-policy.js";
import type { MockRealtimeBrain } from "../../src/testing/mock-realtime-server.js";

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

/** A task whose gold actions change the database with a value the caller says (an id). */
export function taskWithSpokenId(tasks: readonly Task[]): { task: Task; said: string; tool: string } {
  for (const task of tasks) {
    const scenario = scenarioText(task);
    for (const action of task.evaluation_criteria?.actions ?? []) {
      if (action.requestor === "user" || /^(get|search|list|calculate)_/.test(action.name)) continue;
      const value = Object.values(action.arguments).find(
        (v): v is string => typeof v === "string" && v.length >= 6 && scenario.includes(v),
      );
      if (value) return { task, said: value, tool: action.name };
    }
  }
  throw new Error("no task that writes with a spoken id");
}

/** The gold brain of these tasks, but passing `value` to a tool it changes its last character (mishears it). */
export function mishearingBrain(tasks: readonly Task[], value: string): MockRealtimeBrain {
  const gold = goldVoicePolicy(tasks);
  const wrong = `${value.slice(0, -1)}${value.endsWith("9") ? "8" : "9"}`;
  const swap = (v: unknown): unknown => (v === value ? wrong : v);
  return {
    respond(trigger) {
      const turn = gold.respond(trigger);
      if (!turn?.toolCalls) return turn;
      return {
        ...turn,
        toolCalls: turn.toolCalls.map((call) => ({
          name: call.name,
          arguments: Object.fromEntries(Object.entries(call.arguments).map(([k, v]) => [k, swap(v)])),
        })),
      };
    },
  };
}
