import type { ConversationAbout, ConversationTrace } from "../observability/conversation-trace.js";
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import { TaskSchema, type Task } from "../core/task.js";
import { toPlainJson } from "../env/db-diff.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { PolicyLink } from "../knowledge/policy-links.js";
import { failedChecks } from "../metrics/failed-checks.js";
import type { World } from "../env/world.js";
import type { SimulationEvent } from "../orchestrator/events.js";
import { SimulationAbortedError } from "../core/errors.js";
import type { ResolvedPerturbation } from "../perturbations/registry.js";
import { cannotContinueFromHistory, runConversation } from "../runner/conversation-job.js";
import { turnCounts } from "../orchestrator/resume-checkpoint.js";
import { hasToolCalls, type Message } from "../core/message.js";
import type { CheckpointStore, ConversationKey, TurnCheckpoint } from "../core/run-store.js";
import { costBesidesParticipants } from "../metrics/simulation-cost.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import type {
  ConversationMode,
  ConversationStore,
  ConversationSummary,
  StoredConversation,
} from "../core/conversation-record.js";
import type { ConversationDetail, PlaygroundEvent, SequencedEvent } from "./api-schemas.js";
import type { ConversationFeed } from "./api-services.js";
import { summarizeConversation, type ConversationMeta } from "./conversation-summary.js";
import { HumanCustomer, NotAwaitingCustomerError, type CustomerTurn } from "../users/human-customer.js";
import { currentRecords, recordChanges, recordsNamedBy } from "./record-changes.js";
import { playgroundReview } from "./playground-review.js";
import { policyLinksFor } from "./policy-links.js";
import {
  ConversationNotFoundError,
  ConversationStateError,
  NotConversationOwnerError,
  ServerBusyError,
} from "./server-errors.js";
import type { SpendReservation, SpendTracker } from "./spend-tracker.js";

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
  /** What the conversation meets (`passk run --perturb`'s perturbations). */
  perturbations?: readonly ResolvedPerturbation[];
  /** Its reservation against the daily spend cap; its costs are charged to it, released when it ends. */
  reservation?: SpendReservation;
  /** The earlier conversation it continues (its id and messages): its history, its world rebuilt from them. */
  continues?: { conversationId: string; messages: readonly Message[] };
}

/** What a continued conversation takes from the earlier one: its settings and its messages. */
export interface Continuable {
  meta: ConversationMeta;
  perturbations: readonly string[];
  messages: Message[];
}

/** One playground conversation: its events so far, and what waits for more. */
export class Conversation implements ConversationFeed {
  readonly id: string;
  readonly mode: ConversationMode;
  readonly meta: ConversationMeta;
  readonly events: SequencedEvent[] = [];
  readonly abort = new AbortController();
  human: HumanCustomer | undefined;
  endedAt: number | undefined;
  /**
   * The digest of the secret its starter was given: viewing needs only the link (the id), controlling
   * (typing, ending) needs the secret. Only the digest is kept, so nothing stored or logged can control it.
   */
  readonly ownerTokenDigest: Buffer;
  /** Called after each new event and at the end (the hub keeps the conversation in its store). */
  onChange: (() => void) | undefined;
  #wakers = new Set<() => void>();

  constructor(meta: ConversationMeta, ownerTokenDigest: Buffer) {
    this.ownerTokenDigest = ownerTokenDigest;
    this.id = meta.id;
    this.mode = meta.mode;
    this.meta = meta;
  }

  get ended(): boolean {
    return this.endedAt !== undefined;
  }

  emit(event: PlaygroundEvent): void {
    this.events.push({ seq: this.events.length, ...event });
    this.#wake();
    this.onChange?.();
  }

  /** Mark the conversation ended (after its last event) and wake every reader. */
  finish(at: number): void {
    this.endedAt = at;
    this.#wake();
    this.onChange?.();
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
  readonly #toolOverrides: ToolOverrides | undefined;
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #log: (line: string) => void;
  readonly #store: ConversationStore<SequencedEvent> | undefined;
  readonly #saveDelayMs: number;
  readonly #trace: ((about: ConversationAbout) => ConversationTrace) | undefined;

  constructor(options: {
    limits: ConversationLimits;
    spend: SpendTracker;
    judge?: Judge;
    /** How conversations on τ²'s own domains run (others always run under passk's). */
    protocol?: ConversationProtocol;
    /** `--tool-spec`: what the models are told about tools. */
    toolOverrides?: ToolOverrides;
    now: () => Date;
    newId?: () => string;
    log?: (line: string) => void;
    /** Where conversations are kept as they go (reopenable by URL, listed in the explorer). */
    store?: ConversationStore<SequencedEvent>;
    /** How long events may wait before the conversation is written again (default 100 ms). */
    saveDelayMs?: number;
    /** Traces each conversation (`passk serve --otel`). */
    trace?: (about: ConversationAbout) => ConversationTrace;
  }) {
    this.#limits = options.limits;
    this.#spend = options.spend;
    this.#judge = options.judge;
    this.#protocol = options.protocol ?? { name: "passk" };
    this.#toolOverrides = options.toolOverrides;
    this.#now = options.now;
    this.#newId = options.newId ?? (() => randomUUID());
    this.#log = options.log ?? (() => {});
    this.#store = options.store;
    this.#saveDelayMs = options.saveDelayMs ?? 100;
    this.#trace = options.trace;
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

  /**
   * A conversation's events: live while this server runs it, else as kept in the store. A kept
   * conversation that never ended was running when its server stopped: it ends here as interrupted.
   */
  feed(id: string): ConversationFeed {
    const live = this.#conversations.get(id);
    if (live) return live;
    const kept = this.#kept(id);
    if (!kept) throw new ConversationNotFoundError(id);
    return { events: kept.events, ended: true, waitForEvents: () => Promise.resolve() };
  }

  /** A conversation's summary, live or kept. */
  detail(id: string): ConversationDetail {
    const live = this.#conversations.get(id);
    if (live) return { conversation: this.#summary(live), live: !live.ended };
    const kept = this.#kept(id);
    if (!kept) throw new ConversationNotFoundError(id);
    return { conversation: kept.summary, live: false };
  }

  /**
   * The kept conversations among `ids` (those a browser started: a list of every conversation would
   * hand strangers their links), most recent first; those this server runs are running, others that
   * never ended were interrupted.
   */
  list(limit: number, ids: readonly string[]): ConversationSummary[] {
    const wanted = new Set(ids);
    const kept = ids.flatMap((id) => {
      const stored = this.#store?.get(id);
      return stored ? [stored.summary] : [];
    });
    const listed = new Set(kept.map((c) => c.id));
    const liveOnly = [...this.#conversations.values()]
      .filter((c) => wanted.has(c.id) && !listed.has(c.id))
      .map((c) => this.#summary(c));
    return [...liveOnly, ...kept.map((c) => (this.#conversations.has(c.id) ? c : this.#interrupted(c)))]
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
      .slice(0, limit);
  }

  #summary(conversation: Conversation): ConversationSummary {
    const endedAt = conversation.endedAt === undefined ? null : new Date(conversation.endedAt).toISOString();
    return summarizeConversation(conversation.meta, conversation.events, endedAt);
  }

  #interrupted(summary: ConversationSummary): ConversationSummary {
    return summary.status === "running" ? { ...summary, status: "interrupted" } : summary;
  }

  /** A conversation from the store, ended as interrupted when its server stopped while it ran. */
  #kept(id: string): StoredConversation<SequencedEvent> | undefined {
    const kept = this.#store?.get(id);
    if (!kept || kept.summary.status !== "running") return kept;
    const last = kept.events.at(-1);
    const seq = last ? last.seq + 1 : 0;
    return {
      ...kept,
      summary: this.#interrupted(kept.summary),
      events: [
        ...kept.events,
        {
          seq,
          type: "conversation-end",
          reason: "interrupted",
          message:
            "The server stopped while this conversation was running. What was said before is kept; start it again to continue.",
        },
      ],
    };
  }

  /** Keep the conversation in the store: soon after each event (batched), at once when it ends. */
  #keep(conversation: Conversation): void {
    const store = this.#store;
    if (!store) return;
    let timer: NodeJS.Timeout | undefined;
    const save = () => {
      timer = undefined;
      try {
        store.put({
          summary: this.#summary(conversation),
          events: conversation.events,
          ownerDigest: conversation.ownerTokenDigest.toString("hex"),
        });
      } catch (error) {
        this.#log(
          `could not keep conversation ${conversation.id}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    };
    conversation.onChange = () => {
      if (conversation.ended) {
        if (timer) clearTimeout(timer);
        save();
      } else if (!timer) {
        timer = setTimeout(save, this.#saveDelayMs);
        timer.unref();
      }
    };
  }

  /**
   * Start a conversation in the background; its first event is already recorded on return. The owner
   * token is the capability to control it, given once, to the starter only.
   */
  start(setup: StartConversation): { conversation: Conversation; ownerToken: string } {
    if (setup.continues) {
      const user = setup.mode === "human" ? new HumanCustomer(() => {}) : setup.user;
      const cannot = user
        ? cannotContinueFromHistory({ agent: setup.agent, user, solo: false })
        : ["the customer"];
      if (cannot.length > 0)
        throw new ConversationStateError(
          "cannot_continue",
          `${cannot.join(" and ")} cannot continue a conversation from its history; start a new one`,
        );
    }
    this.#forgetOld();
    if (this.activeCount >= this.#limits.maxActive) throw new ServerBusyError(this.#limits.maxActive);
    const ownerToken = randomBytes(32).toString("base64url");
    const conversation = new Conversation(
      {
        id: this.#newId(),
        domain: setup.data.domain.name,
        taskId: setup.task?.id ?? null,
        mode: setup.mode,
        agent: setup.agentSpec,
        user: setup.mode === "human" ? null : (setup.userSpec ?? null),
        startedAt: this.#now().toISOString(),
      },
      digestOf(ownerToken),
    );
    this.#conversations.set(conversation.id, conversation);
    this.#keep(conversation);
    conversation.emit({
      type: "conversation-start",
      conversationId: conversation.id,
      mode: setup.mode,
      domain: setup.data.domain.name,
      taskId: setup.task?.id ?? null,
      agent: setup.agentSpec,
      user: setup.mode === "human" ? null : (setup.userSpec ?? null),
      ...(setup.perturbations && setup.perturbations.length > 0
        ? { perturbations: setup.perturbations.map((p) => p.spec) }
        : {}),
      ...(setup.continues ? { continues: setup.continues.conversationId } : {}),
    });
    void this.#run(conversation, setup);
    return { conversation, ownerToken };
  }

  /** The live conversation `id`, if `ownerToken` is its owner's; a NotConversationOwnerError otherwise. */
  #owned(id: string, ownerToken: string | undefined): Conversation {
    const conversation = this.get(id);
    const given = digestOf(ownerToken ?? "");
    if (ownerToken === undefined || !timingSafeEqual(given, conversation.ownerTokenDigest))
      throw new NotConversationOwnerError(id, ownerToken !== undefined);
    return conversation;
  }

  /**
   * What continuing the ended conversation `id` takes (only its owner may): one that was stopped or
   * interrupted — also one a previous run of the server held, whose owner is known by the token's
   * digest kept with it.
   */
  continuable(id: string, ownerToken: string | undefined): Continuable {
    if (!this.#conversations.has(id)) {
      const kept = this.#kept(id);
      if (kept) return this.#continuableKept(id, kept, ownerToken);
    }
    const conversation = this.#owned(id, ownerToken);
    return continuableFrom(conversation.meta, conversation.ended, conversation.events);
  }

  /** A conversation from the store: its owner proven by the digest kept with it. */
  #continuableKept(
    id: string,
    kept: StoredConversation<SequencedEvent>,
    ownerToken: string | undefined,
  ): Continuable {
    if (kept.ownerDigest === undefined)
      throw new ConversationStateError(
        "cannot_continue",
        "this conversation was kept before passk remembered who started it, so its owner cannot be confirmed; start a new one",
      );
    const given = digestOf(ownerToken ?? "");
    const stored = Buffer.from(kept.ownerDigest, "hex");
    if (ownerToken === undefined || stored.length !== given.length || !timingSafeEqual(given, stored))
      throw new NotConversationOwnerError(id, ownerToken !== undefined);
    const { summary } = kept;
    const meta: ConversationMeta = {
      id: summary.id,
      domain: summary.domain,
      taskId: summary.taskId,
      mode: summary.mode,
      agent: summary.agent,
      user: summary.user,
      startedAt: summary.startedAt,
    };
    return continuableFrom(meta, true, kept.events);
  }

  /** Deliver what the person typed or did (human mode); only its owner may. */
  say(id: string, turn: CustomerTurn, ownerToken: string | undefined): void {
    const conversation = this.#owned(id, ownerToken);
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

  /** End a conversation: a person's conversation is closed and graded, a simulation is stopped; only its owner may. */
  end(id: string, ownerToken: string | undefined): void {
    const conversation = this.#owned(id, ownerToken);
    if (conversation.ended) return;
    if (conversation.human) conversation.human.end();
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
    let trace: ConversationTrace | undefined;
    let stoppedByCap = false;
    const charge = (cost: number | null) =>
      setup.reservation ? setup.reservation.charge(cost) : this.#spend.record(cost);
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
      // The conversation's world, as the pipeline builds it: what the page is shown of it.
      let world: World | undefined;
      let seenAgent: unknown;
      let seenUser: unknown;
      let sentUserState = false;
      const sendUserState = () => {
        if (world?.userDb === undefined) return;
        conversation.emit({ type: "user-state", state: toPlainJson(world.userDb) });
        sentUserState = true;
      };
      const snapshot = () => {
        seenAgent = world?.agentDb;
        seenUser = world?.userDb;
      };
      trace = this.#trace?.({
        domain: data.domain.name,
        taskId: task.id,
        trial: 0,
        seed: 0,
        agentLlm: setup.agentSpec,
        userLlm: setup.mode === "human" ? "human" : (setup.userSpec ?? "unknown"),
        protocol: protocol.name,
      });
      const links = policyLinksFor(data);
      const linked = (policyLink: PolicyLink | undefined) => (policyLink ? { policyLink } : {});
      const onEvent = (event: SimulationEvent) => {
        trace?.onEvent(event);
        switch (event.type) {
          case "simulation-start":
            break;
          case "message":
            if (!sentUserState) sendUserState();
            if (event.message.role !== "tool") {
              clearIdle();
              snapshot();
            }
            conversation.emit({
              type: "message",
              message: event.message,
              ...linked(links.message(event.message)),
            });
            break;
          case "tool-call-start":
            snapshot();
            conversation.emit({
              type: "tool-call-start",
              call: event.call,
              ...linked(links.toolCall(event.call)),
            });
            break;
          case "tool-call-end": {
            // What the agent's call is about, as the world now holds it (not as the agent was told).
            const named =
              event.result.requestor === "assistant"
                ? recordsNamedBy(world?.agentDb, event.call.arguments)
                : [];
            conversation.emit({
              type: "tool-call-end",
              call: event.call,
              ...linked(links.toolCall(event.call)),
              result: event.result,
              latencyMs: event.latencyMs,
              ...(named.length > 0 ? { records: named } : {}),
            });
            break;
          }
          case "world-change": {
            const before = event.side === "agent" ? seenAgent : seenUser;
            conversation.emit({
              type: "world-change",
              side: event.side,
              records: recordChanges(before, event.changes),
              ...(event.side === "agent" ? { current: currentRecords(event.changes) } : {}),
            });
            snapshot();
            if (event.side === "user") sendUserState();
            break;
          }
          case "usage":
            charge(event.cost);
            conversation.emit({ ...event });
            // The day's cap is reached: this conversation makes no further model calls.
            if (this.#spend.exhausted) {
              stoppedByCap = true;
              conversation.abort.abort();
            }
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
      };
      // A continued conversation starts from the earlier one's messages as a turn checkpoint: the world
      // is rebuilt by running its tool calls again, as the runner continues an interrupted conversation.
      const continued =
        setup.continues && continuationCheckpoint(conversation, task, setup.continues.messages, this.#now());
      // The one conversation pipeline (set-up, turns, grade) the runner and `passk simulate` use too.
      const converse = () =>
        runConversation({
          data,
          task,
          agent: setup.agent,
          user: user!,
          ...(this.#judge ? { judge: this.#judge } : {}),
          ...(setup.perturbations && setup.perturbations.length > 0
            ? { perturbations: setup.perturbations }
            : {}),
          protocol,
          ...(this.#toolOverrides ? { toolOverrides: this.#toolOverrides } : {}),
          maxSteps: this.#limits.maxSteps,
          maxErrors: this.#limits.maxErrors,
          simulationId: conversation.id,
          ...(continued ? { checkpoints: continued } : {}),
          signal: conversation.abort.signal,
          now: this.#now,
          onWorld: (built) => {
            world = built;
            snapshot();
          },
          onEvent,
        });
      // Within the trace, the participants' model calls are the conversation's spans.
      const run = await (trace ? trace.run(converse) : converse());
      // The judge's calls and the tools' own (the reranker's) count toward the server's spend too.
      const besides = costBesidesParticipants(run.reward_info.info as Record<string, unknown> | null);
      if (besides !== undefined) charge(besides);
      // A free conversation (no task) has nothing to be graded against.
      if (setup.task) {
        conversation.emit({
          type: "reward",
          rewardInfo: run.reward_info,
          failedChecks: failedChecks(run.reward_info, run.termination_reason),
          review: await playgroundReview(data, task, run),
        });
      }
      trace?.end({ run: setup.task ? run : { ...run, reward_info: null } });
      conversation.emit({ type: "conversation-end", reason: "finished", message: null });
    } catch (error) {
      trace?.end({ error });
      if (error instanceof SimulationAbortedError || conversation.abort.signal.aborted) {
        conversation.emit({
          type: "conversation-end",
          reason: "abandoned",
          message: stoppedByCap
            ? "the conversation was stopped: today's spending cap is reached"
            : "the conversation was stopped before it ended",
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
      setup.reservation?.release();
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

/** The messages up to the last completed turn: a batch of tool results cut short is left out. */
function completedTurns(messages: Message[]): Message[] {
  let end = messages.length;
  while (end > 0 && messages[end - 1]!.role === "tool") end--;
  const caller = messages[end - 1];
  const answers = messages.length - end;
  if (caller && hasToolCalls(caller) && answers !== 0 && answers !== caller.tool_calls.length)
    return messages.slice(0, end);
  return messages;
}

/** A one-conversation checkpoint store holding where the earlier conversation stopped. */
function continuationCheckpoint(
  conversation: Conversation,
  task: Task,
  messages: readonly Message[],
  now: Date,
): { store: CheckpointStore; key: ConversationKey } | undefined {
  if (messages.length === 0) return undefined;
  let checkpoint: TurnCheckpoint | undefined = {
    messages: [...messages],
    ...turnCounts(messages, task, false),
    simulationId: conversation.id,
    startedAt: now.toISOString(),
    elapsedSeconds: 0,
  };
  return {
    key: { runId: "playground", domain: conversation.meta.domain, taskId: task.id, trial: 0 },
    store: {
      load: () => Promise.resolve(checkpoint),
      save: (_key, saved) => {
        checkpoint = saved;
        return Promise.resolve();
      },
      clear: () => {
        checkpoint = undefined;
        return Promise.resolve();
      },
    },
  };
}

const digestOf = (token: string): Buffer => createHash("sha256").update(token).digest();

/** What continuing an ended conversation takes: refused while it runs, or once it finished. */
function continuableFrom(
  meta: ConversationMeta,
  ended: boolean,
  events: readonly SequencedEvent[],
): Continuable {
  const reason = events.findLast((e) => e.type === "conversation-end");
  if (!ended || reason?.type !== "conversation-end" || reason.reason === "finished")
    throw new ConversationStateError(
      "cannot_continue",
      ended
        ? "this conversation finished; start a new one"
        : "this conversation is still running; stop it first",
    );
  const start = events[0];
  return {
    meta,
    perturbations: start?.type === "conversation-start" ? (start.perturbations ?? []) : [],
    messages: completedTurns(events.flatMap((e) => (e.type === "message" ? [e.message] : []))),
  };
}
