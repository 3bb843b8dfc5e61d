import type { Message } from "../core/message.js";
import type { DbCheck, EnvAssertionCheck, RewardInfo } from "../core/simulation.js";
import type { RewardType, Task } from "../core/task.js";
import { applyInitialState, replayToolCalls } from "../env/set-state.js";
import type { ArgumentValidation, World, WorldOptions } from "../env/world.js";
import { compareDbs, type RecordDiff } from "../env/db-diff.js";

/** How the evaluator gets fresh worlds of the task's domain, and how strictly it replays. */
export interface EvaluationEnvironment {
  /** A fresh world over the pristine databases, built for `options.task` (the evaluator passes it). */
  newWorld: (options?: WorldOptions) => World;
  /** The conversation ran in solo mode. */
  solo?: boolean;
  /**
   * Argument checking while replaying the trajectory: passk's `strict` for passk trajectories,
   * `lenient` (τ²'s behaviour) when re-scoring trajectories recorded with the reference.
   */
  validation?: ArgumentValidation;
  /** Whether replayed outputs must equal the recorded ones (τ² `strict_replay`, default true). */
  strictReplay?: boolean;
  /** The task's gold world when the caller already built it ({@link buildGoldWorld}); else built here. */
  gold?: World;
}

/** The task's gold world, and the gold actions that failed on the way (τ² swallows them). */
export interface GoldWorld {
  world: World;
  /** Each failed gold action as `name: ErrorType: message`. */
  errors: string[];
}

/** τ²'s gold environment: the task's initial state, then its gold actions without sync, errors swallowed. */
export function buildGoldWorld(
  task: Task,
  newWorld: (options?: WorldOptions) => World,
  validation: ArgumentValidation = "strict",
): GoldWorld {
  const world = newWorld({ validation, task });
  applyInitialState(world, task.initial_state);
  const errors: string[] = [];
  for (const action of task.evaluation_criteria?.actions ?? []) {
    const result = world.callTool(
      { name: action.name, arguments: action.arguments, requestor: action.requestor },
      { sync: false },
    );
    if (result.error)
      errors.push(
        `${action.name}: ${result.errorType ?? "ValueError"}: ${result.content.replace(/^Error: /, "")}`,
      );
  }
  return { world, errors };
}

export interface EnvironmentEvaluation {
  rewardInfo: RewardInfo;
  /** Worlds kept for diagnostics (absent when the task needs no environment check). */
  predicted?: World;
  gold?: World;
  /** Per-record differences between predicted and gold databases, when they differ. */
  dbDiff?: { agent: RecordDiff[]; user: RecordDiff[] };
}

/**
 * τ² `EnvironmentEvaluator`: replay the trajectory's state-changing calls on a fresh world, build the
 * gold world by applying the task's gold actions (errors swallowed, no sync), compare DB hashes, and
 * run the env assertions on the predicted world.
 */
export function evaluateEnvironment(
  task: Task,
  trajectory: readonly Message[],
  env: EvaluationEnvironment,
): EnvironmentEvaluation {
  const criteria = task.evaluation_criteria;
  if (!criteria) return { rewardInfo: { reward: 1.0, info: { note: "No evaluation criteria" } } };
  if (criteria.actions === null && criteria.env_assertions === null) {
    return {
      rewardInfo: {
        reward: 1.0,
        db_check: { db_match: true, db_reward: 1.0 },
        info: { note: "No expected actions or env assertions" },
      },
    };
  }
  const initial = task.initial_state;
  const withoutHistory = initial ? { ...initial, message_history: null } : initial;

  // Built for the task, as the conversation's world was (tools may read it: see ToolContext).
  const predicted = env.newWorld({ solo: env.solo ?? false, validation: env.validation ?? "strict", task });
  applyInitialState(predicted, withoutHistory);
  replayToolCalls(predicted, trajectory, { strict: env.strictReplay ?? true });
  predicted.sync();

  const gold = env.gold ?? buildGoldWorld(task, env.newWorld, env.validation).world;

  const same = predicted.sameDbsAs(gold);
  const dbMatch = same.agent && same.user;
  const dbCheck: DbCheck = { db_match: dbMatch, db_reward: dbMatch ? 1.0 : 0.0 };

  const envAssertionChecks: EnvAssertionCheck[] = [];
  let envAssertionReward = 1.0;
  for (const assertion of criteria.env_assertions ?? []) {
    const met = predicted.checkAssertion(assertion);
    envAssertionChecks.push({ env_assertion: assertion, met, reward: met ? 1.0 : 0.0 });
    if (!met) envAssertionReward = 0.0;
  }

  let reward = 1.0;
  const breakdown: Partial<Record<RewardType, number>> = {};
  if (criteria.reward_basis.includes("DB")) {
    breakdown.DB = dbCheck.db_reward;
    reward *= dbCheck.db_reward;
  }
  if (criteria.reward_basis.includes("ENV_ASSERTION")) {
    breakdown.ENV_ASSERTION = envAssertionReward;
    reward *= envAssertionReward;
  }
  const dbDiff = dbMatch
    ? undefined
    : {
        agent: same.agent ? [] : compareDbs(predicted.agentDb, gold.agentDb),
        user: same.user ? [] : compareDbs(predicted.userDb, gold.userDb),
      };
  return {
    rewardInfo: {
      reward,
      db_check: dbCheck,
      env_assertions: envAssertionChecks,
      reward_basis: criteria.reward_basis,
      reward_breakdown: breakdown,
      // The diff is passk's addition: returned as `dbDiff`, and recorded once, in the top-level info.
      info: null,
    },
    predicted,
    gold,
    ...(dbDiff ? { dbDiff } : {}),
  };
}
