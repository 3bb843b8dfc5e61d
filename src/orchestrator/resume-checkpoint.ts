import { hasToolCalls, type Message } from "../core/message.js";
import type { TurnCheckpoint } from "../core/run-store.js";
import type { Task } from "../core/task.js";
import { applyInitialState } from "../env/set-state.js";
import type { World } from "../env/world.js";
import { executeToolCall } from "./tool-call.js";

/**
 * A checkpoint that cannot be continued faithfully: the task's history differs, or a recorded tool call
 * answers differently when run again (the data changed, or a perturbation answered it). The
 * conversation is then run again from its start.
 */
export class CheckpointMismatchError extends Error {
  constructor(message: string) {
    super(`the turn checkpoint cannot be continued: ${message}`);
    this.name = "CheckpointMismatchError";
  }
}

/** How far a checkpoint's clock may run ahead of this machine's (another worker saved it): 5 minutes. */
const CLOCK_TOLERANCE_SECONDS = 300;

/** What the conversation continues under: its limits, its mode and the time now. */
export interface ContinuationLimits {
  maxSteps: number;
  maxErrors: number;
  solo: boolean;
  now: Date;
}

/**
 * The steps and tool errors (all, and the customer's own) of a conversation's messages, counted after
 * the task's history: the agent's greeting is no step; a message is one, and so is each batch of tool results.
 */
export function turnCounts(
  messages: readonly Message[],
  task: Task,
  solo: boolean,
): { steps: number; errors: number; userErrors: number } {
  const historyLength = task.initial_state?.message_history?.length ?? 0;
  const greeted = historyLength === 0 && !solo;
  const turns = messages.slice(historyLength + (greeted ? 1 : 0));
  let steps = 0;
  let errors = 0;
  let userErrors = 0;
  for (const [i, message] of turns.entries()) {
    if (message.role !== "tool" || turns[i - 1]?.role !== "tool") steps++;
    if (message.role === "tool" && message.error) {
      errors++;
      if (message.requestor === "user") userErrors++;
    }
  }
  return { steps, errors, userErrors };
}

/**
 * Why a checkpoint's counters and clock are not what its conversation can have saved, or undefined.
 * Steps and tool errors are counted again from the messages after the task's history (the agent's
 * greeting is no step; a message is one, and so is each batch of tool results), and must be below the
 * run's limits (a conversation at its limit ended and saved nothing). The time it ran cannot exceed the
 * time since it started.
 */
export function checkpointProblem(
  checkpoint: TurnCheckpoint,
  task: Task,
  limits: ContinuationLimits,
): string | undefined {
  const { steps, errors, userErrors } = turnCounts(
    checkpoint.messages as readonly Message[],
    task,
    limits.solo,
  );
  if (checkpoint.steps !== steps)
    return `it counts ${checkpoint.steps} steps where its messages take ${steps}`;
  if (checkpoint.errors !== errors || checkpoint.userErrors !== userErrors)
    return `it counts ${checkpoint.errors} tool errors (${checkpoint.userErrors} the customer's) where its messages have ${errors} (${userErrors})`;
  if (steps >= limits.maxSteps) return `its ${steps} steps reach --max-steps ${limits.maxSteps}`;
  if (errors >= limits.maxErrors) return `its ${errors} tool errors reach --max-errors ${limits.maxErrors}`;
  const sinceStart = (limits.now.getTime() - Date.parse(checkpoint.startedAt)) / 1000;
  if (sinceStart < -CLOCK_TOLERANCE_SECONDS) return `it starts in the future (${checkpoint.startedAt})`;
  if (checkpoint.elapsedSeconds > sinceStart + CLOCK_TOLERANCE_SECONDS)
    return `it ran ${checkpoint.elapsedSeconds} s, longer than since it started (${checkpoint.startedAt})`;
  return undefined;
}

/**
 * Bring a fresh world to where a checkpointed conversation stood: the task's initial state, then every
 * tool call of the recorded turns run again in order, with the world synced where the conversation
 * synced it (after each message and after each batch of tool results). Each answer must equal the
 * recorded one, or the checkpoint is refused ({@link CheckpointMismatchError}) before anyone is called.
 */
export async function replayCheckpoint(world: World, task: Task, checkpoint: TurnCheckpoint): Promise<void> {
  const taskHistory = task.initial_state?.message_history ?? [];
  const messages = checkpoint.messages as readonly Message[];
  if (messages.length < taskHistory.length)
    throw new CheckpointMismatchError("it is shorter than the task's own message history");
  for (let i = 0; i < taskHistory.length; i++) {
    if (messages[i]!.role !== taskHistory[i]!.role || messages[i]!.content !== taskHistory[i]!.content)
      throw new CheckpointMismatchError(`message ${i} is not the task's message history`);
  }
  applyInitialState(world, task.initial_state);
  world.sync();
  for (let i = taskHistory.length; i < messages.length;) {
    const message = messages[i]!;
    i++;
    if (message.role === "tool")
      throw new CheckpointMismatchError(`message ${i - 1} is a tool result that answers no call`);
    world.sync();
    if (!hasToolCalls(message)) continue;
    const answers = messages.slice(i, i + message.tool_calls.length);
    // The conversation was saved before its tool calls ran: they run when it continues.
    if (answers.length === 0) break;
    for (const [k, call] of message.tool_calls.entries()) {
      const recorded = answers[k];
      if (recorded?.role !== "tool" || recorded.id !== call.id)
        throw new CheckpointMismatchError(`the answer to tool call ${call.id} is missing`);
      if ((recorded as { perturbations?: unknown }).perturbations !== undefined)
        throw new CheckpointMismatchError(`tool call ${call.id} was answered by a perturbation`);
      const answer = await executeToolCall(world, { ...call, requestor: message.role });
      if (answer.content !== recorded.content || answer.error !== (recorded.error ?? false))
        throw new CheckpointMismatchError(`tool call ${call.id} (${call.name}) answers differently now`);
    }
    i += message.tool_calls.length;
    world.sync();
  }
}
