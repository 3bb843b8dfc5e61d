import { freeze } from "immer";

/**
 * One piece of a world's session state (see `ToolContext.session`), with its value before anything set
 * it. Slots are compared by key; define each once, beside the tools that use it.
 *
 * @example
 * const unlocked = sessionSlot<readonly string[]>("banking.unlocked_agent_tools", []);
 * // in a tool: context.session.set(unlocked, [...context.session.get(unlocked), name]);
 */
export interface SessionSlot<T> {
  readonly key: string;
  readonly initial: T;
}

export function sessionSlot<T>(key: string, initial: T): SessionSlot<T> {
  return Object.freeze({ key, initial });
}

/** A world's session state as a tool sees it. Values are immutable: set a new value to change one. */
export interface Session {
  get<T>(slot: SessionSlot<T>): T;
  set<T>(slot: SessionSlot<T>, value: T): void;
}

/** The session state of a world: slot key → value (deeply frozen), shared by forks until one sets a slot. */
export type SessionState = ReadonlyMap<string, unknown>;

export const EMPTY_SESSION: SessionState = new Map();

/** The session one call sees: reads through to the world's state, keeps its writes until committed. */
export class SessionDraft implements Session {
  readonly #base: SessionState;
  #changes: Map<string, unknown> | undefined;

  constructor(base: SessionState) {
    this.#base = base;
  }

  get<T>(slot: SessionSlot<T>): T {
    if (this.#changes?.has(slot.key)) return this.#changes.get(slot.key) as T;
    return (this.#base.has(slot.key) ? this.#base.get(slot.key) : slot.initial) as T;
  }

  set<T>(slot: SessionSlot<T>, value: T): void {
    (this.#changes ??= new Map()).set(slot.key, freeze(value, true));
  }

  /** The state after this call: the base itself when nothing was set. */
  result(): SessionState {
    if (!this.#changes) return this.#base;
    const next = new Map(this.#base);
    for (const [key, value] of this.#changes) next.set(key, value);
    return next;
  }
}
