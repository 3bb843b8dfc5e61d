import { createHash } from "node:crypto";
import type { z } from "zod";
import type { Message, ToolCall } from "../core/message.js";
import type { BoundaryAnswer, PerturbationMark } from "../core/perturbation.js";
import { seededRandom } from "../core/seeded-random.js";
import type { Task, UserScenario } from "../core/task.js";

/** Where a perturbation acts: the world's tools, the simulated customer, or both to hijack the agent. */
export type PerturbationKind = "tool" | "customer" | "injection";

/** One conversation as a perturbation sees it: the task, the trial's seed, and its own seeded draws. */
export interface PerturbationConversation {
  task: Task;
  seed: number;
  /** Draws in [0, 1) seeded by the perturbation, the task and the trial seed: identical on re-run. */
  random: () => number;
  /** `name@version`, to put on the marks it records. */
  id: string;
}

/** A message change: the new text and the mark recording it. */
export interface MarkedText {
  content: string;
  mark: PerturbationMark;
}

/**
 * What a perturbation does in one conversation; every hook is optional and pure over its inputs and
 * the conversation's draws. The runner applies them at the edges: the world boundary, the customer's
 * prompt and messages, the grade.
 */
export interface PerturbationEffects {
  /** Answer an agent's tool call instead of the world (a fault: the call does not run). */
  faultToolCall?(call: ToolCall, info: { mutatesState: boolean }): BoundaryAnswer | undefined;
  /** Change what the world answered an agent's tool call. */
  changeToolResult?(
    call: ToolCall,
    info: { mutatesState: boolean },
    answer: BoundaryAnswer,
  ): BoundaryAnswer | undefined;
  /** Change the simulated customer's hidden scenario (its prompt), with the mark to record. */
  customerScenario?(scenario: UserScenario): { scenario: UserScenario; mark: PerturbationMark } | undefined;
  /** Change the text of the customer's `index`-th message (from 0). */
  changeCustomerMessage?(content: string, index: number): MarkedText | undefined;
  /** Policy violations in the finished conversation (the agent obeyed an injected instruction). */
  violations?(messages: readonly Message[]): string[];
}

/**
 * A named, versioned perturbation. `params` parses the spec's `key=value` settings (strings in);
 * `effects` builds what it does in one conversation. Bump `version` whenever what it does changes:
 * the version is part of a run's identity, so results made with different behaviour never mix.
 */
export interface PerturbationDefinition<Params = unknown> {
  name: string;
  version: number;
  kind: PerturbationKind;
  /** One sentence for `passk robustness --list` and the README. */
  summary: string;
  params: z.ZodType<Params>;
  effects(params: Params, conversation: PerturbationConversation): PerturbationEffects;
}

/**
 * Define a perturbation (typed parameters in, effects out).
 * @example
 * const shouting = definePerturbation({
 *   name: "shouting", version: 1, kind: "customer", summary: "The customer writes in capitals.",
 *   params: z.object({}),
 *   effects: () => ({ changeCustomerMessage: (content) => ({ content: content.toUpperCase(),
 *     mark: { perturbation: "shouting@1", effect: "customer_message" } }) }),
 * });
 */
export function definePerturbation<Params>(
  definition: PerturbationDefinition<Params>,
): PerturbationDefinition<Params> {
  return definition;
}

/**
 * The file each perturbation of a `--perturbation-module` came from (absolute path), so that a hook of
 * it that misbehaves is blamed on that file by name; passk's own perturbations have none.
 */
export const perturbationSources = new WeakMap<PerturbationDefinition, string>();

/** The seeded draws of one perturbation in one conversation: a hash of its id, the task and the trial seed. */
export function conversationRandom(id: string, taskId: string, seed: number): () => number {
  const digest = createHash("sha256").update(`${id}\u0000${taskId}\u0000${seed}`).digest();
  return seededRandom(digest.readUInt32BE(0));
}

/**
 * Which of successive events fire at `rate`, evenly spread from a seeded phase: of any n events,
 * ⌊n·rate⌋ or ⌈n·rate⌉ fire, so a conversation's share matches the rate without clusters of luck.
 */
export function rateSchedule(rate: number, random: () => number): () => boolean {
  const phase = random();
  let index = 0;
  return () => {
    const fires = Math.floor(phase + (index + 1) * rate) > Math.floor(phase + index * rate);
    index++;
    return fires;
  };
}
