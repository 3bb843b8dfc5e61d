import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { InvalidInputFileError } from "../../core/errors.js";
import { copyPyFloatMarks, parseJsonKeepingPyFloats } from "../../python/py-float.js";
import { TaskListSchema, TaskSplitsSchema, type Task, type TaskSplits } from "../../core/task.js";
import { parseJsonFile, readInputText, readJsonFile, validateInputFile } from "../../core/json-file.js";

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
  return parseTasks(readInputText(file, "pass a tasks JSON file saved on disk."), file);
}

/**
 * A tasks path naming a folder of one-task files (`…/tasks/task_*.json`): the folder and the file-name
 * pattern (one `*`); undefined for a path to a tasks file.
 */
export function taskFolderPattern(tasksPath: string): { folder: string; pattern: RegExp } | undefined {
  const name = path.basename(tasksPath);
  if (!name.includes("*")) return undefined;
  const escaped = name.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return { folder: path.dirname(tasksPath), pattern: new RegExp(`^${escaped.join(".*")}$`) };
}

/**
 * The tasks of a folder of one-task JSON files whose names match `pattern`, in sorted file-name order
 * (τ² banking_knowledge's `get_tasks` globs `tasks/task_*.json`, sorted). All or nothing, as a tasks
 * file: a file that is not a valid task rejects the set, naming the file.
 */
export function readTaskFolder(folder: string, pattern: RegExp): Task[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new InvalidInputFileError(
      folder,
      [{ path: "(folder)", message: "the tasks folder does not exist" }],
      "run `passk data pull`, or point --data at a complete data directory.",
    );
  }
  const files = readdirSync(folder)
    .filter((name) => pattern.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const tasks: Task[] = [];
  const seen = new Map<string, string>();
  for (const name of files) {
    const file = path.join(folder, name);
    const text = readInputText(file, "each task file in the folder must be a JSON file saved on disk.");
    const raw = parseJsonFile(
      text,
      file,
      "the file is not valid JSON; fix the syntax at the position shown.",
      parseJsonKeepingPyFloats,
    );
    const [task] = validateInputFile(TaskListSchema, [raw], file, TASKS_HINT, () =>
      typeof (raw as { id?: unknown } | null)?.id === "string" ? (raw as { id: string }).id : name,
    );
    copyPyFloatMarks(raw, task);
    const first = seen.get(task!.id);
    if (first !== undefined)
      throw new InvalidInputFileError(
        file,
        [{ path: "$.id", message: `duplicate task id (also in ${first})`, taskId: task!.id }],
        "give every task a unique `id`.",
      );
    seen.set(task!.id, name);
    tasks.push(task!);
  }
  return tasks;
}

export function readSplitsFile(file: string): TaskSplits {
  return readJsonFile(file, TaskSplitsSchema, {
    syntax: "fix the JSON syntax.",
    schema: "a split file maps split names to lists of task ids.",
  });
}
