import { hasToolCalls, type AssistantMessage, type Message, type UserMessage } from "../core/message.js";
import type { TurnCheckpoint } from "../core/run-store.js";
import type { TerminationReason } from "../core/simulation.js";

/** Who speaks: the agent, the customer, or the environment (tool results). */
export type Role = "agent" | "user" | "env";

/**
 * How a conversation ends by a rule: its termination reason, the error recorded with it (`info.error`,
 * `info.error_type`), and whose fault an unscored ending is (`info.fault`).
 */
export interface Ending {
  reason: TerminationReason;
  error?: Error;
  fault?: "user_simulator";
}

/** The counters a conversation carries over a turn checkpoint. */
export interface TurnCounters {
  steps: number;
  errors: number;
  userErrors: number;
}

/**
 * Everything that changes while a conversation runs, and the only ways it changes: the trajectory, who
 * spoke and who answers next with what, the step and tool-error counters, and how the conversation ended.
 */
export class TurnState {
  readonly trajectory: Message[] = [];
  from: Role = "agent";
  to: Role = "user";
  /** What the next speaker receives: the last message, or the batch of tool results. */
  pending: Message[] = [];
  steps: number;
  errors: number;
  userErrors: number;
  termination: TerminationReason | undefined;
  failure: string | undefined;
  failureType: string | undefined;
  /** Whose fault an unscored ending is (`user_simulator`), recorded as `info.fault`. */
  fault: "user_simulator" | undefined;
  /** Why saving a checkpoint failed; none is saved after that. */
  checkpointFailure: string | undefined;

  constructor(
    private readonly now: () => Date,
    counters: Partial<TurnCounters> = {},
  ) {
    this.steps = counters.steps ?? 0;
    this.errors = counters.errors ?? 0;
    this.userErrors = counters.userErrors ?? 0;
  }

  get ended(): boolean {
    return this.termination !== undefined;
  }

  /** A message with the time now and its index in the trajectory. */
  stamp<M extends Message>(message: M): M {
    return { ...message, timestamp: this.now().toISOString(), turn_idx: this.trajectory.length };
  }

  append(message: Message): void {
    this.trajectory.push(message);
  }

  /** A participant spoke: tool calls go to the environment, anything else to the other side. */
  spoke(message: AssistantMessage | UserMessage): void {
    this.pending = [message];
    this.from = message.role === "assistant" ? "agent" : "user";
    const other: Role = message.role === "assistant" ? "user" : "agent";
    this.to = hasToolCalls(message) ? "env" : other;
  }

  /** One tool result, appended and counted (an error counts, the customer's own also as theirs). */
  toolAnswered(message: Message & { role: "tool" }): void {
    if (message.error) {
      this.errors++;
      if (message.requestor === "user") this.userErrors++;
    }
    this.trajectory.push(message);
  }

  /** The environment answered the caller's tool calls: the results go back to the caller. */
  toolsReturned(results: Message[]): void {
    this.pending = results;
    this.to = this.from;
    this.from = "env";
  }

  /**
   * Who speaks next follows from the last message so far (τ² orchestrator initialisation; after a system
   * message the customer speaks); all tool messages that answer the last tool call go back together.
   */
  continueFromLast(): void {
    const last = this.trajectory.at(-1);
    if (!last) {
      this.from = "env";
      this.to = "agent";
    } else if (last.role === "tool") {
      this.from = "env";
      this.to = last.requestor === "assistant" ? "agent" : "user";
    } else if (last.role === "assistant" || last.role === "user") {
      this.spoke(last);
    }
    this.pending = last ? [last] : [];
    if (last?.role === "tool") {
      let i = this.trajectory.length - 1;
      while (i > 0 && this.trajectory[i - 1]!.role === "tool") i--;
      this.pending = this.trajectory.slice(i);
    }
  }

  stepTaken(): void {
    this.steps++;
  }

  stop(reason: TerminationReason): void {
    this.termination = reason;
  }

  fail(reason: TerminationReason, error: unknown): void {
    this.termination = reason;
    this.failure = error instanceof Error ? error.message : String(error);
    if (error instanceof Error && error.name !== "Error") this.failureType = error.name;
  }

  /**
   * The simulated customer failed (its model threw, sent nothing, or its own tool calls kept failing): a
   * fault of the simulator, never the agent's — an infrastructure error, left out of scores and run again.
   */
  simulatorFault(error: unknown): void {
    this.fault = "user_simulator";
    this.fail("infrastructure_error", error);
  }

  /** End as a turn rule says. */
  end(ending: Ending): void {
    if (ending.error !== undefined) this.fail(ending.reason, ending.error);
    else this.stop(ending.reason);
    if (ending.fault) this.fault = ending.fault;
  }

  checkpointFailed(error: unknown): void {
    this.checkpointFailure = error instanceof Error ? error.message : String(error);
  }

  /** The conversation so far, to continue it from this turn. */
  checkpoint(identity: { simulationId: string; startedAt: string; elapsedSeconds: number }): TurnCheckpoint {
    return {
      messages: this.trajectory,
      steps: this.steps,
      errors: this.errors,
      userErrors: this.userErrors,
      simulationId: identity.simulationId,
      startedAt: identity.startedAt,
      elapsedSeconds: identity.elapsedSeconds,
    };
  }
}
