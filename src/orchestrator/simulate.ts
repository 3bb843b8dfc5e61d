import { randomUUID } from "node:crypto";
import {
  DEFAULT_FIRST_AGENT_MESSAGE,
  type Agent,
  type AgentSession,
  type AgentView,
  type UserSession,
  type UserSimulator,
} from "../core/agent.js";
import { startAgent } from "../core/task-reading-agent.js";
import { ConfigError, SimulationAbortedError } from "../core/errors.js";
import { InfrastructureError, type LlmToolSpec } from "../core/llm.js";
import { hasToolCalls, type AssistantMessage, type Message } from "../core/message.js";
import type { ToolBoundary } from "../core/perturbation.js";
import type { TurnCheckpoint } from "../core/run-store.js";
import type { SimulationRun } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import { applyInitialState } from "../env/set-state.js";
import type { World } from "../env/world.js";
import { SimulationTimeoutError } from "./errors.js";
import type { SimulationEvent } from "./events.js";
import { CheckpointMismatchError, checkpointProblem, replayCheckpoint } from "./resume-checkpoint.js";
import { turnRules, type TurnRules } from "./turn-rules.js";
import { TurnState } from "./turn-state.js";
import { agentStops, isUserStop, takeTurn, worldChanges, type Conversation } from "./turns.js";

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

/**
 * Run one conversation with τ²-bench's turn protocol and yield what happens as it happens; the
 * generator's return value is the finished simulation (ungraded: `reward_info` is null).
 *
 * Protocol: the agent opens with its greeting (or the task's message history is replayed), then the
 * customer and the agent alternate. A message with tool calls goes to the environment, and the results
 * go back to whoever called. The world syncs after every step. The conversation ends when the
 * customer says a stop token, the agent says `###STOP###` (solo agents, via `done`), after
 * `maxSteps` steps, after `maxErrors` tool errors, or when a participant fails. Where τ²'s and passk's
 * protocols differ is in their {@link TurnRules}; the turns are in `turns.ts`, what changes in `TurnState`.
 */
export async function* simulate(setup: SimulationSetup): AsyncGenerator<SimulationEvent, SimulationRun> {
  const now = setup.now ?? (() => new Date());
  const limits = { maxSteps: setup.maxSteps ?? 200, maxErrors: setup.maxErrors ?? 10 };
  const solo = setup.solo ?? false;
  const { task, world, resume } = setup;
  const simulationId = resume?.simulationId ?? setup.simulationId ?? randomUUID();
  // A resumed conversation is rebuilt (and checked) before anything is reported or anyone is called.
  if (resume) {
    const problem = checkpointProblem(resume, task, { ...limits, solo, now: now() });
    if (problem !== undefined) throw new CheckpointMismatchError(problem);
    await replayCheckpoint(world, task, resume);
  }
  const started = resume ? new Date(resume.startedAt) : now();
  const startedPerf = performance.now();
  /** Seconds the conversation has run, earlier attempts included. */
  const elapsed = () => (resume?.elapsedSeconds ?? 0) + (performance.now() - startedPerf) / 1000;
  const state = new TurnState(now, resume);
  yield { type: "simulation-start", simulationId, taskId: task.id, trial: setup.trial ?? 0 };

  const deadline = conversationDeadline(setup);
  const history = yield* replayHistory(setup, state);
  const saveCheckpoint = async () => {
    if (!setup.checkpoint || state.checkpointFailure !== undefined) return;
    try {
      const identity = { simulationId, startedAt: started.toISOString(), elapsedSeconds: elapsed() };
      await setup.checkpoint(state.checkpoint(identity));
    } catch (error) {
      // Losing a checkpoint costs only a longer re-run: the conversation goes on without them.
      state.checkpointFailed(error);
    }
  };
  const sessions: Sessions = {};
  try {
    const conversation = yield* openConversation(setup, state, history, deadline, sessions);
    while (!state.ended) {
      deadline.checkAbort();
      if ((yield* takeTurn(conversation)) === "abandoned") break;
      state.stepTaken();
      const before = world.fork();
      world.sync();
      yield* worldChanges(before, world);
      if (!state.ended && state.to !== "env") checkLimits(state, conversation.rules, limits);
      if (!state.ended && state.to !== "env") await saveCheckpoint();
    }
  } catch (error) {
    if (error instanceof SimulationAbortedError || ConfigError.isInstance(error)) {
      deadline.clear();
      await endSession(sessions.agent);
      throw error;
    }
    harnessFailure(state, error);
  }
  deadline.clear();
  await endSession(sessions.agent);
  const run = finishedRun(setup, state, { simulationId, started, ended: now(), duration: elapsed() });
  yield { type: "simulation-end", run };
  return run;
}

/** The participants' sessions, once started (the agent's is ended however the conversation ends). */
interface Sessions {
  agent?: AgentSession;
  user?: UserSession;
}

/** The conversation's wall-clock limit, and how a stop or a time-out reaches the loop and the turns. */
interface Deadline {
  /** Fires when the caller stops the conversation or it runs out of time; participants get it. */
  signal: AbortSignal;
  /** Throw if the conversation was stopped or ran out of time. */
  checkAbort(): void;
  classify: Conversation["classify"];
  clear(): void;
}

function conversationDeadline(setup: SimulationSetup): Deadline {
  const deadline = new AbortController();
  const maxDurationMs = setup.maxDurationMs ?? DEFAULT_MAX_DURATION_MS;
  const timer = setTimeout(() => deadline.abort(new SimulationTimeoutError(maxDurationMs)), maxDurationMs);
  // The default ceiling never keeps a process alive by itself (a conversation left unfinished by its
  // consumer would otherwise hold it for an hour); a limit the user set does, as before.
  if (setup.maxDurationMs === undefined) timer.unref();
  const signal = setup.signal ? AbortSignal.any([setup.signal, deadline.signal]) : deadline.signal;
  return {
    signal,
    checkAbort() {
      if (setup.signal?.aborted) throw new SimulationAbortedError();
      if (deadline.signal.aborted) throw deadline.signal.reason;
    },
    classify(error) {
      if (error instanceof SimulationAbortedError || setup.signal?.aborted)
        throw new SimulationAbortedError();
      // The wall-clock limit aborted the call in flight.
      if (deadline.signal.aborted) throw deadline.signal.reason;
      // Refused credentials, a wrong model or URL: the set-up is wrong, not the participant — rethrown,
      // so that the conversation is never graded as the agent's (or the customer's) failure.
      if (ConfigError.isInstance(error)) throw error;
      if (InfrastructureError.isInstance(error)) return "infrastructure_error";
      return "agent_error";
    },
    clear: () => clearTimeout(timer),
  };
}

/**
 * The task's message history, replayed into the world as τ²'s set_state does and reported; a resumed
 * conversation's messages are the history, kept as recorded. Returns the history as the participants
 * receive it (unstamped).
 */
async function* replayHistory(
  setup: SimulationSetup,
  state: TurnState,
): AsyncGenerator<SimulationEvent, Message[]> {
  const { task, resume } = setup;
  const history: Message[] = resume
    ? (resume.messages as Message[])
    : (task.initial_state?.message_history ?? []).map((m) => ({ ...m, turn_idx: null }));
  if (!resume) applyInitialState(setup.world, task.initial_state);
  for (const message of history) {
    const stamped = resume ? message : state.stamp(message);
    state.append(stamped);
    yield { type: "message", message: stamped };
  }
  return history;
}

/**
 * The agent's greeting (unless there is a history, or the agent works alone), the participants' sessions
 * started with the history each side saw, and who speaks first.
 */
async function* openConversation(
  setup: SimulationSetup,
  state: TurnState,
  history: readonly Message[],
  deadline: Deadline,
  sessions: Sessions,
): AsyncGenerator<SimulationEvent, Conversation> {
  const { task } = setup;
  const solo = setup.solo ?? false;
  const seed = setup.seed ?? 0;
  const signal = deadline.signal;
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
    const greeting = state.stamp<AssistantMessage>({
      role: "assistant",
      content: DEFAULT_FIRST_AGENT_MESSAGE,
      cost: 0,
    });
    state.append(greeting);
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
  sessions.agent = await startAgent(setup.agent, view, task);
  if (!solo) {
    if (!setup.user) throw new Error("a user simulator is required outside solo mode");
    const scenario = task.user_scenario;
    sessions.user = await setup.user.start({
      scenario,
      tools: setup.userTools,
      task,
      seed,
      history: userHistory,
      signal,
    });
  }
  const rules = turnRules(setup.protocol);
  const last = state.trajectory.at(-1);
  if (last && agentStops(last, rules, solo)) state.stop("agent_stop");
  else if (last?.role === "user" && isUserStop(last)) state.stop("user_stop");
  state.continueFromLast();
  setup.world.sync();
  const { agent, user } = sessions;
  const { world, toolBoundary } = setup;
  return { state, rules, world, agent, user, solo, toolBoundary, classify: deadline.classify };
}

/** After a step that awaits no tool results: the step and tool-error limits. */
function checkLimits(
  state: TurnState,
  rules: TurnRules,
  limits: { maxSteps: number; maxErrors: number },
): void {
  if (state.steps >= limits.maxSteps) state.stop("max_steps");
  if (state.errors >= limits.maxErrors) state.end(rules.tooManyErrors(state, limits.maxErrors));
}

/** A failure no turn caught: the wall-clock limit, a tool's own service, or the harness itself. */
function harnessFailure(state: TurnState, error: unknown): void {
  if (error instanceof SimulationTimeoutError) state.fail("infrastructure_error", error);
  // A tool's own service failed (a search API past its retries): nobody's score, run again.
  else if (InfrastructureError.isInstance(error)) state.fail("infrastructure_error", error);
  // A failure of the harness itself (not a participant) is still reported, not thrown away.
  else state.fail("agent_error", error);
}

/** The finished simulation, ungraded. */
function finishedRun(
  setup: SimulationSetup,
  state: TurnState,
  times: { simulationId: string; started: Date; ended: Date; duration: number },
): SimulationRun {
  const { resume } = setup;
  const { trajectory, failure, failureType, fault, checkpointFailure } = state;
  return {
    id: times.simulationId,
    task_id: setup.task.id,
    timestamp: times.started.toISOString(),
    start_time: times.started.toISOString(),
    end_time: times.ended.toISOString(),
    duration: times.duration,
    termination_reason: state.termination ?? "agent_error",
    agent_cost: sumCost(trajectory, "assistant"),
    user_cost: sumCost(trajectory, "user"),
    reward_info: null,
    // Every message was stamped with its index as it was appended.
    messages: trajectory,
    trial: setup.trial ?? 0,
    seed: setup.seed ?? 0,
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
 * Every conversation's wall-clock ceiling unless `--max-sim-seconds` says otherwise: one hour, far above
 * a real conversation's minutes, so that nothing — a remote agent streaming "working" forever, a
 * provider trickling bytes — holds a run, a worker or the playground for ever.
 */
export const DEFAULT_MAX_DURATION_MS = 3_600_000;

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
