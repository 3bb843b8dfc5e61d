import { UnknownNameError } from "../core/errors.js";
import type { TaskComponents } from "./components-schema.js";
import type { ComposedTask } from "./compose-tasks.js";

/**
 * The tasks of a named task set, in generated order: those with none of the set's excluded sub-issues
 * and at most `max_subtasks` sub-issues. `generated` means every task when the file does not define it.
 */
export function selectTaskSet(
  components: TaskComponents,
  composed: ComposedTask[],
  setName: string,
): ComposedTask[] {
  const filter =
    components.task_sets[setName] ??
    (setName === "generated" ? { exclude_subtasks: [], max_subtasks: null } : undefined);
  if (!filter) {
    const known = [...new Set(["generated", ...Object.keys(components.task_sets)])];
    throw new UnknownNameError("task set", setName, known, "Pass --set with one of the file's task_sets.");
  }
  const excluded = new Set(filter.exclude_subtasks);
  return composed.filter(
    (c) =>
      !c.subtasks.some((name) => excluded.has(name)) &&
      (filter.max_subtasks === null || c.subtasks.length <= filter.max_subtasks),
  );
}
