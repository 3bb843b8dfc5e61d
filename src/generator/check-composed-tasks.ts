import type { Task } from "../core/task.js";
import { applyInitialState } from "../env/set-state.js";
import type { World } from "../env/world.js";
import type { EnvAssertionComponent, TaskComponents } from "./components-schema.js";
import type { ComposedTask } from "./compose-tasks.js";

/** A problem found by `checkComposedTasks`, for one task. */
export interface ComposedTaskProblem {
  taskId: string;
  message: string;
}

/**
 * The generator's self-check, run against a real domain (the τ² generator does the same while it
 * writes tasks). For each task:
 *
 * 1. initialization: the manager's base actions, then each sub-issue's init actions in order; after the
 *    k-th init action of a sub-issue, its `init_checks` with `after: k` must hold;
 * 2. a fresh world with only the base actions must be "solved" (the manager's fixable assertions hold);
 * 3. replay: the task's initialization, then its gold actions as tool calls; before each gold action the
 *    problem must not be solved yet, no gold action may fail, and afterwards the problem must be solved
 *    exactly when the task is fixable;
 * 4. every env assertion of the task holds.
 *
 * An empty list means the components describe tasks a perfect agent can complete.
 */
export function checkComposedTasks(
  components: TaskComponents,
  tasks: readonly ComposedTask[],
  newWorld: () => World,
): ComposedTaskProblem[] {
  // Worlds copy the arguments they receive, float marks included: components and tasks go in as they are.
  return tasks.flatMap((composed) =>
    checkOne(components, composed, newWorld).map((message) => ({ taskId: composed.task.id, message })),
  );
}

function checkOne(components: TaskComponents, composed: ComposedTask, newWorld: () => World): string[] {
  const problems: string[] = [];
  const manager = components.managers.find((m) => m.name === composed.manager)!;
  const holds = (world: World, assertion: EnvAssertionComponent) => world.checkAssertion(assertion);
  const solved = (world: World) => manager.env_assertions_fixable.every((a) => holds(world, a));
  try {
    const generation = newWorld();
    for (const call of manager.base_init_actions) generation.runEnvFunction(call);
    const baseline = generation.fork();
    if (!solved(baseline)) problems.push("the world with only base_init_actions is not solved");
    for (const name of composed.subtasks) {
      const subtask = components.subtasks[name]!;
      const runChecks = (after: number) => {
        for (const check of subtask.init_checks.filter((c) => c.after === after))
          if (!holds(generation, check))
            problems.push(
              `init check ${check.func_name}(${JSON.stringify(check.arguments)}) of ${name} fails after ${after} init action(s)` +
                (check.message ? ` (${check.message})` : ""),
            );
      };
      runChecks(0);
      subtask.init_actions.forEach((call, index) => {
        generation.runEnvFunction(call);
        runChecks(index + 1);
      });
    }

    const task = composed.task as unknown as Task;
    const world = newWorld();
    applyInitialState(world, task.initial_state);
    const actions = task.evaluation_criteria?.actions ?? [];
    actions.forEach((action, index) => {
      if (solved(world)) problems.push(`already solved before gold action ${index} (${action.name})`);
      const result = world.callTool({
        name: action.name,
        arguments: action.arguments,
        requestor: action.requestor,
      });
      if (result.error) problems.push(`gold action ${index} (${action.name}) failed: ${result.content}`);
    });
    const fixed = solved(world);
    if (composed.fixable && !fixed) problems.push("not solved after the gold actions");
    if (!composed.fixable && fixed) problems.push("an unfixable task is solved after the gold actions");
    for (const assertion of task.evaluation_criteria?.env_assertions ?? [])
      if (!world.checkAssertion(assertion))
        problems.push(`env assertion ${assertion.func_name}(${JSON.stringify(assertion.arguments)}) fails`);
  } catch (error) {
    problems.push(`could not run: ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}
