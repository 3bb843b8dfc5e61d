import { randomUUID } from "node:crypto";
import {
  AGENT_STOP_TOKEN,
  DEFAULT_FIRST_AGENT_MESSAGE,
  USER_STOP_TOKENS,
  type Agent,
  type AgentSession,
  type AgentView,
  type UserSession,
  type UserSimulator,
} from "../core/agent.js";
import { startAgent } from "../core/task-reading-agent.js";
import { ConfigError, SimulationAbortedError } from "../core/errors.js";
import { InfrastructureError, UnusableModelOutputError, type LlmToolSpec } from "../core/llm.js";
import {
  hasToolCalls,
  malformedArgumentsError,
  type AssistantMessage,
  type Message,
  type ToolMessage,
  type UserMessage,
} from "../core/message.js";
import type { BoundaryAnswer, ToolBoundary } from "../core/perturbation.js";
import type { TurnCheckpoint } from "../core/run-store.js";
import type { SimulationRun, TerminationReason } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import { applyInitialState } from "../env/set-state.js";
import type { World } from "../env/world.js";
import { diffDb } from "../evaluation/db-diff.js";
import type { SimulationEvent } from "./events.js";
import { SimulationTimeoutError, UserSimulatorError } from "./errors.js";
import { CheckpointMismatchError, checkpointProblem, replayCheckpoint } from "./resume-checkpoint.js";
import { executeToolCall } from "./tool-call.js";

export interface SimulationSetup {
  task: Task;
  /** A fresh world of the task's domain; the orchestrator applies the task's initial state to it. */
  world: World;
  agent: Agent;
  /** The simulated customer; absent in solo mode. */
  user?: UserSimulator;
  policy: string;
  agentTools: readonly LlmToolSpec[];
  userTools: readonly LlmToolSpec[];
  solo?: boolean;
  /** Default 200, as τ². */
  maxSteps?: number;
  /** Tool errors before the conversation is stopped; default 10, as τ². */
  maxErrors?: number;
  seed?: number;
  trial?: number;
  simulationId?: string;
  /** Clock, injectable for deterministic tests. */
  now?: () => Date;
  signal?: AbortSignal;
  /**
   * Whose turn protocol: `tau2` (default for τ²'s own domains) behaves as the reference does — an agent's
   * `###STOP###` ends only a solo conversation, and model output the reference cannot use (tool-call
   * arguments that are not JSON, an empty message) fails the simulation as an infrastructure error, to
   * be run again. `passk` (default) answers bad arguments with an error the model can act on, ends on
   * the agent's stop token, and counts an empty message against whoever sent it.
   */
  protocol?: "tau2" | "passk";
  /**
   * Wall-clock limit of the whole conversation, in milliseconds: past it the conversation ends as an
   * infrastructure error (a stuck provider is nobody's score), the call in flight aborted. Default
   * {@link DEFAULT_MAX_DURATION_MS}.
   */
  maxDurationMs?: number;
  /**
   * Perturbations at the world boundary (`--perturb`): may answer an agent's tool call with a fault
   * instead of running it, or change what the world answered; what they did is marked on the tool message.
   */
  toolBoundary?: ToolBoundary;
  /**
   * Continue an interrupted conversation from its last completed turn (`--checkpoint-turns`): the world
   * is rebuilt by running the recorded tool calls again, each answer checked against the recorded one
   * (a mismatch throws `CheckpointMismatchError` before anyone is called), the counters are restored,
   * and the participants start with the messages so far as their history.
   */
  resume?: TurnCheckpoint;
  /**
   * Called after each completed turn (a message, or a batch of tool results) with the conversation so
   * far, and awaited; a failure to save is reported once and the conversation goes on.
   */
  checkpoint?: (checkpoint: TurnCheckpoint) => Promise<void>;
}

type Role = "agent" | "user" | "env";

/**
 * Run one conversation with τ²-bench's turn protocol and yield what happens as it happens; the
 * generator's return value is the finished simulation (ungraded: `reward_info` is null).
 *
 * Protocol: the agent opens with its greeting (or the task's message history is replayed), then the
 * customer and the agent alternate. A message with tool calls goes to the environment, and the results
 * go back to whoever called. The world syncs after every step. The conversation ends when the
 * customer says a stop token, the agent says `###STOP###` (solo agents, via `done`), after
 * `maxSteps` steps, after `maxErrors` tool errors, or when a participant fails.
 */
export async function* simulate(setup: SimulationSetup): AsyncGenerator<SimulationEvent, SimulationRun> {
  const now = setup.now ?? (() => new Date());
  const maxSteps = setup.maxSteps ?? 200;
  const maxErrors = setup.maxErrors ?? 10;
  const seed = setup.seed ?? 0;
  const trial = setup.trial ?? 0;
  const solo = setup.solo ?? false;
  const resume = setup.resume;
  const simulationId = resume?.simulationId ?? setup.simulationId ?? randomUUID();
  const tau2 = setup.protocol === "tau2";
  const { task, world } = setup;
  // A resumed conversation is rebuilt (and checked) before anything is reported or anyone is called.
  if (resume) {
    const problem = checkpointProblem(resume, task, { maxSteps, maxErrors, solo, now: now() });
    if (problem !== undefined) throw new CheckpointMismatchError(problem);
    await replayCheckpoint(world, task, resume);
  }
  const started = resume ? new Date(resume.startedAt) : now();
  const startedPerf = performance.now();
  /** Seconds the conversation has run, earlier attempts included. */
  const elapsed = () => (resume?.elapsedSeconds ?? 0) + (performance.now() - startedPerf) / 1000;
  const trajectory: Message[] = [];
  let termination: TerminationReason | undefined;
  let failure: string | undefined;
  let errors = resume?.errors ?? 0;
  let steps = resume?.steps ?? 0;

  yield { type: "simulation-start", simulationId, taskId: task.id, trial };

  const stamp = <M extends Message>(message: M): M => ({
    ...message,
    timestamp: now().toISOString(),
    turn_idx: trajectory.length,
  });
  // Participants get a signal that also fires when the conversation runs out of time.
  const deadline = new AbortController();
  const maxDurationMs = setup.maxDurationMs ?? DEFAULT_MAX_DURATION_MS;
  const timer = setTimeout(() => deadline.abort(new SimulationTimeoutError(maxDurationMs)), maxDurationMs);
  // The default ceiling never keeps a process alive by itself (a conversation left unfinished by its
  // consumer would otherwise hold it for an hour); a limit the user set does, as before.
  if (setup.maxDurationMs === undefined) timer.unref();
  const signal = setup.signal ? AbortSignal.any([setup.signal, deadline.signal]) : deadline.signal;
  const checkAbort = () => {
    if (setup.signal?.aborted) throw new SimulationAbortedError();
    if (deadline.signal.aborted) throw deadline.signal.reason;
  };

  // The task's message history is replayed into the world as τ²'s set_state does.
  // A resumed conversation's messages are the history, kept as recorded.
  const history: Message[] = resume
    ? (resume.messages as Message[])
    : (task.initial_state?.message_history ?? []).map((m) => ({ ...m, turn_idx: null }));
  if (!resume) applyInitialState(world, task.initial_state);
  for (const message of history) {
    const stamped = resume ? message : stamp(message);
    trajectory.push(stamped);
    yield { type: "message", message: stamped };
  }

  let failureType: string | undefined;
  /** Whose fault an unscored ending is (`user_simulator`), recorded as `info.fault`. */
  let fault: "user_simulator" | undefined;
  const fail = (reason: TerminationReason, error: unknown) => {
    termination = reason;
    failure = error instanceof Error ? error.message : String(error);
    if (error instanceof Error && error.name !== "Error") failureType = error.name;
  };
  /**
   * The simulated customer failed (its model threw, sent nothing, or its own tool calls kept failing): a
   * fault of the simulator, never the agent's — an infrastructure error, left out of scores and run again.
   */
  const simulatorFault = (error: unknown) => {
    fault = "user_simulator";
    fail("infrastructure_error", error);
  };
  let userErrors = resume?.userErrors ?? 0;
  let checkpointFailure: string | undefined;
  const saveCheckpoint = async () => {
    if (!setup.checkpoint || checkpointFailure !== undefined) return;
    try {
      await setup.checkpoint({
        messages: trajectory,
        steps,
        errors,
        userErrors,
        simulationId,
        startedAt: started.toISOString(),
        elapsedSeconds: elapsed(),
      });
    } catch (error) {
      // Losing a checkpoint costs only a longer re-run: the conversation goes on without them.
      checkpointFailure = error instanceof Error ? error.message : String(error);
    }
  };
  /** Whether an agent message ends the conversation: its stop token (under τ², only a solo agent's). */
  const agentStops = (message: Message): boolean =>
    message.role === "assistant" &&
    !hasToolCalls(message) &&
    (message.content?.includes(AGENT_STOP_TOKEN) ?? false) &&
    (!tau2 || solo);
  /** A participant's failure: a stop or a set-up error (rethrown), the provider's, or the agent's own. */
  const classify = (error: unknown): "infrastructure_error" | "agent_error" => {
    if (error instanceof SimulationAbortedError || setup.signal?.aborted) throw new SimulationAbortedError();
    // The wall-clock limit aborted the call in flight.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    // Refused credentials, a wrong model or URL: the set-up is wrong, not the participant — rethrown,
    // so that the conversation is never graded as the agent's (or the customer's) failure.
    if (ConfigError.isInstance(error)) throw error;
    if (InfrastructureError.isInstance(error)) return "infrastructure_error";
    return "agent_error";
  };

  let agent: AgentSession | undefined;
  let user: UserSession | undefined;
  let from: Role = "agent";
  let to: Role = "user";
  let pending: Message[] = [];
  try {
    const agentHistory: Message[] = history.filter(
      (m) =>
        m.role === "assistant" ||
        (m.role === "user" && !hasToolCalls(m)) ||
        (m.role === "tool" && m.requestor === "assistant"),
    );
    const userHistory: Message[] = history.filter(
      (m) =>
        m.role === "user" ||
        (m.role === "assistant" && !hasToolCalls(m)) ||
        (m.role === "tool" && m.requestor === "user"),
    );
    if (history.length === 0 && !solo) {
      const greeting = stamp<AssistantMessage>({
        role: "assistant",
        content: DEFAULT_FIRST_AGENT_MESSAGE,
        cost: 0,
      });
      trajectory.push(greeting);
      yield { type: "message", message: greeting };
      // The greeting is the agent's own first message; the customer receives it as its first input.
      agentHistory.push(greeting);
    }
    const view: AgentView = {
      policy: setup.policy,
      tools: setup.agentTools,
      solo,
      ...(task.ticket != null ? { ticket: task.ticket } : {}),
      seed,
      history: agentHistory,
      ...(signal !== undefined ? { signal } : {}),
    };
    agent = await startAgent(setup.agent, view, task);
    if (!solo) {
      if (!setup.user) throw new Error("a user simulator is required outside solo mode");
      user = await setup.user.start({
        scenario: task.user_scenario,
        tools: setup.userTools,
        task,
        seed,
        history: userHistory,
        signal,
      });
    }

    // Who speaks next follows from the last message (τ² orchestrator initialisation).
    const last = trajectory.at(-1);
    if (!last) {
      from = "env";
      to = "agent";
    } else if (last.role === "assistant") {
      from = "agent";
      to = hasToolCalls(last) ? "env" : "user";
      if (agentStops(last)) termination = "agent_stop";
    } else if (last.role === "user") {
      from = "user";
      to = hasToolCalls(last) ? "env" : "agent";
      if (isUserStop(last)) termination = "user_stop";
    } else if (last.role === "tool") {
      from = "env";
      to = last.requestor === "assistant" ? "agent" : "user";
    }
    pending = last ? [last] : [];
    if (last?.role === "tool") {
      // All tool messages that answer the last tool call go back together.
      let i = trajectory.length - 1;
      while (i > 0 && trajectory[i - 1]!.role === "tool") i--;
      pending = trajectory.slice(i);
    }
    world.sync();

    while (termination === undefined) {
      checkAbort();
      if (to === "user" && (from === "agent" || from === "env")) {
        let message: UserMessage;
        try {
          message = stamp(await user!.respond(pending));
        } catch (error) {
          if (classify(error) === "infrastructure_error") fail("infrastructure_error", error);
          else simulatorFault(new UserSimulatorError(error));
          break;
        }
        const unusable = unusableOutput(message, "user simulator");
        if (unusable && tau2) {
          fault = "user_simulator";
          fail("infrastructure_error", unusable);
          break;
        }
        if (!hasToolCalls(message) && !message.content?.trim()) {
          simulatorFault(new UserSimulatorError("the user simulator sent an empty message"));
          break;
        }
        trajectory.push(message);
        yield { type: "message", message };
        if (message.usage) yield usageEvent("user", message);
        if (isUserStop(message)) termination = "user_stop";
        pending = [message];
        from = "user";
        to = hasToolCalls(message) ? "env" : "agent";
      } else if (to === "agent" && (from === "user" || from === "env")) {
        let message: AssistantMessage;
        try {
          message = stamp(await agent.respond(pending));
        } catch (error) {
          fail(classify(error), error);
          break;
        }
        const unusable = unusableOutput(message, "agent");
        if (unusable && tau2) {
          fail("infrastructure_error", unusable);
          break;
        }
        if (!hasToolCalls(message) && !message.content?.trim()) {
          fail("agent_error", new Error("the agent sent an empty message"));
          break;
        }
        trajectory.push(message);
        yield { type: "message", message };
        if (message.usage) yield usageEvent("assistant", message);
        if (agentStops(message)) termination = "agent_stop";
        pending = [message];
        from = "agent";
        to = hasToolCalls(message) ? "env" : "user";
        if (solo && to === "user" && termination === undefined)
          fail("agent_error", new Error("in solo mode the agent may only call tools or stop"));
      } else if (to === "env") {
        const caller = pending[0] as AssistantMessage | UserMessage;
        const results: ToolMessage[] = [];
        for (const call of caller.tool_calls ?? []) {
          yield { type: "tool-call-start", call };
          const before = world.fork();
          const began = performance.now();
          const routed = { ...call, requestor: caller.role };
          // Only the agent's calls to tools that exist meet perturbations (a call that cannot run gets its
          // own error); the customer's own tools (their phone) stay clean.
          const boundary =
            caller.role === "assistant" && world.hasTool(call.name) && !malformedArgumentsError(call)
              ? setup.toolBoundary
              : undefined;
          const info = { mutatesState: boundary !== undefined && world.toolMutatesState(call.name) };
          let result: BoundaryAnswer | undefined = boundary?.before(routed, info);
          if (!result) {
            const answer = executeToolCall(world, routed);
            // Only a read tool searching through an API answers asynchronously; the rest stay synchronous.
            result = answer instanceof Promise ? await answer : answer;
            if (boundary) result = boundary.after(routed, info, result);
          }
          const toolMessage = stamp<ToolMessage>({
            id: call.id,
            role: "tool",
            content: result.content,
            requestor: caller.role,
            error: result.error,
            ...(result.marks && result.marks.length > 0 ? { perturbations: result.marks } : {}),
          });
          if (result.error) {
            errors++;
            if (caller.role === "user") userErrors++;
          }
          trajectory.push(toolMessage);
          results.push(toolMessage);
          yield { type: "tool-call-end", call, result: toolMessage, latencyMs: performance.now() - began };
          yield { type: "message", message: toolMessage };
          yield* worldChanges(before, world);
        }
        pending = results;
        to = from;
        from = "env";
      } else {
        throw new Error(`invalid turn: ${from} → ${to}`);
      }
      steps++;
      const before = world.fork();
      world.sync();
      yield* worldChanges(before, world);
      if (termination === undefined && to !== "env") {
        if (steps >= maxSteps) termination = "max_steps";
        if (errors >= maxErrors) {
          // Mostly the customer's own tool calls failing (an unknown tool, again and again): under
          // passk's protocol that is the simulator's fault; τ² scores it as too_many_errors, noted.
          const customers = userErrors * 2 > errors;
          if (customers && !tau2)
            simulatorFault(
              new UserSimulatorError(
                `the simulated customer's own tool calls failed ${userErrors} of ${errors} times (--max-errors ${maxErrors})`,
              ),
            );
          else {
            termination = "too_many_errors";
            if (customers) fault = "user_simulator";
          }
        }
      }
      if (termination === undefined && to !== "env") await saveCheckpoint();
    }
  } catch (error) {
    if (error instanceof SimulationAbortedError || ConfigError.isInstance(error)) {
      clearTimeout(timer);
      await endSession(agent);
      throw error;
    }
    if (error instanceof SimulationTimeoutError) fail("infrastructure_error", error);
    // A tool's own service failed (a search API past its retries): nobody's score, run again.
    else if (InfrastructureError.isInstance(error)) fail("infrastructure_error", error);
    // A failure of the harness itself (not a participant) is still reported, not thrown away.
    else fail("agent_error", error);
  }
  clearTimeout(timer);
  await endSession(agent);

  const ended = now();
  const run: SimulationRun = {
    id: simulationId,
    task_id: task.id,
    timestamp: started.toISOString(),
    start_time: started.toISOString(),
    end_time: ended.toISOString(),
    duration: elapsed(),
    termination_reason: termination ?? "agent_error",
    agent_cost: sumCost(trajectory, "assistant"),
    user_cost: sumCost(trajectory, "user"),
    reward_info: null,
    // Every message was stamped with its index as it was appended.
    messages: trajectory,
    trial,
    seed,
    ...(failure !== undefined || fault !== undefined || resume || checkpointFailure !== undefined
      ? {
          info: {
            ...(failure !== undefined ? { error: failure } : {}),
            ...(failureType ? { error_type: failureType } : {}),
            ...(fault ? { fault } : {}),
            // Continued from a turn checkpoint: the first `resumed_at_message` messages are an earlier attempt's.
            ...(resume ? { resumed_at_message: resume.messages.length } : {}),
            ...(checkpointFailure !== undefined ? { checkpoint_error: checkpointFailure } : {}),
          },
        }
      : {}),
  };
  yield { type: "simulation-end", run };
  return run;
}

/** Let the agent release what its session holds; a failure to do so is not the conversation's. */
async function endSession(session: AgentSession | undefined): Promise<void> {
  try {
    await session?.end?.();
  } catch {
    // The result stands: the conversation is over either way.
  }
}

/** Run a conversation to the end, passing each event to `onEvent`. */
export async function runSimulation(
  setup: SimulationSetup,
  onEvent?: (event: SimulationEvent) => void,
): Promise<SimulationRun> {
  const events = simulate(setup);
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
    onEvent?.(next.value);
  }
}

/**
 * Model output the reference cannot take in — tool-call arguments that are not a JSON object, or a
 * message with neither text nor tool calls — as the error the τ² protocol ends the simulation with.
 */
function unusableOutput(
  message: AssistantMessage | UserMessage,
  who: "agent" | "user simulator",
): UnusableModelOutputError | undefined {
  for (const call of message.tool_calls ?? []) {
    const malformed = malformedArgumentsError(call);
    if (malformed)
      return new UnusableModelOutputError(
        `the ${who}'s model output is unusable: ${malformed.replace(/ Call the tool again.*$/, "")}; under the τ² protocol the simulation is run again`,
      );
  }
  if (!hasToolCalls(message) && !message.content?.trim())
    return new UnusableModelOutputError(
      `the ${who}'s model sent an empty message; under the τ² protocol the simulation is run again`,
    );
  return undefined;
}

/**
 * Every conversation's wall-clock ceiling unless `--max-sim-seconds` says otherwise: one hour, far above
 * a real conversation's minutes, so that nothing — a remote agent streaming "working" forever, a
 * provider trickling bytes — holds a run, a worker or the playground for ever.
 */
export const DEFAULT_MAX_DURATION_MS = 3_600_000;

function isUserStop(message: Message): boolean {
  return (
    typeof message.content === "string" && USER_STOP_TOKENS.some((token) => message.content!.includes(token))
  );
}

function* worldChanges(before: World, after: World): Generator<SimulationEvent> {
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

/** Total cost of one side's messages; unknown (null) if any message's price was unknown. */
function sumCost(messages: readonly Message[], role: "assistant" | "user"): number | null {
  let total = 0;
  for (const message of messages) {
    if (message.role !== role) continue;
    if (message.cost === null || message.cost === undefined) {
      if (message.usage) return null;
      continue;
    }
    total += message.cost;
  }
  return total;
}
