import type { Task } from "../core/task.js";
import { deepEqual } from "../env/set-state.js";

/** The parts of a task that decide its grade: its starting state and its evaluation criteria. */
function gradingParts(task: Task): unknown {
  // As plain JSON (Maps of ordered records become objects), so that a task read from a file and one
  // built in memory compare equal when they say the same.
  return JSON.parse(
    JSON.stringify(
      { initial_state: task.initial_state ?? null, evaluation_criteria: task.evaluation_criteria ?? null },
      (_key, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v),
    ),
  );
}

/**
 * The ids of `embedded` tasks (those a results file or a stored run carries) that are graded
 * differently from the official task of the same id: a run on them is not a run on the official
 * benchmark, whatever its numbers. Tasks the official set does not have are not counted here.
 */
export function changedTasks(embedded: readonly Task[], official: ReadonlyMap<string, Task>): string[] {
  return embedded
    .filter((task) => {
      const theirs = official.get(task.id);
      return theirs !== undefined && !deepEqual(gradingParts(task), gradingParts(theirs));
    })
    .map((task) => task.id);
}
