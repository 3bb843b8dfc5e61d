import type { UserSession, UserSimulator } from "../core/agent.js";
import type { UserMessage } from "../core/message.js";
import { SimulationAbortedError } from "../orchestrator/orchestrator.js";

/** Raised to a caller that types while the agent is still answering. */
export class NotAwaitingCustomerError extends Error {}

/**
 * The playground's person-in-the-loop customer: each turn waits for the next message the person
 * types (delivered with {@link HumanCustomer.say}). `onAwaiting` tells the page it may type.
 */
export class HumanCustomer implements UserSimulator {
  readonly name = "human";
  #waiting: ((text: string) => void) | undefined;
  readonly #onAwaiting: () => void;

  constructor(onAwaiting: () => void) {
    this.#onAwaiting = onAwaiting;
  }

  get awaiting(): boolean {
    return this.#waiting !== undefined;
  }

  /** Deliver what the person typed; throws when no turn is waiting for it. */
  say(text: string): void {
    const deliver = this.#waiting;
    if (!deliver) throw new NotAwaitingCustomerError();
    this.#waiting = undefined;
    deliver(text);
  }

  start(init: { signal?: AbortSignal }): UserSession {
    return {
      respond: () =>
        new Promise<UserMessage>((resolve, reject) => {
          const signal = init.signal;
          if (signal?.aborted) return reject(new SimulationAbortedError());
          const onAbort = () => {
            this.#waiting = undefined;
            reject(new SimulationAbortedError());
          };
          signal?.addEventListener("abort", onAbort, { once: true });
          this.#waiting = (text) => {
            signal?.removeEventListener("abort", onAbort);
            resolve({ role: "user", content: text, cost: 0 });
          };
          this.#onAwaiting();
        }),
    };
  }
}
