import { readFileSync } from "node:fs";
import { InvalidInputFileError } from "../../core/errors.js";
import { copyPyFloatMarks, parseJsonKeepingPyFloats } from "../../env/py-float.js";
import { TaskListSchema, TaskSplitsSchema, type Task, type TaskSplits } from "../../core/task.js";
import { jsonErrorOffset, lineColumn } from "../ordered-json.js";
import { zodProblems } from "./zod-problems.js";

const TASKS_HINT =
  "each task needs an `id`, a `user_scenario` with `instructions`, and optional `initial_state` / `evaluation_criteria` in the τ²-bench shape (see docs/tasks.md); correct the fields listed and load again.";

/** Parse and validate a τ²-bench tasks file. All or nothing: any problem rejects the whole file. */
export function parseTasks(text: string, file: string): Task[] {
  let raw: unknown;
  try {
    // Keeps `2.0` apart from `2`: tools print some arguments as Python would (see py-float.ts).
    raw = parseJsonKeepingPyFloats(text);
  } catch (error) {
    const { line, column } = lineColumn(text, jsonErrorOffset(text));
    throw new InvalidInputFileError(
      file,
      [{ path: `line ${line}, column ${column}`, message: (error as Error).message }],
      "the file is not valid JSON; fix the syntax at the position shown.",
    );
  }
  const parsed = TaskListSchema.safeParse(raw);
  const taskIdAt = (index: number) => {
    const item = Array.isArray(raw) ? (raw[index] as { id?: unknown } | undefined) : undefined;
    return item && typeof item.id === "string" ? item.id : `#${index}`;
  };
  if (!parsed.success) throw new InvalidInputFileError(file, zodProblems(parsed.error, taskIdAt), TASKS_HINT);
  copyPyFloatMarks(raw, parsed.data);
  const seen = new Map<string, number>();
  const duplicates = parsed.data.flatMap((task, index) => {
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
  return parsed.data;
}

export function readTasksFile(file: string): Task[] {
  return parseTasks(readFileSync(file, "utf8"), file);
}

export function readSplitsFile(file: string): TaskSplits {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InvalidInputFileError(
      file,
      [{ path: "$", message: (error as Error).message }],
      "fix the JSON syntax.",
    );
  }
  const parsed = TaskSplitsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new InvalidInputFileError(
      file,
      zodProblems(parsed.error),
      "a split file maps split names to lists of task ids.",
    );
  }
  return parsed.data;
}
