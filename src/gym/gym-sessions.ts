import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { UserSimulator } from "../core/agent.js";
import { PasskError, UnknownNameError } from "../core/errors.js";
import { goldUser } from "../users/gold-user.js";
import {
  GymResetSchema,
  type AgentGym,
  type GymAction,
  type GymObservation,
  type GymStart,
} from "./agent-gym.js";

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

/** A session's request: where its episode is set, and which of the server's customers plays. */
export const GymSessionRequestSchema = GymResetSchema.extend({
  customer: z.string().min(1).max(200).optional(),
});
export type GymSessionRequest = z.infer<typeof GymSessionRequestSchema>;

/** The simulated customers a server offers its gym sessions, by spec (default: the scripted gold one). */
export interface GymCustomers {
  offered: readonly string[];
  create(spec: string): UserSimulator;
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
    private readonly customers: GymCustomers = { offered: [], create: () => goldUser },
  ) {
    this.limits = { ...DEFAULT_GYM_LIMITS, ...limits };
  }

  /** Open a session and start its first episode. */
  async create(request: GymSessionRequest): Promise<{ session: string; observation: GymStart }> {
    const { customer, ...reset } = request;
    const simulator = customer === undefined ? undefined : this.customer(customer);
    this.expireIdle();
    if (this.sessions.size >= this.limits.maxSessions)
      throw new GymSessionsFullError(this.limits.maxSessions);
    const session = randomUUID();
    const gym = this.newGym();
    this.sessions.set(session, { gym, touched: this.now() });
    try {
      return { session, observation: await gym.reset(reset, simulator ? { customer: simulator } : {}) };
    } catch (error) {
      this.close(session);
      throw error;
    }
  }

  /** Start another episode in the session (the one in progress, if any, ends ungraded). */
  async reset(session: string, request: GymSessionRequest): Promise<GymStart> {
    const { customer, ...reset } = request;
    const simulator = customer === undefined ? undefined : this.customer(customer);
    return this.held(session).reset(reset, simulator ? { customer: simulator } : {});
  }

  /** One of the offered customers, or an error naming them. */
  private customer(spec: string): UserSimulator {
    if (spec === "scripted:gold") return goldUser;
    if (!this.customers.offered.includes(spec))
      throw new UnknownNameError(
        "gym customer",
        spec,
        ["scripted:gold", ...this.customers.offered],
        "Offer it with passk serve --gym --user-llm SPEC.",
      );
    return this.customers.create(spec);
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
