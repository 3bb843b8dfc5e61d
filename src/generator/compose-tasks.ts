import type { EnvAssertionComponent, EnvCall, TaskComponents } from "./components-schema.js";
import { enumerateCombinations } from "./enumerate-combinations.js";
import { fillTemplate } from "./fill-template.js";

/** A gold action as written into a task. */
export interface GeneratedAction {
  action_id: string;
  requestor: "user" | "assistant";
  name: string;
  arguments: Record<string, unknown>;
  info: string | null;
  compare_args: string[] | null;
}

/**
 * A task in the official τ² JSON shape, keys in the order the official files have them. Plain JSON: a
 * whole float (`2.0`) is a number marked as a float on the object that holds it (python/py-float.ts).
 */
export interface GeneratedTask {
  id: string;
  description: { purpose: string | null; relevant_policies: null; notes: null };
  user_scenario: {
    persona: string | null;
    instructions: {
      domain: string;
      reason_for_call: string;
      known_info: string | null;
      unknown_info: null;
      task_instructions: string;
    };
  };
  ticket: string | null;
  initial_state: {
    initialization_data: null;
    initialization_actions: EnvCall[];
    message_history: null;
  };
  evaluation_criteria: {
    actions: GeneratedAction[];
    env_assertions: EnvAssertionComponent[];
    communicate_info: null;
    nl_assertions: null;
    reward_basis: string[];
  };
}

/** One generated task with what it was composed of. */
export interface ComposedTask {
  manager: string;
  /** The sub-issue names, sorted. */
  subtasks: string[];
  personaKey: string;
  fixable: boolean;
  task: GeneratedTask;
}

/**
 * The full generated sequence: for each manager in order, every kept combination of its selection sets
 * (see `enumerateCombinations`), the i-th with persona `personas[i mod n]`. Pure: the same components
 * always give the same tasks, in the same order.
 *
 * Whatever holds numbers (each call's, action's and assertion's `arguments`) goes into the tasks as the
 * very object of the components: the float marks of `2.0` belong to that holder (python/py-float.ts),
 * so a holder rebuilt here (spread, cloned) would need `copyPyFloatMarks` to keep writing `2.0`.
 */
export function composeTasks(components: TaskComponents): ComposedTask[] {
  const composed: ComposedTask[] = [];
  for (const manager of components.managers) {
    const sets = manager.selection_sets.map((name) => components.selection_sets[name]!);
    enumerateCombinations(sets, manager.required_from).forEach((names, index) => {
      const persona = components.personas[index % components.personas.length]!;
      composed.push(composeOne(components, manager, names, persona));
    });
  }
  return composed;
}

function composeOne(
  components: TaskComponents,
  manager: TaskComponents["managers"][number],
  names: string[],
  persona: TaskComponents["personas"][number],
): ComposedTask {
  const subtasks = names.map((name) => components.subtasks[name]!);
  const abroad = subtasks.some((s) => s.abroad);
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(components.template_values))
    values[key] = typeof value === "string" ? value : abroad ? value.abroad : value.home;
  const fill = (template: string | null) => (template === null ? null : fillTemplate(template, values));

  const fixable = subtasks.every((s) => s.fix_actions !== null);
  let actions: GeneratedAction[];
  let envAssertions: EnvAssertionComponent[];
  let rewardBasis: string[];
  if (fixable) {
    actions = subtasks
      .flatMap((s) => s.fix_actions!)
      .map((fix, k) => ({
        action_id: `${fix.name}_${k}`,
        requestor: fix.requestor,
        name: fix.name,
        arguments: fix.arguments,
        info: null,
        compare_args: null,
      }));
    envAssertions = [...manager.env_assertions_fixable, ...subtasks.flatMap((s) => s.extra_env_assertions)];
    rewardBasis = components.reward_basis.fixable;
  } else {
    // The schema guarantees both exist when a used sub-issue is unfixable.
    actions = [components.unfixable_action!];
    envAssertions = manager.env_assertions_unfixable;
    rewardBasis = components.reward_basis.unfixable!;
  }

  const task: GeneratedTask = {
    id: `[${manager.name}]${names.join("|")}[PERSONA:${persona.key}]`,
    description: { purpose: manager.purpose, relevant_policies: null, notes: null },
    user_scenario: {
      persona: persona.text,
      instructions: {
        domain: manager.domain,
        reason_for_call: manager.reason_for_call,
        known_info: fill(manager.known_info),
        unknown_info: null,
        task_instructions: manager.task_instructions,
      },
    },
    ticket: fill(manager.ticket),
    initial_state: {
      initialization_data: null,
      initialization_actions: [...manager.base_init_actions, ...subtasks.flatMap((s) => s.init_actions)],
      message_history: null,
    },
    evaluation_criteria: {
      actions,
      env_assertions: envAssertions,
      communicate_info: null,
      nl_assertions: null,
      reward_basis: rewardBasis,
    },
  };
  return { manager: manager.name, subtasks: names, personaKey: persona.key, fixable, task };
}
