import type { TaskComponents } from "./components-schema.js";
import { composeTasks, type ComposedTask } from "./compose-tasks.js";
import { sampleTasks } from "./sample-tasks.js";
import { selectTaskSet } from "./select-task-set.js";

export interface GenerateTasksOptions {
  /** Task set of the components file (`tasks`, `tasks_small`, `generated`…); default `tasks`. */
  set?: string;
  /** Keep only this many tasks, chosen with `seed` (see `sampleTasks`). */
  sample?: number;
  seed?: number;
}

/**
 * Compose the tasks of one task set, optionally sampled. With the defaults and τ²'s telecom components
 * this is exactly the official `tasks.json`.
 *
 * @example
 * const tasks = generateTasks(readTaskComponents("telecom/task_components.json"), { set: "tasks_small" });
 * writeFileSync("tasks_small.json", formatPyJson(tasks.map((t) => t.task)));
 */
export function generateTasks(
  components: TaskComponents,
  options: GenerateTasksOptions = {},
): ComposedTask[] {
  const selected = selectTaskSet(components, composeTasks(components), options.set ?? "tasks");
  return options.sample === undefined ? selected : sampleTasks(selected, options.sample, options.seed ?? 0);
}
