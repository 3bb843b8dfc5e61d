import type { UserSession, UserSimulator } from "../core/agent.js";
import type { Message, UserMessage } from "../core/message.js";
import { SimulationAbortedError } from "../core/errors.js";

/** The stop token: the person ended the conversation (an event, never words they typed). */
const STOP = "###STOP###";

/** Raised to a caller that types while the agent is still answering. */
export class NotAwaitingCustomerError extends Error {}

/** A turn of the person: text, or a call of one of their own tools. */
export type CustomerTurn = string | { name: string; arguments: Record<string, unknown> };

/**
 * The playground's person-in-the-loop customer: each turn waits for the next message the person
 * types (delivered with {@link HumanCustomer.say}). `onAwaiting` tells the page it may type.
 */
export class HumanCustomer implements UserSimulator {
  readonly name = "human";
  /** A person reads the conversation so far: a continued conversation goes on from its history. */
  readonly resumesFromHistory = true;
  #waiting: ((turn: CustomerTurn) => void) | undefined;
  #calls = 0;
  /** The person ended the conversation while the agent was answering: their next turn is the stop. */
  #stopRequested = false;
  readonly #onAwaiting: () => void;

  constructor(onAwaiting: () => void) {
    this.#onAwaiting = onAwaiting;
  }

  get awaiting(): boolean {
    return this.#waiting !== undefined;
  }

  /** Deliver what the person typed or did; throws when no turn is waiting for it. */
  say(turn: CustomerTurn): void {
    const deliver = this.#waiting;
    if (!deliver) throw new NotAwaitingCustomerError();
    this.#waiting = undefined;
    deliver(turn);
  }

  /**
   * End the conversation as the person: now if it is their turn, else as soon as the agent's turn is
   * over (so the agent finishes what it was doing and the conversation is graded).
   */
  end(): void {
    if (this.#waiting) this.say(STOP);
    else this.#stopRequested = true;
  }

  start(init: { signal?: AbortSignal; history?: readonly Message[] }): UserSession {
    // A continued conversation's own tool calls keep their ids: the person's new ones follow them.
    for (const message of init.history ?? [])
      if (message.role === "user") this.#calls += message.tool_calls?.length ?? 0;
    return {
      respond: () =>
        new Promise<UserMessage>((resolve, reject) => {
          const signal = init.signal;
          if (signal?.aborted) return reject(new SimulationAbortedError());
          if (this.#stopRequested) return resolve({ role: "user", content: STOP, cost: 0 });
          const onAbort = () => {
            this.#waiting = undefined;
            reject(new SimulationAbortedError());
          };
          signal?.addEventListener("abort", onAbort, { once: true });
          this.#waiting = (turn) => {
            signal?.removeEventListener("abort", onAbort);
            if (typeof turn === "string") return resolve({ role: "user", content: turn, cost: 0 });
            const call = {
              id: `human_call_${this.#calls++}`,
              name: turn.name,
              arguments: turn.arguments,
              requestor: "user" as const,
            };
            resolve({ role: "user", content: null, tool_calls: [call], cost: 0 });
          };
          this.#onAwaiting();
        }),
    };
  }
}
