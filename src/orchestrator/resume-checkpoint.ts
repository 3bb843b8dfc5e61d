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
