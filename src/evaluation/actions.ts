import { hasToolCalls, type Message, type ToolCall } from "../core/message.js";
import type { ActionCheck, RewardInfo } from "../core/simulation.js";
import type { Action, Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import { deepEqual } from "../env/set-state.js";

const toolTypesByDomain = new WeakMap<AnyDomain, ReadonlyMap<string, string>>();

/** The kind of each of a domain's tools, agent's and customer's (listed, then unlisted), by name. */
export function domainToolTypes(domain: AnyDomain): ReadonlyMap<string, string> {
  let types = toolTypesByDomain.get(domain);
  if (!types) {
    const known = new Map(
      [...domain.agent.tools, ...(domain.user?.tools ?? [])].map((t) => [t.name, t.kind]),
    );
    for (const tool of [...(domain.agent.unlisted ?? []), ...(domain.user?.unlisted ?? [])])
      if (!known.has(tool.name)) known.set(tool.name, tool.kind);
    types = known;
    toolTypesByDomain.set(domain, types);
  }
  return types;
}

/** The call that came closest to a missed gold action, and the arguments that differed. */
export interface ClosestCall {
  name: string;
  arguments: Record<string, unknown>;
  differing_arguments: string[];
}

/** τ² `Action.compare_with_tool_call`: same name, and equal values for the compared arguments. */
export function actionMatches(action: Action, call: ToolCall): boolean {
  return action.name === call.name && differingArguments(action, call).length === 0;
}

function differingArguments(action: Action, call: ToolCall): string[] {
  // With compare_args null, τ² compares the keys of the *predicted* call.
  const keys = action.compare_args ?? Object.keys(call.arguments);
  return keys.filter((key) => {
    const inCall = key in call.arguments;
    const inAction = key in action.arguments;
    if (!inCall && !inAction) return false;
    return inCall !== inAction || !deepEqual(call.arguments[key], action.arguments[key]);
  });
}

export function toolCallsOf(trajectory: readonly Message[]): ToolCall[] {
  return trajectory.flatMap((message) => (hasToolCalls(message) ? message.tool_calls : []));
}

/**
 * τ² `ActionEvaluator`: every gold action must be matched by some tool call of the conversation.
 * For a missed action, `closest_tool_call` shows the nearest call of that name and what differed.
 */
export function evaluateActions(
  task: Task,
  trajectory: readonly Message[],
  toolTypes?: ReadonlyMap<string, string>,
): RewardInfo {
  const actions = task.evaluation_criteria?.actions;
  if (!task.evaluation_criteria) {
    return {
      reward: 1.0,
      action_checks: [],
      info: { note: "No evaluation criteria" },
      reward_breakdown: { ACTION: 1.0 },
    };
  }
  if (!actions || actions.length === 0) {
    return { reward: 1.0, info: { note: "No actions to evaluate" }, reward_breakdown: { ACTION: 1.0 } };
  }
  const calls = toolCallsOf(trajectory);
  const checks: ActionCheck[] = actions.map((action) => {
    const matched = calls.some((call) => actionMatches(action, call));
    // τ² records the kind of the gold action's tool (read/write/think/generic; null for an unknown tool).
    const check: ActionCheck = {
      action,
      action_match: matched,
      action_reward: matched ? 1.0 : 0.0,
      ...(toolTypes ? { tool_type: toolTypes.get(action.name) ?? null } : {}),
    };
    if (!matched) check.closest_tool_call = closestCall(action, calls);
    return check;
  });
  const reward = checks.every((c) => c.action_match) ? 1.0 : 0.0;
  return { reward, action_checks: checks, reward_breakdown: { ACTION: reward } };
}

function closestCall(action: Action, calls: readonly ToolCall[]): ClosestCall | null {
  let best: ClosestCall | null = null;
  for (const call of calls) {
    if (call.name !== action.name) continue;
    const differing = differingArguments(action, call);
    if (!best || differing.length < best.differing_arguments.length) {
      best = { name: call.name, arguments: call.arguments, differing_arguments: differing };
    }
  }
  return best;
}
