import { PasskError } from "../core/errors.js";
import {
  hasToolCalls,
  malformedArgumentsError,
  type Message,
  type ToolCall,
  type ToolMessage,
} from "../core/message.js";
import type { InitialState } from "../core/task.js";
import type { World } from "./world.js";

export interface InitStep {
  env_type: "user" | "assistant";
  func_name: string;
  arguments: Record<string, unknown>;
  /** The function's return value as τ² serialises tool output. */
  result: string;
}

/**
 * Bring a fresh world to a task's starting point, as τ² `set_state` does: merge the initialization
 * data into the databases, run the initialization actions, replay the tool calls of the message
 * history, then sync. Returns the initialization steps with their results.
 */
export function applyInitialState(world: World, initialState: InitialState | null | undefined): InitStep[] {
  const steps: InitStep[] = [];
  if (!initialState) {
    world.sync();
    return steps;
  }
  const data = initialState.initialization_data;
  if (data && (data.agent_data || data.user_data)) {
    const domain = world.domain;
    let agent = world.agentDb;
    let user = world.userDb;
    if (data.agent_data) {
      agent = domain.agent.db.parse(deepMerge(world.agentDb, data.agent_data));
      // The reference then points its user toolkit at this same agent DB object.
      world.replaceState({ agent, user }, { userIsAgent: domain.user !== undefined });
    }
    if (data.user_data) {
      if (!domain.user) {
        throw new PasskError(
          "invalid_task",
          `initialization_data.user_data given, but domain ${domain.name} has no user database`,
        );
      }
      user = domain.user.db.parse(deepMerge(world.userDb, data.user_data));
      world.replaceState({ agent, user }, { userIsAgent: false });
    }
  }
  for (const action of initialState.initialization_actions ?? []) {
    const { content } = world.runEnvFunction(action);
    steps.push({
      env_type: action.env_type,
      func_name: action.func_name,
      arguments: action.arguments,
      result: content,
    });
  }
  replayToolCalls(world, initialState.message_history ?? [], { strict: true });
  world.sync();
  return steps;
}

/** A replayed tool call whose output differs from the one recorded. */
export class ReplayMismatchError extends PasskError {
  constructor(
    readonly call: ToolCall,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      "replay_mismatch",
      `replaying tool call ${call.name} ${JSON.stringify(call.arguments)} returned\n${actual}\nbut the trajectory recorded\n${expected}`,
    );
  }
}

/**
 * Re-execute the state-changing tool calls of a trajectory on `world` (τ² evaluation replay): unknown
 * tools and tools that do not mutate state are skipped. With `strict`, a replayed output must equal
 * the recorded one (compared as JSON when both parse).
 */
export function replayToolCalls(
  world: World,
  messages: readonly Message[],
  options: { strict: boolean },
): void {
  for (const [call, recorded] of pairToolCalls(messages)) {
    // Unknown tools and calls with unparseable arguments never ran; reads change nothing.
    if (malformedArgumentsError(call) || !world.hasTool(call.name) || !world.toolMutatesState(call.name))
      continue;
    const result = world.callTool({ name: call.name, arguments: call.arguments, requestor: call.requestor });
    if (options.strict && !sameContent(result.content, recorded.content ?? "")) {
      throw new ReplayMismatchError(call, recorded.content ?? "", result.content);
    }
  }
}

/** Pair each tool call with the tool message answering it, checking τ²'s ordering rules. */
export function pairToolCalls(messages: readonly Message[]): Array<[ToolCall, ToolMessage]> {
  const pairs: Array<[ToolCall, ToolMessage]> = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "tool") {
      throw new PasskError(
        "invalid_trajectory",
        `message ${i} is a tool message that does not follow a tool call`,
      );
    }
    if (!hasToolCalls(message)) continue;
    for (const call of message.tool_calls) {
      const answer = messages[++i];
      if (!answer || answer.role !== "tool") {
        throw new PasskError(
          "invalid_trajectory",
          `tool call ${call.name} (id ${call.id}) at message ${i} has no tool message after it`,
        );
      }
      if (answer.id !== call.id) {
        throw new PasskError(
          "invalid_trajectory",
          `tool call id mismatch at message ${i}: call ${call.id}, tool message ${answer.id}`,
        );
      }
      pairs.push([{ ...call, requestor: call.requestor ?? message.role }, answer]);
    }
  }
  return pairs;
}

function sameContent(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return deepEqual(JSON.parse(a), JSON.parse(b));
  } catch {
    return false;
  }
}

/** Structural equality of JSON-like values (Python `==` on parsed JSON). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ea = entriesOf(a);
  const eb = new Map(entriesOf(b));
  return ea.length === eb.size && ea.every(([k, v]) => eb.has(k) && deepEqual(v, eb.get(k)));
}

function entriesOf(value: object): Array<[string, unknown]> {
  return value instanceof Map ? [...value] : Object.entries(value);
}

/** τ² `update_pydantic_model_with_dict`: nested dicts merge key by key, anything else replaces. */
export function deepMerge(target: unknown, update: unknown): unknown {
  if (!isDictLike(target) || !isDictLike(update)) return update;
  const isMap = target instanceof Map;
  const result = new Map(entriesOf(target));
  for (const [key, value] of entriesOf(update)) {
    result.set(key, result.has(key) ? deepMerge(result.get(key), value) : value);
  }
  return isMap ? result : Object.fromEntries(result);
}

function isDictLike(value: unknown): value is object {
  return value instanceof Map || (typeof value === "object" && value !== null && !Array.isArray(value));
}
