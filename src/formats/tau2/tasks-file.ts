import { readFileSync } from "node:fs";
import { InvalidInputFileError } from "../../core/errors.js";
import { copyPyFloatMarks, parseJsonKeepingPyFloats } from "../../python/py-float.js";
import { TaskListSchema, TaskSplitsSchema, type Task, type TaskSplits } from "../../core/task.js";
import { parseJsonFile, readJsonFile, validateInputFile } from "../json-file.js";

const TASKS_HINT =
  "each task needs an `id`, a `user_scenario` with `instructions`, and optional `initial_state` / `evaluation_criteria` in the τ²-bench shape (see docs/tasks.md); correct the fields listed and load again.";

/** Parse and validate a τ²-bench tasks file. All or nothing: any problem rejects the whole file. */
export function parseTasks(text: string, file: string): Task[] {
  const raw = parseJsonFile(
    text,
    file,
    "the file is not valid JSON; fix the syntax at the position shown.",
    // Keeps `2.0` apart from `2`: tools print some arguments as Python would (see py-float.ts).
    parseJsonKeepingPyFloats,
  );
  const taskIdAt = (index: number) => {
    const item = Array.isArray(raw) ? (raw[index] as { id?: unknown } | undefined) : undefined;
    return item && typeof item.id === "string" ? item.id : `#${index}`;
  };
  const tasks = validateInputFile(TaskListSchema, raw, file, TASKS_HINT, taskIdAt);
  copyPyFloatMarks(raw, tasks);
  const seen = new Map<string, number>();
  const duplicates = tasks.flatMap((task, index) => {
    const first = seen.get(task.id);
    seen.set(task.id, first ?? index);
    return first === undefined
      ? []
      : [
          {
            path: `$[${index}].id`,
            message: `duplicate task id (first used at $[${first}])`,
            taskId: task.id,
          },
        ];
  });
  if (duplicates.length > 0)
    throw new InvalidInputFileError(file, duplicates, "give every task a unique `id`.");
  return tasks;
}

export function readTasksFile(file: string): Task[] {
  return parseTasks(readFileSync(file, "utf8"), file);
}

export function readSplitsFile(file: string): TaskSplits {
  return readJsonFile(file, TaskSplitsSchema, {
    syntax: "fix the JSON syntax.",
    schema: "a split file maps split names to lists of task ids.",
  });
}
