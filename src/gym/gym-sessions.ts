import { randomUUID } from "node:crypto";
import { PasskError } from "../core/errors.js";
import type { AgentGym } from "./agent-gym.js";
import { type GymAction, type GymObservation, type GymReset, type GymStart } from "./agent-gym.js";

/** A session id the server does not hold (never created, closed, or expired after being idle). */
export class GymSessionNotFoundError extends PasskError {
  constructor(sessionId: string) {
    super(
      "gym_session_not_found",
      `gym session "${sessionId}" is not known (closed, or expired after being idle); create a new one`,
    );
    this.name = "GymSessionNotFoundError";
  }
}

/** Every session slot is taken: the client waits for one to close or expire. */
export class GymSessionsFullError extends PasskError {
  readonly retryAfterSeconds = 5;
  constructor(max: number) {
    super(
      "gym_sessions_full",
      `this server holds its maximum of ${max} gym sessions; close one (DELETE /api/gym/sessions/ID) or wait for an idle one to expire`,
    );
    this.name = "GymSessionsFullError";
  }
}

export interface GymSessionLimits {
  /** Sessions held at once (each holds one episode's world). */
  maxSessions: number;
  /** A session untouched this long is closed. */
  idleMs: number;
}

export const DEFAULT_GYM_LIMITS: GymSessionLimits = { maxSessions: 64, idleMs: 10 * 60_000 };

/**
 * Gym sessions behind an API: each an {@link AgentGym} under an unguessable id (holding the id is what
 * lets a client step it), at most `maxSessions` at once, idle ones closed.
 */
export class GymSessions {
  private readonly sessions = new Map<string, { gym: AgentGym; touched: number }>();
  private readonly limits: GymSessionLimits;

  constructor(
    private readonly newGym: () => AgentGym,
    limits: Partial<GymSessionLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_GYM_LIMITS, ...limits };
  }

  /** Open a session and start its first episode. */
  async create(reset: GymReset): Promise<{ session: string; observation: GymStart }> {
    this.expireIdle();
    if (this.sessions.size >= this.limits.maxSessions)
      throw new GymSessionsFullError(this.limits.maxSessions);
    const session = randomUUID();
    const gym = this.newGym();
    this.sessions.set(session, { gym, touched: this.now() });
    try {
      return { session, observation: await gym.reset(reset) };
    } catch (error) {
      this.close(session);
      throw error;
    }
  }

  /** Start another episode in the session (the one in progress, if any, ends ungraded). */
  async reset(session: string, reset: GymReset): Promise<GymStart> {
    return this.held(session).reset(reset);
  }

  async step(session: string, action: GymAction): Promise<GymObservation> {
    return this.held(session).step(action);
  }

  close(session: string): boolean {
    const held = this.sessions.get(session);
    held?.gym.close();
    return this.sessions.delete(session);
  }

  get size(): number {
    this.expireIdle();
    return this.sessions.size;
  }

  closeAll(): void {
    for (const session of [...this.sessions.keys()]) this.close(session);
  }

  private held(session: string): AgentGym {
    this.expireIdle();
    const held = this.sessions.get(session);
    if (!held) throw new GymSessionNotFoundError(session);
    held.touched = this.now();
    return held.gym;
  }

  private expireIdle(): void {
    const cutoff = this.now() - this.limits.idleMs;
    for (const [session, held] of this.sessions) if (held.touched < cutoff) this.close(session);
  }
}
