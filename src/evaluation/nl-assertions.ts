import type { Judge } from "../core/judge.js";
import type { Message } from "../core/message.js";
import type { RewardInfo } from "../core/simulation.js";
import type { Task } from "../core/task.js";

/**
 * τ² `NLAssertionsEvaluator`: an LLM judge decides each natural-language assertion; all must hold.
 * Without a judge, a task with assertions cannot be scored on this component: the result says so
 * (`NL_ASSERTION: null`) instead of guessing.
 */
export async function evaluateNlAssertions(
  task: Task,
  trajectory: readonly Message[],
  judge: Judge | undefined,
): Promise<RewardInfo> {
  const assertions = task.evaluation_criteria?.nl_assertions;
  if (!task.evaluation_criteria || !assertions || assertions.length === 0) {
    return {
      reward: 1.0,
      nl_assertions: [],
      info: { note: "No nl_assertions to evaluate" },
      reward_breakdown: { NL_ASSERTION: 1.0 },
    };
  }
  if (!judge) return nlAssertionsNotJudged(assertions.length);
  let verdicts;
  try {
    verdicts = await judge.judge({ assertions, messages: trajectory });
  } catch (error) {
    // A judge that fails leaves the component unknown — not failed, not passed.
    const result = nlAssertionsNotJudged(assertions.length);
    return { ...result, info: { ...result.info, judge_error: (error as Error).message } };
  }
  const reward = verdicts.every((v) => v.met) ? 1.0 : 0.0;
  return {
    reward,
    nl_assertions: verdicts.map((v) => ({ ...v })),
    reward_breakdown: { NL_ASSERTION: reward },
  };
}

/** The NL component of a task whose assertions were not judged (no judge configured). */
export function nlAssertionsNotJudged(count: number): RewardInfo {
  return {
    reward: 1.0,
    reward_breakdown: { NL_ASSERTION: null },
    info: {
      note: `${count} NL assertion(s) need an LLM judge (--judge-llm); not evaluated`,
      nl_assertions_needing_llm_judge: count,
    },
  };
}
