import { AGENT_STOP_TOKEN, USER_STOP_TOKENS, type AgentSession, type UserSession } from "../core/agent.js";
import {
  hasToolCalls,
  malformedArgumentsError,
  type AssistantMessage,
  type Message,
  type ToolCall,
  type ToolMessage,
  type UserMessage,
} from "../core/message.js";
import type { BoundaryAnswer, ToolBoundary } from "../core/perturbation.js";
import { diffDb } from "../env/db-diff.js";
import type { World } from "../env/world.js";
import { UserSimulatorError } from "./errors.js";
import type { SimulationEvent } from "./events.js";
import { executeToolCall } from "./tool-call.js";
import type { TurnRules } from "./turn-rules.js";
import type { TurnState } from "./turn-state.js";

/** What a turn works with: the state it changes, the rules, the world and the participants. */
export interface Conversation {
  readonly state: TurnState;
  readonly rules: TurnRules;
  readonly world: World;
  readonly agent: AgentSession;
  /** Absent in solo mode. */
  readonly user: UserSession | undefined;
  readonly solo: boolean;
  readonly toolBoundary: ToolBoundary | undefined;
  /**
   * A participant's failure: a stop, the wall-clock limit or a set-up error (all rethrown), the
   * provider's, or the participant's own.
   */
  readonly classify: (error: unknown) => "infrastructure_error" | "agent_error";
}

/**
 * `taken`: a message (or a batch of tool results) joined the conversation, a step to count.
 * `abandoned`: the speaker failed or its message was refused; the conversation has ended, no step taken.
 */
export type TurnOutcome = "taken" | "abandoned";

/** The next turn, by who spoke and who is to answer. */
export async function* takeTurn(c: Conversation): AsyncGenerator<SimulationEvent, TurnOutcome> {
  const { from, to } = c.state;
  if (to === "user" && (from === "agent" || from === "env")) return yield* userTurn(c);
  if (to === "agent" && (from === "user" || from === "env")) return yield* agentTurn(c);
  if (to === "env") return yield* toolTurn(c);
  throw new Error(`invalid turn: ${from} → ${to}`);
}

/** The customer answers what it was sent. */
async function* userTurn(c: Conversation): AsyncGenerator<SimulationEvent, TurnOutcome> {
  const { state } = c;
  let message: UserMessage;
  try {
    message = state.stamp(await c.user!.respond(state.pending));
  } catch (error) {
    if (c.classify(error) === "infrastructure_error") state.fail("infrastructure_error", error);
    else state.simulatorFault(new UserSimulatorError(error));
    return "abandoned";
  }
  const refused = c.rules.refuse(message, "user");
  if (refused) {
    state.end(refused);
    return "abandoned";
  }
  state.append(message);
  yield { type: "message", message };
  if (message.usage) yield usageEvent("user", message);
  if (isUserStop(message)) state.stop("user_stop");
  state.spoke(message);
  return "taken";
}

/** The agent answers what it was sent; a solo agent must call tools or stop. */
async function* agentTurn(c: Conversation): AsyncGenerator<SimulationEvent, TurnOutcome> {
  const { state } = c;
  let message: AssistantMessage;
  try {
    message = state.stamp(await c.agent.respond(state.pending));
  } catch (error) {
    state.fail(c.classify(error), error);
    return "abandoned";
  }
  const refused = c.rules.refuse(message, "agent");
  if (refused) {
    state.end(refused);
    return "abandoned";
  }
  state.append(message);
  yield { type: "message", message };
  if (message.usage) yield usageEvent("assistant", message);
  if (agentStops(message, c.rules, c.solo)) state.stop("agent_stop");
  state.spoke(message);
  if (c.solo && state.to === "user" && !state.ended)
    state.fail("agent_error", new Error("in solo mode the agent may only call tools or stop"));
  return "taken";
}

/** The environment runs the caller's tool calls in order; the results go back to the caller together. */
async function* toolTurn(c: Conversation): AsyncGenerator<SimulationEvent, TurnOutcome> {
  const { state, world } = c;
  const caller = state.pending[0] as AssistantMessage | UserMessage;
  const results: ToolMessage[] = [];
  for (const call of caller.tool_calls ?? []) {
    yield { type: "tool-call-start", call };
    const before = world.fork();
    const began = performance.now();
    const result = await answerToolCall(c, { ...call, requestor: caller.role });
    const toolMessage = state.stamp<ToolMessage>({
      id: call.id,
      role: "tool",
      content: result.content,
      requestor: caller.role,
      error: result.error,
      ...(result.marks && result.marks.length > 0 ? { perturbations: result.marks } : {}),
    });
    state.toolAnswered(toolMessage);
    results.push(toolMessage);
    yield { type: "tool-call-end", call, result: toolMessage, latencyMs: performance.now() - began };
    yield { type: "message", message: toolMessage };
    yield* worldChanges(before, world);
  }
  state.toolsReturned(results);
  return "taken";
}

/**
 * The world's answer to one call, through the perturbations at its boundary. Only the agent's calls to
 * tools that exist meet perturbations (a call that cannot run gets its own error); the customer's own
 * tools (their phone) stay clean.
 */
async function answerToolCall(c: Conversation, routed: ToolCall): Promise<BoundaryAnswer> {
  const { world } = c;
  const boundary =
    routed.requestor === "assistant" && world.hasTool(routed.name) && !malformedArgumentsError(routed)
      ? c.toolBoundary
      : undefined;
  const info = { mutatesState: boundary !== undefined && world.toolMutatesState(routed.name) };
  const faulted = boundary?.before(routed, info);
  if (faulted) return faulted;
  const answer = executeToolCall(world, routed);
  // Only a read tool searching through an API answers asynchronously; the rest stay synchronous.
  const result = answer instanceof Promise ? await answer : answer;
  return boundary ? boundary.after(routed, info, result) : result;
}

/** Whether an agent message ends the conversation: its stop token, where the rules let it. */
export function agentStops(message: Message, rules: TurnRules, solo: boolean): boolean {
  return (
    message.role === "assistant" &&
    !hasToolCalls(message) &&
    (message.content?.includes(AGENT_STOP_TOKEN) ?? false) &&
    rules.agentStopEnds(solo)
  );
}

export function isUserStop(message: Message): boolean {
  return (
    typeof message.content === "string" && USER_STOP_TOKENS.some((token) => message.content!.includes(token))
  );
}

/** What a step changed in the world's databases, side by side. */
export function* worldChanges(before: World, after: World): Generator<SimulationEvent> {
  const { agent, user, sharedDb } = after.domain;
  if (before.agentDb !== after.agentDb) {
    const changes = agent.diff
      ? agent.diff(before.agentDb, after.agentDb)
      : diffDb(before.agentDb, after.agentDb);
    yield { type: "world-change", side: "agent", changes };
  }
  // One database shared by both sides changes once, as the agent's.
  if (!sharedDb && before.userDb !== after.userDb && after.userDb !== undefined) {
    const changes = user?.diff ? user.diff(before.userDb, after.userDb) : diffDb(before.userDb, after.userDb);
    yield { type: "world-change", side: "user", changes };
  }
}

function usageEvent(role: "assistant" | "user", message: AssistantMessage | UserMessage): SimulationEvent {
  return {
    type: "usage",
    role,
    promptTokens: message.usage?.prompt_tokens ?? 0,
    completionTokens: message.usage?.completion_tokens ?? 0,
    cost: message.cost ?? null,
  };
}
