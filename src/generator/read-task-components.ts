import { readFileSync } from "node:fs";
import { InvalidInputFileError } from "../core/errors.js";
import { JsonSyntaxError, lineColumn } from "../formats/ordered-json.js";
import { zodProblems } from "../formats/tau2/zod-problems.js";
import { TaskComponentsSchema, type TaskComponents } from "./components-schema.js";
import { parseJsonWithFloats } from "./parse-json-with-floats.js";

const HINT =
  "a components file lists personas, template_values, managers (issue families), selection_sets, subtasks (sub-issues) and task_sets; see the README section on generating tasks. Correct the fields listed and run again.";

/** Parse and check a task components file; whole floats (`2.0`) are kept as `PyFloat`. */
export function parseTaskComponents(text: string, file: string): TaskComponents {
  let raw: unknown;
  try {
    raw = parseJsonWithFloats(text);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const { line, column } = lineColumn(text, error.offset);
    throw new InvalidInputFileError(
      file,
      [{ path: `line ${line}, column ${column}`, message: error.message }],
      "the file is not valid JSON; fix the syntax at the position shown.",
    );
  }
  const parsed = TaskComponentsSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidInputFileError(file, zodProblems(parsed.error), HINT);
  return parsed.data;
}

export function readTaskComponents(file: string): TaskComponents {
  return parseTaskComponents(readFileSync(file, "utf8"), file);
}
