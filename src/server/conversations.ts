import { randomUUID } from "node:crypto";
import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import { TaskSchema, type Task } from "../core/task.js";
import { toPlainJson } from "../evaluation/db-diff.js";
import { evaluateSimulation } from "../evaluation/evaluate-simulation.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { failedChecks } from "../metrics/failed-checks.js";
import { SimulationAbortedError, simulate } from "../orchestrator/orchestrator.js";
import {
  conversationSetup,
  protocolValidation,
  type ConversationProtocol,
} from "../runner/simulation-setup.js";
import type { ConversationMode, PlaygroundEvent, SequencedEvent } from "./api-schemas.js";
import { HumanCustomer, NotAwaitingCustomerError, type CustomerTurn } from "./human-customer.js";
import { recordChanges } from "./record-changes.js";
import { ConversationNotFoundError, ConversationStateError, ServerBusyError } from "./server-errors.js";
import type { SpendTracker } from "./spend-tracker.js";

/** The stand-in task of a free conversation (a person typing, no task picked): nothing to grade. */
const FREE_TASK: Task = TaskSchema.parse({
  id: "free-conversation",
  user_scenario: { instructions: "A person types as the customer." },
});

export interface ConversationLimits {
  /** Conversations running at once (all visitors together). */
  maxActive: number;
  /** Orchestrator steps per conversation (τ² default 200). */
  maxSteps: number;
  maxErrors: number;
  /** A person who has not typed for this long loses the conversation. */
  humanIdleMs: number;
  /** How long an ended conversation stays available for reconnecting clients. */
  retainMs: number;
}

export interface StartConversation {
  mode: ConversationMode;
  data: DomainData;
  /** Absent for a free conversation (human mode only). */
  task?: Task;
  agent: Agent;
  agentSpec: string;
  /** The simulated customer (simulate mode). */
  user?: UserSimulator;
  userSpec?: string;
}

/** One playground conversation: its events so far, and what waits for more. */
export class Conversation {
  readonly id: string;
  readonly mode: ConversationMode;
  readonly events: SequencedEvent[] = [];
  readonly abort = new AbortController();
  human: HumanCustomer | undefined;
  endedAt: number | undefined;
  #wakers = new Set<() => void>();

  constructor(id: string, mode: ConversationMode) {
    this.id = id;
    this.mode = mode;
  }

  get ended(): boolean {
    return this.endedAt !== undefined;
  }

  emit(event: PlaygroundEvent): void {
    this.events.push({ seq: this.events.length, ...event });
    this.#wake();
  }

  /** Mark the conversation ended (after its last event) and wake every reader. */
  finish(at: number): void {
    this.endedAt = at;
    this.#wake();
  }

  #wake(): void {
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    for (const wake of wakers) wake();
  }

  /** Resolves once there are more than `seen` events, the conversation ended, or `signal` aborts. */
  waitForEvents(seen: number, signal?: AbortSignal): Promise<void> {
    if (this.events.length > seen || this.ended || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        signal?.removeEventListener("abort", wake);
        this.#wakers.delete(wake);
        resolve();
      };
      this.#wakers.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
    });
  }
}

/**
 * The server's running and recently ended playground conversations. Each runs the orchestrator in
 * the background and records its events; clients read them (from any point) over SSE.
 */
export class ConversationHub {
  readonly #conversations = new Map<string, Conversation>();
  readonly #limits: ConversationLimits;
  readonly #spend: SpendTracker;
  readonly #judge: Judge | undefined;
  readonly #protocol: ConversationProtocol;
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #log: (line: string) => void;

  constructor(options: {
    limits: ConversationLimits;
    spend: SpendTracker;
    judge?: Judge;
    /** How conversations on τ²'s own domains run (others always run under passk's). */
    protocol?: ConversationProtocol;
    now: () => Date;
    newId?: () => string;
    log?: (line: string) => void;
  }) {
    this.#limits = options.limits;
    this.#spend = options.spend;
    this.#judge = options.judge;
    this.#protocol = options.protocol ?? { name: "passk" };
    this.#now = options.now;
    this.#newId = options.newId ?? (() => randomUUID());
    this.#log = options.log ?? (() => {});
  }

  get activeCount(): number {
    let n = 0;
    for (const c of this.#conversations.values()) if (!c.ended) n++;
    return n;
  }

  get(id: string): Conversation {
    const conversation = this.#conversations.get(id);
    if (!conversation) throw new ConversationNotFoundError(id);
    return conversation;
  }

  /** Start a conversation in the background; its first event is already recorded on return. */
  start(setup: StartConversation): Conversation {
    this.#forgetOld();
    if (this.activeCount >= this.#limits.maxActive) throw new ServerBusyError(this.#limits.maxActive);
    const conversation = new Conversation(this.#newId(), setup.mode);
    this.#conversations.set(conversation.id, conversation);
    conversation.emit({
      type: "conversation-start",
      conversationId: conversation.id,
      mode: setup.mode,
      domain: setup.data.domain.name,
      taskId: setup.task?.id ?? null,
      agent: setup.agentSpec,
      user: setup.mode === "human" ? null : (setup.userSpec ?? null),
    });
    void this.#run(conversation, setup);
    return conversation;
  }

  /** Deliver what the person typed or did (human mode). */
  say(id: string, turn: CustomerTurn): void {
    const conversation = this.get(id);
    if (conversation.ended)
      throw new ConversationStateError("conversation_ended", "the conversation has ended; start a new one");
    if (!conversation.human)
      throw new ConversationStateError(
        "not_human_mode",
        "this conversation's customer is simulated; you cannot type in it",
      );
    try {
      conversation.human.say(turn);
    } catch (error) {
      if (error instanceof NotAwaitingCustomerError)
        throw new ConversationStateError(
          "not_awaiting_customer",
          "the agent is still answering; wait for its reply, then type",
        );
      throw error;
    }
  }

  /** End a conversation: a person's conversation is closed and graded, a simulation is stopped. */
  end(id: string): void {
    const conversation = this.get(id);
    if (conversation.ended) return;
    if (conversation.human?.awaiting) conversation.human.say("###STOP###");
    else conversation.abort.abort();
  }

  async #run(conversation: Conversation, setup: StartConversation): Promise<void> {
    const { data } = setup;
    const task = setup.task ?? FREE_TASK;
    let idleTimer: NodeJS.Timeout | undefined;
    const clearIdle = () => {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = undefined;
    };
    let user = setup.user;
    if (setup.mode === "human") {
      const human = new HumanCustomer(() => {
        conversation.emit({ type: "awaiting-customer" });
        clearIdle();
        idleTimer = setTimeout(() => conversation.abort.abort(), this.#limits.humanIdleMs);
        idleTimer.unref();
      });
      conversation.human = human;
      user = human;
    }
    try {
      if (!user) throw new Error("a simulated conversation needs a simulated customer");
      const protocol: ConversationProtocol = data.domain.tau2 ? this.#protocol : { name: "passk" };
      const simulation = conversationSetup({
        data,
        task,
        agent: setup.agent,
        user,
        protocol,
        maxSteps: this.#limits.maxSteps,
        maxErrors: this.#limits.maxErrors,
        simulationId: conversation.id,
        signal: conversation.abort.signal,
      });
      const { world } = simulation;
      const hasUserDb = world.userDb !== undefined;
      let seenAgent: unknown = world.agentDb;
      let seenUser: unknown = world.userDb;
      let sentUserState = false;
      const sendUserState = () => {
        if (!hasUserDb) return;
        conversation.emit({ type: "user-state", state: toPlainJson(world.userDb) });
        sentUserState = true;
      };
      const snapshot = () => {
        seenAgent = world.agentDb;
        seenUser = world.userDb;
      };
      const events = simulate({ ...simulation, now: this.#now });
      for (;;) {
        const next = await events.next();
        if (next.done) {
          const run = next.value;
          if (setup.task) {
            const rewardInfo = await evaluateSimulation(
              run,
              setup.task,
              { newWorld: (o) => data.newWorld(o), validation: protocolValidation(protocol) },
              this.#judge,
            );
            conversation.emit({
              type: "reward",
              rewardInfo,
              failedChecks: failedChecks(rewardInfo, run.termination_reason),
            });
          }
          conversation.emit({ type: "conversation-end", reason: "finished", message: null });
          break;
        }
        const event = next.value;
        switch (event.type) {
          case "simulation-start":
            break;
          case "message":
            if (!sentUserState) sendUserState();
            if (event.message.role !== "tool") {
              clearIdle();
              snapshot();
            }
            conversation.emit({ type: "message", message: event.message });
            break;
          case "tool-call-start":
            snapshot();
            conversation.emit({ type: "tool-call-start", call: event.call });
            break;
          case "tool-call-end":
            conversation.emit({
              type: "tool-call-end",
              call: event.call,
              result: event.result,
              latencyMs: event.latencyMs,
            });
            break;
          case "world-change": {
            const before = event.side === "agent" ? seenAgent : seenUser;
            conversation.emit({
              type: "world-change",
              side: event.side,
              records: recordChanges(before, event.changes),
            });
            snapshot();
            if (event.side === "user") sendUserState();
            break;
          }
          case "usage":
            this.#spend.record(event.cost);
            conversation.emit({ ...event });
            break;
          case "simulation-end": {
            const info = event.run.info as { error?: unknown } | undefined;
            conversation.emit({
              type: "simulation-end",
              terminationReason: event.run.termination_reason,
              error: typeof info?.error === "string" ? info.error : null,
              durationSeconds: event.run.duration ?? 0,
              agentCost: event.run.agent_cost ?? null,
              userCost: event.run.user_cost ?? null,
            });
            break;
          }
        }
      }
    } catch (error) {
      if (error instanceof SimulationAbortedError || conversation.abort.signal.aborted) {
        conversation.emit({
          type: "conversation-end",
          reason: "abandoned",
          message: "the conversation was stopped before it ended",
        });
      } else {
        this.#log(
          `conversation ${conversation.id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        conversation.emit({
          type: "conversation-end",
          reason: "failed",
          message: error instanceof Error ? error.message : String(error),
        });
      }
    } finally {
      clearIdle();
      conversation.finish(this.#now().getTime());
    }
  }

  /** Forget ended conversations past their retention, so memory stays bounded. */
  #forgetOld(): void {
    const now = this.#now().getTime();
    for (const [id, c] of this.#conversations) {
      if (c.endedAt !== undefined && now - c.endedAt > this.#limits.retainMs) this.#conversations.delete(id);
    }
  }
}
