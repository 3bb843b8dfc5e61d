import { PasskError } from "../core/errors.js";
import {
  hasToolCalls,
  malformedArgumentsError,
  type Message,
  type ToolCall,
  type ToolMessage,
} from "../core/message.js";
import { toolCallNotRun } from "../core/perturbation.js";
import type { InitialState } from "../core/task.js";
import { isPyFloat, markPyFloat } from "../python/py-float.js";
import type { WorldState } from "./domain.js";
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
  if (!initialState) {
    world.sync();
    return [];
  }
  const start = { state: world.state, userIsAgent: world.userIsAgent };
  const key = initKey(initialState);
  const done = cachedInit(world, start, key);
  if (done) {
    world.replaceState(done.state, { userIsAgent: done.userIsAgent });
    return done.steps.map((step) => ({ ...step }));
  }
  const steps = initialize(world, initialState);
  rememberInit(world, start, key, {
    state: world.state,
    userIsAgent: world.userIsAgent,
    steps: steps.map((step) => ({ ...step })),
  });
  return steps;
}

function initialize(world: World, initialState: InitialState): InitStep[] {
  const steps: InitStep[] = [];
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

/**
 * Initialization is a pure function of the world it starts from (domain, state, options) and of the
 * task's initial state, and evaluating one conversation runs it up to four times from the same pristine
 * DB (the live world, the gold world, the evaluator's predicted and gold worlds). States are immutable,
 * so the result is kept and shared: keyed by the starting agent DB object (entries go with it), then by
 * the initial state's content (a task object may be copied, as the evaluator does to drop its history).
 */
interface InitResult {
  state: WorldState<unknown, unknown>;
  userIsAgent: boolean;
  steps: InitStep[];
}
interface InitEntry extends InitResult {
  world: Pick<World, "domain" | "validation" | "solo" | "context">;
  start: { state: WorldState<unknown, unknown>; userIsAgent: boolean };
}
const initCache = new WeakMap<object, Map<string, InitEntry[]>>();
/** Distinct initial states kept per pristine DB; the oldest goes first (a run holds a few thousand tasks). */
const INIT_CACHE_SIZE = 10_000;

function cachedInit(world: World, start: InitEntry["start"], key: string): InitResult | undefined {
  const entries = initCache.get(start.state.agent as object)?.get(key);
  return entries?.find(
    (entry) =>
      entry.world.domain === world.domain &&
      entry.world.validation === world.validation &&
      entry.world.solo === world.solo &&
      sameContext(entry.world.context, world.context) &&
      entry.start.state.user === start.state.user &&
      entry.start.state.session === start.state.session &&
      entry.start.userIsAgent === start.userIsAgent,
  );
}

function rememberInit(world: World, start: InitEntry["start"], key: string, result: InitResult): void {
  const base = start.state.agent as object;
  let byKey = initCache.get(base);
  if (!byKey) initCache.set(base, (byKey = new Map()));
  if (!byKey.has(key) && byKey.size >= INIT_CACHE_SIZE) byKey.delete(byKey.keys().next().value!);
  const entries = byKey.get(key) ?? [];
  entries.push({
    ...result,
    world: { domain: world.domain, validation: world.validation, solo: world.solo, context: world.context },
    start,
  });
  byKey.set(key, entries);
}

/** Tools may read the world's context, so initialization results are shared only within one context. */
function sameContext(a: World["context"], b: World["context"]): boolean {
  return a.task === b.task && a.config === b.config && a.services === b.services;
}

/** The parts of an initial state that initialization reads, as text: floats written `2.0` kept apart from `2`. */
function initKey(initialState: InitialState): string {
  const data = initialState.initialization_data;
  return JSON.stringify(
    [
      data?.agent_data ?? null,
      data?.user_data ?? null,
      initialState.initialization_actions ?? [],
      initialState.message_history ?? [],
    ],
    keyValue,
  );
}

function keyValue(this: unknown, key: string, value: unknown): unknown {
  // Only integral floats need telling apart (`2.0` vs `2`); a NUL-prefixed string stands for them.
  if (typeof value === "number" && Number.isInteger(value) && isFloatIn(this, key))
    return `\u0000py-float:${value}`;
  if (value instanceof Map) return { "\u0000map": [...value] };
  return value;
}

function isFloatIn(holder: unknown, key: string): boolean {
  return typeof holder === "object" && holder !== null && isPyFloat(holder, key);
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
    // Unknown tools, calls with unparseable arguments and calls answered by an injected fault never
    // ran; reads change nothing.
    if (
      malformedArgumentsError(call) ||
      toolCallNotRun(recorded) ||
      !world.hasTool(call.name) ||
      !world.toolMutatesState(call.name)
    )
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

/**
 * τ² `update_pydantic_model_with_dict`: nested dicts merge key by key, anything else replaces. Float
 * marks (py-float.ts) go along: a merged dict's keys keep the marks of whichever side their value came from.
 */
export function deepMerge(target: unknown, update: unknown): unknown {
  if (!isDictLike(target) || !isDictLike(update)) return update;
  const isMap = target instanceof Map;
  const result = new Map(entriesOf(target));
  const floats = new Set<string>();
  if (!isMap) for (const key of result.keys()) if (isPyFloat(target, key)) floats.add(key);
  const updateMarks = !(update instanceof Map);
  for (const [key, value] of entriesOf(update)) {
    result.set(key, result.has(key) ? deepMerge(result.get(key), value) : value);
    if (updateMarks && isPyFloat(update, key)) floats.add(key);
    else floats.delete(key);
  }
  if (isMap) return result;
  const merged = Object.fromEntries(result);
  for (const key of floats) markPyFloat(merged, key);
  return merged;
}

/** A dict: a Map or a plain object (class instances such as a `PyFloat` are values). */
function isDictLike(value: unknown): value is object {
  if (value instanceof Map) return true;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
