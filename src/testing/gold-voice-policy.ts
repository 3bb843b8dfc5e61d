import { goldFinalMessage } from "../agents/gold-agent.js";
import { editDistance } from "../core/errors.js";
import type { Action, Task } from "../core/task.js";
import type { MockRealtimeBrain, MockRealtimeTrigger, MockRealtimeTurn } from "./mock-realtime-server.js";

// The gold agent of a voice call, as the mock realtime server's brain: it plays a task's gold actions in
// order like the text gold script (one tool call per response, the customer's own actions as a spoken
// request, then the final message), but what the customer must tell it — argument values that appear in
// the task's user scenario: ids, names, emails — it takes from what it actually heard, the closest
// words. Lost frames or a loud burst over an id make it mishear that id, and the call fails honestly.

type Step =
  { kind: "call"; action: Action } | { kind: "ask"; names: string[] } | { kind: "final"; text: string };

/**
 * Words of the caller a brain serving several tasks waits for before it picks one: a caller cut off after
 * a few words (a long loss on the line ends their turn early) has not said enough to tell who they are.
 */
const WORDS_TO_PICK_A_TASK = 8;

/**
 * A gold voice brain. With several tasks it picks the one whose scenario best matches what the caller
 * said first (the words shared with its reason for calling and known facts; at least
 * `WORDS_TO_PICK_A_TASK` words, over as many turns as that takes), so one server serves a run.
 */
export function goldVoicePolicy(tasks: Task | readonly Task[]): MockRealtimeBrain {
  const candidates: readonly Task[] = Array.isArray(tasks) ? tasks : [tasks as Task];
  if (candidates.length === 0) throw new Error("goldVoicePolicy needs at least one task");
  let task: Task | undefined = candidates.length === 1 ? candidates[0] : undefined;
  let steps: Step[] = [];
  let next = 0;
  let started = false;
  let awaitingCustomer = false;
  const heard: string[] = [];

  const advance = (): MockRealtimeTurn | undefined => {
    const step = steps[next++];
    if (!step) return undefined;
    if (step.kind === "call") {
      const scenario = scenarioText(task!);
      return {
        toolCalls: [{ name: step.action.name, arguments: resolve(step.action.arguments, scenario, heard) }],
      };
    }
    if (step.kind === "ask") {
      awaitingCustomer = true;
      return { say: `Please do this on your phone: ${step.names.join(", ")}.` };
    }
    return { say: step.text };
  };

  return {
    respond(trigger: MockRealtimeTrigger): MockRealtimeTurn | undefined {
      if (trigger.kind === "tool_results") return advance();
      if (trigger.text.trim() === "") return undefined;
      heard.push(trigger.text);
      if (!started) {
        if (task === undefined && words(heard.join(" ")).length < WORDS_TO_PICK_A_TASK) return undefined;
        started = true;
        task ??= bestMatch(candidates, heard.join(" "));
        steps = goldSteps(task);
        return advance();
      }
      if (awaitingCustomer) {
        awaitingCustomer = false;
        return advance();
      }
      return undefined;
    },
  };
}

function goldSteps(task: Task): Step[] {
  const actions = task.evaluation_criteria?.actions ?? [];
  const steps: Step[] = [];
  for (let i = 0; i < actions.length;) {
    if (actions[i]!.requestor !== "user") {
      steps.push({ kind: "call", action: actions[i]! });
      i++;
      continue;
    }
    const names: string[] = [];
    for (; actions[i]?.requestor === "user"; i++) names.push(actions[i]!.name.replace(/_/g, " "));
    steps.push({ kind: "ask", names });
  }
  steps.push({ kind: "final", text: goldFinalMessage(task) });
  return steps;
}

/** Every text of the task's user scenario, lower-cased: what the customer knows and may say. */
function scenarioText(task: Task): string {
  const { instructions, persona } = task.user_scenario;
  const texts = typeof instructions === "string" ? [instructions] : Object.values(instructions);
  return [...texts, persona]
    .filter((text): text is string => typeof text === "string")
    .join("\n")
    .toLowerCase();
}

function bestMatch(tasks: readonly Task[], firstTurn: string): Task {
  const said = new Set(words(firstTurn).map((word) => word.toLowerCase()));
  let best = tasks[0]!;
  let bestScore = -1;
  for (const task of tasks) {
    const own = new Set(words(scenarioText(task)));
    let score = 0;
    for (const word of own) if (said.has(word)) score++;
    const normalized = score / Math.sqrt(own.size || 1);
    if (normalized > bestScore) {
      bestScore = normalized;
      best = task;
    }
  }
  return best;
}

/** Gold arguments, with each value the customer must say replaced by the closest words heard. */
function resolve(
  args: Record<string, unknown>,
  scenario: string,
  heard: readonly string[],
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [key, resolveValue(value, scenario, heard)]),
  );
}

function resolveValue(value: unknown, scenario: string, heard: readonly string[]): unknown {
  if (typeof value === "string") return saidByCustomer(value, scenario) ? closestHeard(value, heard) : value;
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, scenario, heard));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveValue(item, scenario, heard)]),
    );
  return value;
}

/** Whether the scenario holds the value as whole words (so the customer is the one to say it). */
function saidByCustomer(value: string, scenario: string): boolean {
  if (value.trim().length < 3) return false;
  const escaped = value.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w])${escaped}($|[^\\w])`).test(scenario);
}

/**
 * The words heard (as many as the value has) closest to the value by edit distance, when some come
 * within a third of its length; otherwise the value itself.
 */
function closestHeard(value: string, heard: readonly string[]): string {
  const span = value.trim().split(/\s+/).length;
  const target = value.toLowerCase();
  let best = "";
  let bestDistance = Infinity;
  for (const turn of heard) {
    const tokens = words(turn);
    for (let i = 0; i + span <= tokens.length; i++) {
      const candidate = tokens.slice(i, i + span).join(" ");
      const distance = editDistance(candidate.toLowerCase(), target);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = candidate;
      }
    }
  }
  if (bestDistance === 0) return value;
  // Nothing heard comes close: the customer never said it (it is in the scenario, not in what they told
  // the agent), so the agent knows it the way the text gold agent does.
  if (bestDistance > Math.max(1, Math.floor(target.length / 3))) return value;
  return value === value.toUpperCase() ? best.toUpperCase() : best;
}

/** Words of a text, without the punctuation around them (kept inside: `a.b@c.com`, `raj_7340`; and an order's `#`). */
function words(text: string): string[] {
  return text
    .split(/\s+/)
    .map((word) => word.replace(/^[^\w@#]+|[^\w@]+$/g, ""))
    .filter((word) => word.length > 0);
}
