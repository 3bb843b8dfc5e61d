import { z } from "zod";
import type { Agent, AgentSession, UserSimulator } from "../core/agent.js";
import { ConfigError, PasskError, UnknownNameError } from "../core/errors.js";
import type { LlmToolSpec } from "../core/llm.js";
import type { AssistantMessage, Message } from "../core/message.js";
import type { RewardInfo, TerminationReason } from "../core/simulation.js";
import { getDomain } from "../domains/registry.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { runConversation } from "../runner/conversation-job.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import { goldUser } from "../users/gold-user.js";

/**
 * What the policy under training does on its turn: say something to the customer, or call tools (not
 * both — as an agent's message in τ²).
 */
export const GymActionSchema = z.union([
  z.strictObject({
    content: z.string().min(1, "an action's content is empty: say something, or call tools"),
  }),
  z.strictObject({
    tool_calls: z
      .array(
        z.strictObject({
          id: z.string().optional(),
          name: z.string().min(1),
          arguments: z.record(z.string(), z.unknown()),
        }),
      )
      .min(1, "an action's tool_calls is empty: call at least one tool, or say something"),
  }),
]);
export type GymAction = z.infer<typeof GymActionSchema>;

/** A call that does not fit the episode's state (a step before reset, after the end, or while one is running). */
export class GymStateError extends PasskError {
  constructor(code: "episode_not_started" | "episode_over" | "not_awaiting_agent", message: string) {
    super(code, message);
    this.name = "GymStateError";
  }
}

/** Where an episode is set: which task of which domain, the seed, solo or with a customer. */
export const GymResetSchema = z.strictObject({
  domain: z.string().min(1).max(64),
  taskId: z.string().min(1).max(512),
  seed: z.number().int().nonnegative().optional(),
  solo: z.boolean().optional(),
});
export type GymReset = z.infer<typeof GymResetSchema>;

/** What the policy sees after each step: what arrived since it last acted; at the end, the grade. */
export interface GymObservation {
  /** The customer's messages and the tool results since the policy's last action (earlier history too, at reset). */
  messages: Message[];
  done: boolean;
  /** Present when `done` and graded: the reward as `passk run` grades the same conversation. */
  reward?: number;
  /** Present when the episode could not be graded (the customer's model or the world failed): why. */
  error?: string;
  rewardInfo?: RewardInfo;
  terminationReason?: TerminationReason;
}

/** The first observation also carries what the agent is given: the policy and its tools. */
export interface GymStart extends GymObservation {
  policy: string;
  tools: readonly LlmToolSpec[];
}

export interface AgentGymOptions {
  /**
   * The data of a domain by name; default: passk's built-in domains read from the data directory
   * (`PASSK_DATA_DIR`, else where `passk data pull` put it), each parsed once.
   */
  domain?: (name: string) => DomainData;
  /** The simulated customer; default the scripted gold customer (no model). */
  customer?: UserSimulator;
  /** Default: τ²'s protocol with the built-in domain texts passk ships (`{ name: "passk" }` otherwise). */
  protocol?: ConversationProtocol;
  maxSteps?: number;
}

/** Built-in domains from the per-user data directory, each parsed once per loader. */
export function builtinDomainData(dataDir = resolveDataDir(undefined)): (name: string) => DomainData {
  const loaded = new Map<string, DomainData>();
  return (name) => {
    let data = loaded.get(name);
    if (!data) loaded.set(name, (data = new DomainData(getDomain(name), dataDir)));
    return data;
  };
}

type Turn =
  | { kind: "act"; messages: Message[] }
  | { kind: "done"; messages: Message[]; reward: RewardInfo; termination: TerminationReason }
  | { kind: "failed"; error: string };

/** What the agent would have been given next, had the conversation not ended: the customer's last words. */
function unseenByAgent(messages: readonly Message[]): Message[] {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]!.role !== "assistant") last--;
  return messages
    .slice(last + 1)
    .filter((m) => m.role === "user" && typeof m.content === "string" && m.content.length > 0)
    .map((m) => ({ role: "user" as const, content: m.content }));
}

/** A one-slot hand-over between the conversation (producer of turns) and the policy's step calls. */
class TurnChannel {
  private waiting: ((turn: Turn) => void) | undefined;
  private queued: Turn | undefined;
  put(turn: Turn): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(turn);
    } else this.queued = turn;
  }
  take(): Promise<Turn> {
    if (this.queued) {
      const turn = this.queued;
      this.queued = undefined;
      return Promise.resolve(turn);
    }
    return new Promise((resolve) => (this.waiting = resolve));
  }
}

/**
 * Play the agent's side of a τ² conversation from your own loop (reinforcement learning, another eval
 * harness): `reset` starts an episode and returns the first observation; `step(action)` plays the
 * agent's move and returns what came back; the last observation is `done` with the reward passk's
 * grader gives — the same as `passk run` gives the same conversation. One gym holds one episode; make
 * as many gyms as episodes you run in parallel.
 */
export class AgentGym {
  private episode:
    | {
        turns: TurnChannel;
        answer: ((message: AssistantMessage) => void) | undefined;
        abort: AbortController;
        done: boolean;
        calls: number;
      }
    | undefined;

  private readonly domain: (name: string) => DomainData;

  constructor(private readonly options: AgentGymOptions = {}) {
    this.domain = options.domain ?? builtinDomainData();
  }

  async reset(input: GymReset): Promise<GymStart> {
    const { domain: domainName, taskId, seed = 0, solo = false } = GymResetSchema.parse(input);
    this.close();
    const data = this.domain(domainName);
    const task = data.tasks.find((t) => t.id === taskId);
    if (!task)
      throw new UnknownNameError(
        "task",
        taskId,
        data.tasks.map((t) => t.id),
        `Pick a task of ${domainName}.`,
      );
    const turns = new TurnChannel();
    const abort = new AbortController();
    const episode = { turns, answer: undefined, abort, done: false, calls: 0 } as NonNullable<
      typeof this.episode
    >;
    this.episode = episode;
    let started: { policy: string; tools: readonly LlmToolSpec[]; history: readonly Message[] } | undefined;
    const policyAgent: Agent = {
      name: "gym",
      start(init): AgentSession {
        started = { policy: init.policy, tools: init.tools, history: init.history };
        return {
          respond(incoming) {
            return new Promise<AssistantMessage>((resolve) => {
              episode.answer = resolve;
              turns.put({ kind: "act", messages: [...incoming] });
            });
          },
        };
      },
    };
    runConversation({
      data,
      task,
      agent: policyAgent,
      user: this.options.customer ?? goldUser,
      solo,
      seed,
      signal: abort.signal,
      protocol: this.options.protocol ?? { name: "passk" },
      ...(this.options.maxSteps !== undefined ? { maxSteps: this.options.maxSteps } : {}),
    }).then(
      (run) =>
        // The customer's model or the world failed: not the policy's doing, so not a score.
        run.termination_reason === "infrastructure_error"
          ? turns.put({
              kind: "failed",
              error: `the conversation ended on an infrastructure error: ${String((run as { info?: { error?: unknown } }).info?.error ?? "no reason recorded")}`,
            })
          : turns.put({
              kind: "done",
              messages: unseenByAgent(run.messages),
              reward: run.reward_info,
              termination: run.termination_reason,
            }),
      // Not the policy's fault, so not a score: the episode ends ungraded, saying why.
      (error: unknown) =>
        turns.put({ kind: "failed", error: error instanceof Error ? error.message : String(error) }),
    );
    const first = await this.next();
    if (!started) throw new Error("the conversation ended before the agent was started");
    return {
      ...first,
      messages: [...started.history, ...first.messages],
      policy: started.policy,
      tools: started.tools,
    };
  }

  /** Play the agent's move; resolves with what the customer or the tools answered, or the grade. */
  async step(action: GymAction): Promise<GymObservation> {
    const episode = this.episode;
    if (!episode) throw new GymStateError("episode_not_started", "no episode: call reset() first");
    if (episode.done)
      throw new GymStateError("episode_over", "the episode is over: call reset() to start another");
    const parsed = GymActionSchema.safeParse(action);
    if (!parsed.success)
      throw new ConfigError(`invalid action: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    const answer = episode.answer;
    episode.answer = undefined;
    if (!answer)
      throw new GymStateError(
        "not_awaiting_agent",
        "the episode is not waiting for the agent: wait for the previous step's answer",
      );
    const message: AssistantMessage =
      "content" in parsed.data
        ? { role: "assistant", content: parsed.data.content, cost: 0 }
        : {
            role: "assistant",
            content: null,
            tool_calls: parsed.data.tool_calls.map((call) => ({
              id: call.id ?? `gym_call_${episode.calls++}`,
              name: call.name,
              arguments: call.arguments,
              requestor: "assistant" as const,
            })),
            cost: 0,
          };
    answer(message);
    return this.next();
  }

  /** End the episode in progress, if any (it is not graded). */
  close(): void {
    if (this.episode && !this.episode.done) this.episode.abort.abort();
    this.episode = undefined;
  }

  private async next(): Promise<GymObservation> {
    const episode = this.episode!;
    const turn = await episode.turns.take();
    if (turn.kind === "act") return { messages: turn.messages, done: false };
    episode.done = true;
    if (turn.kind === "failed") return { messages: [], done: true, error: turn.error };
    return {
      messages: turn.messages,
      done: true,
      reward: turn.reward.reward,
      rewardInfo: turn.reward,
      terminationReason: turn.termination,
    };
  }
}
