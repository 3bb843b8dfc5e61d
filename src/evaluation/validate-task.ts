import { closest } from "../core/errors.js";
import type { Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import type { World, WorldOptions } from "../env/world.js";
import { replayGoldActions, type GoldReplayRecord } from "./gold-replay.js";

export interface TaskValidation {
  taskId: string;
  ok: boolean;
  /** Why the task failed: unknown names, a gold replay that crashed, components below 1. */
  problems: string[];
  /**
   * Task defects that do not fail it: gold actions that raise when replayed (the reference's own replay
   * raises on them too; its evaluator swallows the error), each naming the action and the error.
   */
  warnings: string[];
  /** Reward components of the gold replay (`null` = needs an LLM judge). */
  breakdown: Record<string, number | null>;
  /** NL assertions left for a judge. */
  needsJudge: number;
  record?: GoldReplayRecord;
}

/**
 * Check one task end to end: names it uses exist in the domain, its initialization runs, its gold
 * actions replay, and a perfect agent following them earns every reward component.
 */
export function validateTask(
  domain: AnyDomain,
  task: Task,
  newWorld: (o?: WorldOptions) => World,
): TaskValidation {
  const problems = checkNames(domain, task);
  let record: GoldReplayRecord | undefined;
  if (problems.length === 0) {
    try {
      record = replayGoldActions(domain.name, task, newWorld);
    } catch (error) {
      problems.push(`gold replay failed: ${(error as Error).message}`);
    }
  }
  const breakdown = (record?.evaluation.reward_breakdown ?? {}) as Record<string, number | null>;
  for (const [component, value] of Object.entries(breakdown)) {
    if (value !== null && value !== 1) problems.push(`${component} = ${value} for the gold actions`);
  }
  const warnings = goldActionsThatRaise(record).map(
    ({ index, step }) =>
      `task defect: gold action ${index + 1}, ${step.name}(${JSON.stringify(step.arguments)}), raises: ${step.output.replace(/^Error: /, "")}`,
  );
  return {
    taskId: task.id,
    ok: problems.length === 0,
    problems,
    warnings,
    breakdown,
    needsJudge: record?.evaluation.nl_assertions_needing_llm_judge ?? 0,
    ...(record ? { record } : {}),
  };
}

/** The gold actions whose replay answered an error, with their index in the task's gold list. */
export function goldActionsThatRaise(
  record: GoldReplayRecord | undefined,
): Array<{ index: number; step: GoldReplayRecord["steps"][number] }> {
  return (record?.steps ?? []).flatMap((step, index) => (step.error ? [{ index, step }] : []));
}

function checkNames(domain: AnyDomain, task: Task): string[] {
  const problems: string[] = [];
  const toolNames = (side: "user" | "assistant") =>
    ((side === "user" ? domain.user?.tools : domain.agent.tools) ?? []).map((t) => t.name);
  const functionNames = (side: "user" | "assistant") => {
    const toolkit = side === "user" ? domain.user : domain.agent;
    return [...Object.keys(toolkit?.functions ?? {}), ...toolNames(side)];
  };
  const check = (path: string, name: string, known: string[], what: string) => {
    if (known.includes(name)) return;
    const hint = closest(name, known);
    problems.push(`${path} "${name}" is not ${what}${hint ? `; did you mean "${hint}"?` : ""}`);
  };
  task.evaluation_criteria?.actions?.forEach((action, i) =>
    check(
      `evaluation_criteria.actions[${i}].name`,
      action.name,
      toolNames(action.requestor),
      `a ${action.requestor === "user" ? "user" : domain.name} tool`,
    ),
  );
  task.evaluation_criteria?.env_assertions?.forEach((assertion, i) =>
    check(
      `evaluation_criteria.env_assertions[${i}].func_name`,
      assertion.func_name,
      functionNames(assertion.env_type),
      `a ${assertion.env_type} function of ${domain.name}`,
    ),
  );
  // The customer's tools a task names must exist (τ² refuses to build the task's user tool list).
  task.user_tools?.forEach((name, i) =>
    check(`user_tools[${i}]`, name, toolNames("user"), `a user tool of ${domain.name}`),
  );
  task.initial_state?.initialization_actions?.forEach((action, i) =>
    check(
      `initial_state.initialization_actions[${i}].func_name`,
      action.func_name,
      functionNames(action.env_type),
      `a ${action.env_type} function of ${domain.name}`,
    ),
  );
  return problems;
}
