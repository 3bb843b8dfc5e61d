import { z } from "zod";
import { ConfigError, PasskError } from "../core/errors.js";
import type { AssistantMessage, Message, UserMessage } from "../core/message.js";
import type { RewardInfo, SimulationRun, TerminationReason } from "../core/simulation.js";

/**
 * A player's move: say something, or call tools (not both — as a message in τ²). The agent's tools, or
 * the customer's own (their phone) when the customer is played.
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

/** A message of passk's (an `Agent`'s or a `UserSimulator`'s) as a gym action: to play one through a gym. */
export function gymActionOf(message: AssistantMessage | UserMessage): GymAction {
  return message.tool_calls && message.tool_calls.length > 0
    ? {
        tool_calls: message.tool_calls.map(({ id, name, arguments: args }) => ({
          id,
          name,
          arguments: args,
        })),
      }
    : { content: message.content ?? "" };
}

/** What the player sees after each move: what arrived since it last moved; at the end, the grade. */
export interface GymObservation {
  /** What arrived since the player's last move (the history before it too, at reset). */
  messages: Message[];
  done: boolean;
  /** Present when `done` and graded: the reward as `passk run` grades the same conversation. */
  reward?: number;
  /** Present when the episode could not be graded (the other side's model or the world failed): why. */
  error?: string;
  rewardInfo?: RewardInfo;
  terminationReason?: TerminationReason;
}

/** A call that does not fit the episode's state (a step before reset, after the end, or while one is running). */
export class GymStateError extends PasskError {
  constructor(code: "episode_not_started" | "episode_over" | "not_awaiting_agent", message: string) {
    super(code, message);
    this.name = "GymStateError";
  }
}

type Turn =
  | { kind: "act"; messages: Message[] }
  | { kind: "done"; messages: Message[]; reward: RewardInfo; termination: TerminationReason }
  | { kind: "failed"; error: string };

/** A one-slot hand-over between the conversation (producer of turns) and the player's moves. */
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
 * One conversation with one side played from outside: the conversation calls `respond` on that side's
 * turn, which hands what arrived to the player and waits for its `play(action)`.
 */
export class Episode<Move extends AssistantMessage | UserMessage> {
  private readonly turns = new TurnChannel();
  private calls = 0;

  /** `role`: the played side, whose messages the moves become. */
  constructor(private readonly role: Move["role"]) {}
  private answer: ((move: Move) => void) | undefined;
  private done = false;
  readonly abort = new AbortController();

  /** The played side's turn: what arrived goes out as an observation; the player's move comes back. */
  readonly respond = (incoming: readonly Message[]): Promise<Move> =>
    new Promise<Move>((resolve) => {
      this.answer = resolve;
      this.turns.put({ kind: "act", messages: [...incoming] });
    });

  /**
   * Follow the conversation to its end: graded, or — when the other side's model or the world failed —
   * ended with the reason and no reward (not the player's doing). `unseen` picks, from the finished
   * conversation, what the player would have been given next.
   */
  follow(
    conversation: Promise<SimulationRun & { reward_info: RewardInfo }>,
    unseen: (messages: readonly Message[]) => Message[],
  ): void {
    conversation.then(
      (run) =>
        run.termination_reason === "infrastructure_error"
          ? this.turns.put({
              kind: "failed",
              error: `the conversation ended on an infrastructure error: ${String((run as { info?: { error?: unknown } }).info?.error ?? "no reason recorded")}`,
            })
          : this.turns.put({
              kind: "done",
              messages: unseen(run.messages),
              reward: run.reward_info,
              termination: run.termination_reason,
            }),
      (error: unknown) =>
        this.turns.put({ kind: "failed", error: error instanceof Error ? error.message : String(error) }),
    );
  }

  /** Make the player's move (checked); resolves with what came back, or the grade. */
  play(action: GymAction): Promise<GymObservation> {
    if (this.done)
      throw new GymStateError("episode_over", "the episode is over: call reset() to start another");
    const parsed = GymActionSchema.safeParse(action);
    if (!parsed.success)
      throw new ConfigError(`invalid action: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    const role = this.role;
    const move = (
      "content" in parsed.data
        ? { role, content: parsed.data.content, cost: 0 }
        : {
            role,
            content: null,
            tool_calls: parsed.data.tool_calls.map((call) => ({
              id: call.id ?? `gym_${role}_call_${this.calls++}`,
              name: call.name,
              arguments: call.arguments,
              requestor: role,
            })),
            cost: 0,
          }
    ) as Move;
    const answer = this.answer;
    if (!answer)
      throw new GymStateError(
        "not_awaiting_agent",
        "the episode is not waiting for a move: wait for the previous step's answer",
      );
    this.answer = undefined;
    answer(move);
    return this.next();
  }

  /** The next observation: the player's turn, or the end. */
  async next(): Promise<GymObservation> {
    const turn = await this.turns.take();
    if (turn.kind === "act") return { messages: turn.messages, done: false };
    this.done = true;
    if (turn.kind === "failed") return { messages: [], done: true, error: turn.error };
    return {
      messages: turn.messages,
      done: true,
      reward: turn.reward.reward,
      rewardInfo: turn.reward,
      terminationReason: turn.termination,
    };
  }

  get over(): boolean {
    return this.done;
  }

  close(): void {
    if (!this.done) this.abort.abort();
  }
}
