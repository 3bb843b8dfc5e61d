import type { ToolCall } from "../core/message.js";
import type { RewardInfo } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import { failedChecks } from "../metrics/failed-checks.js";

// Why a voice call scored below 1, in one sentence resting on the record. The failure particular to the
// phone is a value the caller said that reached a tool call changed: the agent misheard it. That is
// found by comparing each gold action with the agent's call of the same tool, value by value, where the
// gold value is one the caller actually said (it is in the caller's words on the record, not only in
// their scenario: a value they never said is not a mishearing). Anything else is the failed checks.

/** A value of the agent's tool calls that differs from what the caller said. */
export interface MisheardValue {
  tool: string;
  /** Where in the arguments (`origin`, `passengers[0].first_name`). */
  path: string;
  said: string;
  used: string;
}

function leaves(value: unknown, path: string, out: Map<string, string>): void {
  if (typeof value === "string") out.set(path, value);
  else if (Array.isArray(value)) value.forEach((item, i) => leaves(item, `${path}[${i}]`, out));
  else if (typeof value === "object" && value !== null)
    for (const [key, item] of Object.entries(value)) leaves(item, path ? `${path}.${key}` : key, out);
}

/** The said values a call carries differently (path → the value it used). */
function differences(
  said: readonly (readonly [string, string])[],
  call: ToolCall,
): [string, string, string][] {
  const used = new Map<string, string>();
  leaves(call.arguments, "", used);
  const out: [string, string, string][] = [];
  for (const [path, value] of said) {
    const got = used.get(path);
    if (got !== undefined && got !== value) out.push([path, value, got]);
  }
  return out;
}

/**
 * Values the caller said (`callerWords`: what the customer spoke, as written before speech) that reached
 * the agent's tool calls changed, gold action by gold action. A gold action is compared with the one call
 * of its tool that comes closest to it — never with a call that is another gold action's, done right (a
 * second lookup of a different id is not a mishearing of the first) — and nothing is said of an action
 * some call carried exactly.
 */
export function misheardValues(
  task: Task,
  agentCalls: readonly ToolCall[],
  callerWords: string,
): MisheardValue[] {
  const gold = (task.evaluation_criteria?.actions ?? []).filter((a) => a.requestor !== "user");
  const saidOf = gold.map((action) => {
    const values = new Map<string, string>();
    leaves(action.arguments, "", values);
    return [...values].filter(([, value]) => value.length >= 2 && callerWords.includes(value));
  });
  // A call that carries some gold action's said values exactly is that action's, heard right.
  const heardRight = (call: ToolCall) =>
    gold.some(
      (action, i) =>
        action.name === call.name && saidOf[i]!.length > 0 && differences(saidOf[i]!, call).length === 0,
    );
  const found: MisheardValue[] = [];
  gold.forEach((action, i) => {
    const said = saidOf[i]!;
    if (said.length === 0) return;
    const calls = agentCalls.filter((c) => c.name === action.name);
    if (calls.some((call) => differences(said, call).length === 0)) return;
    const closest = calls
      .filter((call) => !heardRight(call))
      .map((call) => differences(said, call))
      .filter((diff) => diff.length > 0)
      .sort((a, b) => a.length - b.length)[0];
    for (const [path, value, got] of closest ?? [])
      if (!found.some((f) => f.path === path && f.used === got))
        found.push({ tool: action.name, path, said: value, used: got });
  });
  return found;
}

/** One sentence on why a call scored below 1 (undefined when it did not). */
export function explainVoiceCall(
  task: Task,
  call: { agentCalls: readonly ToolCall[]; callerWords: string },
  rewardInfo: RewardInfo,
  terminationReason: string,
): string | undefined {
  if (rewardInfo.reward >= 1) return undefined;
  const misheard = misheardValues(task, call.agentCalls, call.callerWords);
  if (misheard.length > 0)
    return misheard
      .map((m) => `the caller said '${m.said}' and the agent used '${m.used}' (${m.tool} ${m.path})`)
      .join("; ");
  const checks = failedChecks(rewardInfo, terminationReason);
  return checks.length > 0 ? checks.map((c) => `${c.kind}: ${c.check}`).join("; ") : undefined;
}
