import type { Judge } from "../core/judge.js";
import type { Message } from "../core/message.js";
import type { RewardInfo, TerminationReason } from "../core/simulation.js";
import type { RewardType, Task } from "../core/task.js";
import { domainToolTypes, evaluateActions } from "./actions.js";
import { evaluateCommunicate } from "./communicate.js";
import { evaluateEnvironment, type EvaluationEnvironment } from "./environment.js";
import { evaluateNlAssertions, nlAssertionsNotJudged } from "./nl-assertions.js";

export interface SimulationToEvaluate {
  termination_reason: TerminationReason;
  messages: readonly Message[];
  /**
   * What each check reads, when not `messages` (a full-duplex call's views of its ticks): `tools` the
   * tool calls with their results in the order they ran (environment replay and the action check),
   * `communicate` the agent's utterances, `nl` the linearised conversation the judge reads.
   */
  views?: { tools?: readonly Message[]; communicate?: readonly Message[]; nl?: readonly Message[] };
}

const ENV_BASES: RewardType[] = ["DB", "ENV_ASSERTION"];

/** τ² scores NL_ASSERTION 1.0 when the basis names it but the task lists no assertions. */
const NO_NL_ASSERTIONS: RewardInfo = {
  reward: 1.0,
  nl_assertions: [],
  reward_breakdown: { NL_ASSERTION: 1.0 },
  info: { note: "No nl_assertions to evaluate" },
};

/**
 * Grade a conversation exactly as τ²-bench does (`evaluate_simulation`, evaluation type ALL): reward 0
 * unless the user or the agent ended it, otherwise the product of the components in the task's
 * `reward_basis`. NL assertions are judged by `judge` when the basis needs them; without a judge the
 * NL component is reported as not evaluated (`NL_ASSERTION: null`) and left out of the product.
 */
export async function evaluateSimulation(
  simulation: SimulationToEvaluate,
  task: Task,
  env: EvaluationEnvironment,
  judge?: Judge,
): Promise<RewardInfo> {
  const nlNeeded = task.evaluation_criteria?.reward_basis.includes("NL_ASSERTION") ?? false;
  const nl =
    nlNeeded && isGradable(simulation)
      ? await evaluateNlAssertions(task, simulation.views?.nl ?? simulation.messages, judge)
      : undefined;
  return evaluateSimulationSync(simulation, task, env, nl);
}

/** The synchronous part of {@link evaluateSimulation}; `nl` is the NL component if already judged. */
export function evaluateSimulationSync(
  simulation: SimulationToEvaluate,
  task: Task,
  env: EvaluationEnvironment,
  nl?: RewardInfo,
): RewardInfo {
  if (!isGradable(simulation)) {
    return {
      reward: 0.0,
      reward_basis: null,
      info: {
        note: `Simulation terminated prematurely. Termination reason: ${simulation.termination_reason}`,
      },
    };
  }
  const criteria = task.evaluation_criteria;
  if (!criteria) return { reward: 1.0, reward_basis: null, info: { note: "No evaluation criteria" } };

  const tools = simulation.views?.tools ?? simulation.messages;
  let envInfo: RewardInfo;
  let dbDiff: unknown;
  try {
    const evaluation = evaluateEnvironment(task, tools, env);
    envInfo = evaluation.rewardInfo;
    dbDiff = evaluation.dbDiff;
  } catch (error) {
    // τ² grades a trajectory it cannot replay as 0 rather than aborting the batch.
    return {
      reward: 0.0,
      reward_basis: criteria.reward_basis,
      info: {
        error: `${(error as Error).name}: ${(error as Error).message}`,
        note: "Evaluation could not replay the trajectory; graded 0.",
      },
    };
  }
  const actionInfo = evaluateActions(task, tools, domainToolTypes(env.newWorld().domain));
  const communicateInfo = evaluateCommunicate(task, simulation.views?.communicate ?? simulation.messages);
  const basis = new Set(criteria.reward_basis);
  const nlInfo = basis.has("NL_ASSERTION")
    ? (nl ??
      ((criteria.nl_assertions?.length ?? 0) > 0
        ? nlAssertionsNotJudged(criteria.nl_assertions!.length)
        : NO_NL_ASSERTIONS))
    : undefined;

  let reward = 1.0;
  const breakdown: Partial<Record<RewardType, number | null>> = {};
  const include = (component: RewardInfo | undefined, applies: boolean) => {
    if (!component || !applies) return;
    Object.assign(breakdown, component.reward_breakdown ?? {});
    reward *= component.reward;
  };
  include(
    envInfo,
    ENV_BASES.some((b) => basis.has(b)),
  );
  include(actionInfo, basis.has("ACTION"));
  include(nlInfo, basis.has("NL_ASSERTION"));
  include(communicateInfo, basis.has("COMMUNICATE"));

  const pendingNl = breakdown.NL_ASSERTION === null ? (criteria.nl_assertions?.length ?? 0) : 0;
  return {
    reward,
    db_check: envInfo.db_check ?? null,
    env_assertions: envInfo.env_assertions ?? null,
    action_checks: actionInfo.action_checks ?? null,
    nl_assertions: nlInfo?.nl_assertions ?? null,
    communicate_checks: communicateInfo.communicate_checks ?? null,
    reward_basis: criteria.reward_basis,
    reward_breakdown: breakdown,
    info: {
      env: envInfo.info ?? null,
      nl: nlInfo?.info ?? null,
      communicate: communicateInfo.info ?? null,
      action: actionInfo.info ?? null,
      ...(dbDiff ? { db_diff: dbDiff } : {}),
      ...(pendingNl > 0 ? { nl_assertions_needing_llm_judge: pendingNl } : {}),
    },
  };
}

function isGradable(simulation: SimulationToEvaluate): boolean {
  return simulation.termination_reason === "user_stop" || simulation.termination_reason === "agent_stop";
}
