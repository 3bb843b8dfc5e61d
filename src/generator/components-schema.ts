import { z } from "zod";
import { ToolRequestorSchema } from "../core/message.js";
import { RewardTypeSchema } from "../core/task.js";
import { parseTemplate } from "./fill-template.js";

const ArgumentsSchema = z.record(z.string(), z.unknown()).default({});

/** A call of an environment function (initialization), written into tasks as is. */
export const EnvCallSchema = z.strictObject({
  env_type: ToolRequestorSchema,
  func_name: z.string().min(1),
  arguments: ArgumentsSchema,
});
export type EnvCall = z.infer<typeof EnvCallSchema>;

/** An environment assertion, written into tasks as is. */
export const EnvAssertionComponentSchema = z.strictObject({
  env_type: ToolRequestorSchema,
  func_name: z.string().min(1),
  arguments: ArgumentsSchema,
  assert_value: z.boolean().default(true),
  message: z.string().nullable().default(null),
});
export type EnvAssertionComponent = z.infer<typeof EnvAssertionComponentSchema>;

/** A sanity check run while initializing, after `after` of the sub-issue's init actions (never in a task). */
const InitCheckSchema = z.strictObject({
  after: z.int().nonnegative(),
  ...EnvAssertionComponentSchema.shape,
});

/** One tool call that fixes a sub-issue; becomes a gold action. */
const FixActionSchema = z.strictObject({
  requestor: ToolRequestorSchema,
  name: z.string().min(1),
  arguments: ArgumentsSchema,
});

/** A complete gold action (the one used when a combination cannot be fixed). */
const ActionComponentSchema = z.strictObject({
  action_id: z.string().min(1),
  requestor: ToolRequestorSchema,
  name: z.string().min(1),
  arguments: ArgumentsSchema,
  info: z.string().nullable().default(null),
  compare_args: z.array(z.string()).nullable().default(null),
});

const PersonaSchema = z.strictObject({
  key: z.string().min(1),
  /** The persona text given to the simulated user; null for "no persona". */
  text: z.string().nullable(),
});

/** A template value: one string, or a `home` / `abroad` pair picked by the sub-issues' `abroad` flag. */
const TemplateValueSchema = z.union([z.string(), z.strictObject({ home: z.string(), abroad: z.string() })]);

/** An issue family: the text of its tasks and which selection sets its combinations draw from. */
const ManagerSchema = z.strictObject({
  name: z.string().regex(/^[^[\]|]+$/, "a manager name must not contain [, ] or |"),
  domain: z.string().min(1),
  purpose: z.string().nullable(),
  reason_for_call: z.string(),
  known_info: z.string().nullable(),
  task_instructions: z.string(),
  ticket: z.string().nullable(),
  base_init_actions: z.array(EnvCallSchema).default([]),
  env_assertions_fixable: z.array(EnvAssertionComponentSchema),
  env_assertions_unfixable: z.array(EnvAssertionComponentSchema).default([]),
  selection_sets: z.array(z.string()).min(1),
  /** A combination is kept only if a set at this index or later contributes a sub-issue. */
  required_from: z.int().nonnegative().default(0),
});
export type Manager = z.infer<typeof ManagerSchema>;

/** One sub-issue: how to break the world, and how to fix it (null: the agent cannot). */
const SubtaskSchema = z.strictObject({
  group: z.string(),
  description: z.string().optional(),
  abroad: z.boolean().default(false),
  init_actions: z.array(EnvCallSchema).default([]),
  init_checks: z.array(InitCheckSchema).default([]),
  fix_actions: z.array(FixActionSchema).nullable(),
  extra_env_assertions: z.array(EnvAssertionComponentSchema).default([]),
});
export type Subtask = z.infer<typeof SubtaskSchema>;

/** A named filter over the generated sequence (`tasks`, `tasks_small`…). */
const TaskSetSchema = z.strictObject({
  exclude_subtasks: z.array(z.string()).default([]),
  max_subtasks: z.int().positive().nullable().default(null),
});
export type TaskSet = z.infer<typeof TaskSetSchema>;

const SUBTASK_NAME = /^[^[\]|]+$/;

/**
 * A task components file: every input of the compositional task generator (see the README section
 * "Generate tasks from components"). Besides the shapes, it checks that every name refers to something
 * defined, so composition itself cannot fail.
 */
export const TaskComponentsSchema = z
  .strictObject({
    format: z
      .string()
      .regex(
        /task-components\/1$/,
        'expected a format tag ending in "task-components/1", e.g. "passk-task-components/1"',
      ),
    source: z.string().optional(),
    personas: z.array(PersonaSchema).min(1),
    template_values: z.record(z.string(), TemplateValueSchema).default({}),
    unfixable_action: ActionComponentSchema.nullable().default(null),
    reward_basis: z.strictObject({
      fixable: z.array(RewardTypeSchema).min(1),
      unfixable: z.array(RewardTypeSchema).min(1).nullable().default(null),
    }),
    managers: z.array(ManagerSchema).min(1),
    selection_sets: z.record(z.string(), z.array(z.string()).min(1)),
    subtasks: z.record(
      z.string().regex(SUBTASK_NAME, "a sub-issue name must not contain [, ] or |"),
      SubtaskSchema,
    ),
    task_sets: z.record(z.string(), TaskSetSchema).default({}),
  })
  .superRefine((file, context) => {
    const problem = (path: PropertyKey[], message: string) =>
      context.addIssue({ code: "custom", path, message });
    const setNames = Object.keys(file.selection_sets);
    const subtaskNames = Object.keys(file.subtasks);

    const managerIndex = new Map<string, number>();
    file.managers.forEach((manager, m) => {
      const first = managerIndex.get(manager.name);
      if (first !== undefined)
        problem(["managers", m, "name"], `duplicate manager name (first used at $.managers[${first}])`);
      managerIndex.set(manager.name, first ?? m);
      manager.selection_sets.forEach((set, s) => {
        if (!(set in file.selection_sets))
          problem(
            ["managers", m, "selection_sets", s],
            `unknown selection set "${set}" (defined: ${setNames.join(", ")})`,
          );
      });
      if (new Set(manager.selection_sets).size !== manager.selection_sets.length)
        problem(["managers", m, "selection_sets"], "a selection set is listed twice");
      if (manager.required_from >= manager.selection_sets.length)
        problem(
          ["managers", m, "required_from"],
          `must be below the number of selection sets (${manager.selection_sets.length}), or no combination is kept`,
        );
      for (const field of ["known_info", "ticket"] as const) {
        const template = manager[field];
        if (template === null) continue;
        const parts = parseTemplate(template);
        if ("error" in parts) {
          problem(["managers", m, field], parts.error);
          continue;
        }
        for (const part of parts)
          if ("placeholder" in part && !(part.placeholder in file.template_values))
            problem(
              ["managers", m, field],
              `placeholder {${part.placeholder}} has no entry in $.template_values (defined: ${Object.keys(file.template_values).join(", ") || "none"})`,
            );
      }
    });

    const groupOf = new Map<string, string>();
    for (const [set, members] of Object.entries(file.selection_sets)) {
      members.forEach((name, k) => {
        const subtask = file.subtasks[name];
        if (!subtask) {
          problem(["selection_sets", set, k], `unknown sub-issue "${name}" (not a key of $.subtasks)`);
          return;
        }
        const other = groupOf.get(name);
        if (other !== undefined)
          problem(["selection_sets", set, k], `sub-issue "${name}" is already in set "${other}"`);
        else groupOf.set(name, set);
        if (subtask.group !== set)
          problem(
            ["subtasks", name, "group"],
            `is "${subtask.group}" but the sub-issue is listed in set "${set}"`,
          );
      });
    }
    for (const name of subtaskNames)
      if (!groupOf.has(name)) problem(["subtasks", name], `sub-issue "${name}" is in no selection set`);

    const usedSets = new Set(file.managers.flatMap((m) => m.selection_sets));
    const unfixableUsed = subtaskNames.some(
      (name) => file.subtasks[name]!.fix_actions === null && usedSets.has(groupOf.get(name) ?? ""),
    );
    if (unfixableUsed && file.unfixable_action === null)
      problem(
        ["unfixable_action"],
        "required: some sub-issue has `fix_actions: null`, and its tasks need this gold action",
      );
    if (unfixableUsed && file.reward_basis.unfixable === null)
      problem(["reward_basis", "unfixable"], "required: some sub-issue has `fix_actions: null`");

    for (const [set, filter] of Object.entries(file.task_sets))
      filter.exclude_subtasks.forEach((name, k) => {
        if (!(name in file.subtasks))
          problem(
            ["task_sets", set, "exclude_subtasks", k],
            `unknown sub-issue "${name}" (not a key of $.subtasks)`,
          );
      });
  });
export type TaskComponents = z.infer<typeof TaskComponentsSchema>;
