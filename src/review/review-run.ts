import type { LanguageModel } from "../core/llm.js";
import type { Message } from "../core/message.js";
import type { RewardInfo } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import type { World, WorldOptions } from "../env/world.js";
import { replayGoldActions } from "../evaluation/gold-replay.js";
import { failedChecks } from "../metrics/failed-checks.js";
import { isSuccessful } from "../metrics/pass-hat-k.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import { NOT_THE_AGENTS, type Review } from "./blame.js";
import { deterministicReview } from "./checks.js";
import { llmReview, ReviewOutputError } from "./llm-reviewer.js";

/** One simulation of a run, with what the review needs of it. */
export interface SimulationToReview {
  domain: string;
  task_id: string;
  trial: number;
  termination_reason: string;
  reward_info?: RewardInfo | null;
  messages: readonly Message[];
  info?: Record<string, unknown> | null;
}

/** What the review needs of a domain: its definition, its policy, fresh worlds. */
export interface ReviewDomain {
  domain: AnyDomain;
  policy: string;
  newWorld: (options?: WorldOptions) => World;
}

export interface ReviewedSimulation {
  domain: string;
  task_id: string;
  trial: number;
  review: Review;
}

export interface ReviewOptions {
  taskOf: (domain: string, taskId: string) => Task;
  domainOf: (domain: string) => ReviewDomain;
  /** The LLM reviewer for failures no check places (`--judge-llm`); without it they stay undetermined. */
  model?: LanguageModel;
  onReview?: (reviewed: ReviewedSimulation) => void;
  /** Why a failure no check placed stays undetermined when no model is given (default: the CLI's flag). */
  withoutModel?: string;
}

/** Whether a simulation failed and so needs a review (infrastructure errors included: they are placed too). */
export function needsReview(
  simulation: Pick<SimulationToReview, "termination_reason" | "reward_info">,
): boolean {
  if (NON_EVALUABLE_TERMINATIONS.has(simulation.termination_reason)) return true;
  return !isSuccessful(simulation.reward_info?.reward);
}

/**
 * Review every failed simulation: the deterministic checks first (no model), then the LLM reviewer for
 * the rest when one is given. A reviewer answer that cannot be used is recorded as undetermined, with
 * the reason, never guessed.
 */
export async function reviewSimulations(
  simulations: readonly SimulationToReview[],
  options: ReviewOptions,
): Promise<{ reviews: ReviewedSimulation[]; cost: number | null }> {
  const goldReaches = new Map<string, { reaches: boolean; evidence: string }>();
  const reviews: ReviewedSimulation[] = [];
  let cost: number | null = 0;
  for (const simulation of simulations) {
    if (!needsReview(simulation)) continue;
    const task = options.taskOf(simulation.domain, simulation.task_id);
    const domain = options.domainOf(simulation.domain);
    const key = `${simulation.domain}\u0000${simulation.task_id}`;
    let gold = goldReaches.get(key);
    if (gold === undefined) {
      const replay = replayGoldActions(simulation.domain, task, domain.newWorld);
      const reward = replay.evaluation.reward_excluding_nl_assertions;
      const raised = replay.gold_env_errors ?? [];
      gold = {
        reaches: isSuccessful(reward),
        evidence: `replaying the task's ${replay.steps.length} gold actions in its initial world gives reward ${reward}${raised.length > 0 ? `; gold actions raised: ${raised.join("; ")}` : ""}`,
      };
      goldReaches.set(key, gold);
    }
    let review = deterministicReview(simulation, {
      task,
      domain: domain.domain,
      goldReachesGoal: gold.reaches,
      goldReplayEvidence: gold.evidence,
    });
    if (!review && options.model) {
      try {
        const answer = await llmReview(options.model, {
          task,
          policy: domain.policy,
          messages: simulation.messages,
          failed: failedChecks(simulation.reward_info, simulation.termination_reason),
        });
        review = answer.review;
        cost = cost === null || answer.cost === null ? null : cost + answer.cost;
      } catch (error) {
        if (!ReviewOutputError.isInstance(error)) throw error;
        review = { culprit: "undetermined", turn: null, reason: error.message, source: "llm", check: null };
      }
    }
    review ??= {
      culprit: "undetermined",
      turn: null,
      reason: options.withoutModel ?? "no check placed it, and no reviewer model was given (--judge-llm)",
      source: "check",
      check: null,
    };
    const reviewed = {
      domain: simulation.domain,
      task_id: simulation.task_id,
      trial: simulation.trial,
      review,
    };
    reviews.push(reviewed);
    options.onReview?.(reviewed);
  }
  return { reviews, cost };
}

/** The simulations to leave out of the "agent-caused" scores: failures the review placed elsewhere. */
export function notTheAgentsKeys(
  reviews: ReadonlyArray<{ domain: string; task_id: string; trial: number; review: unknown }>,
): Set<string> {
  const keys = new Set<string>();
  for (const r of reviews) {
    const culprit = (r.review as { culprit?: string } | null)?.culprit;
    if (culprit !== undefined && NOT_THE_AGENTS.has(culprit as Review["culprit"]))
      keys.add(`${r.domain}\u0000${r.task_id}\u0000${r.trial}`);
  }
  return keys;
}
