import type { LlmToolSpec } from "./llm.js";
import type { AssistantMessage, Message, UserMessage } from "./message.js";
import type { Task, UserScenario } from "./task.js";

/**
 * What an agent is given when a conversation starts — all it sees besides the messages it receives: the
 * policy, its tools, the solo ticket and its earlier messages. Nothing hidden: no task id, no user
 * scenario, no evaluation criteria (the same as a remote agent receives over HTTP).
 */
export interface AgentView {
  /** The domain policy (or solo policy). */
  policy: string;
  /** The tools the agent may call, as a model sees them. */
  tools: readonly LlmToolSpec[];
  /** Solo mode: no customer; the agent works from `ticket` and ends with the `done` tool. */
  solo: boolean;
  /** Solo mode: the task's ticket (the customer's request, in writing). */
  ticket?: string;
  /** Per-trial seed, for agents that can be seeded. */
  seed: number;
  /** Earlier messages the agent has seen (a task's message history, or the opening greeting). */
  history: readonly Message[];
  signal?: AbortSignal;
}

/**
 * One conversation of an agent. `respond` gets what arrived since its last message — a customer
 * message, or the results of its tool calls — and returns its next message: text for the customer,
 * or tool calls (not both). In solo mode `respond([])` asks for the first message.
 */
export interface AgentSession {
  respond(incoming: readonly Message[]): Promise<AssistantMessage>;
  /**
   * Called once when the conversation is over, however it ended: release what the session holds (a
   * remote agent's tool endpoint, its conversation). A failure here changes nothing in the result.
   */
  end?(): Promise<void> | void;
}

/**
 * An agent under test. Implement this around your own agent code to test it with passk; the built-in
 * LLM agent is one implementation.
 *
 * @example
 * const echoAgent: Agent = {
 *   name: "echo",
 *   start: () => ({ respond: async (incoming) => ({ role: "assistant", content: `You said: ${incoming.at(-1)?.content}` }) }),
 * };
 */
export interface Agent {
  /** Shown in results (`agent_info.implementation`). */
  readonly name: string;
  /** Model spec, when the agent is backed by one (`agent_info.llm`). */
  readonly model?: string;
  /**
   * Whether a session started with an interrupted conversation's messages as its history continues it
   * exactly as if it had lived them (its state is a function of the history). Turn checkpoints
   * (`--checkpoint-turns`) continue a conversation only when its participants say so; otherwise it is
   * run again from its start.
   */
  readonly resumesFromHistory?: boolean;
  start(view: AgentView): AgentSession | Promise<AgentSession>;
}

/** What a user simulator is told when a conversation starts. */
export interface UserStart {
  scenario: UserScenario;
  /** The customer's own tools (their phone), empty when the domain has none. */
  tools: readonly LlmToolSpec[];
  task: Task;
  seed: number;
  history: readonly Message[];
  signal?: AbortSignal;
}

/** One conversation of a simulated customer: sees agent text (never the agent's tool calls). */
export interface UserSession {
  respond(incoming: readonly Message[]): Promise<UserMessage>;
}

/** A simulated customer. It ends the conversation with `###STOP###`, `###TRANSFER###` or `###OUT-OF-SCOPE###`. */
export interface UserSimulator {
  readonly name: string;
  readonly model?: string;
  /**
   * Whether a session started with an interrupted conversation's messages as its history continues it
   * exactly as if it had lived them (its state is a function of the history). Turn checkpoints
   * (`--checkpoint-turns`) continue a conversation only when its participants say so; otherwise it is
   * run again from its start.
   */
  readonly resumesFromHistory?: boolean;
  start(init: UserStart): UserSession | Promise<UserSession>;
}

/** Tokens a user simulator uses to end the conversation. */
export const USER_STOP_TOKENS = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"] as const;

/** The token an agent's text uses to end the conversation (solo agents, after `done`). */
export const AGENT_STOP_TOKEN = "###STOP###";

/** The agent's greeting when the task has no message history (τ²'s default first message). */
export const DEFAULT_FIRST_AGENT_MESSAGE = "Hi! How can I help you today?";
