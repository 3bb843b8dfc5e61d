import { readFileSync } from "node:fs";
import { parseJsonFile, validateInputFile } from "../formats/json-file.js";
import { TaskComponentsSchema, type TaskComponents } from "./components-schema.js";
import { parseJsonWithFloats } from "./parse-json-with-floats.js";

const HINT =
  "a components file lists personas, template_values, managers (issue families), selection_sets, subtasks (sub-issues) and task_sets; see the README section on generating tasks. Correct the fields listed and run again.";

/** Parse and check a task components file; whole floats (`2.0`) are kept as `PyFloat`. */
export function parseTaskComponents(text: string, file: string): TaskComponents {
  const raw = parseJsonFile(
    text,
    file,
    "the file is not valid JSON; fix the syntax at the position shown.",
    parseJsonWithFloats,
  );
  return validateInputFile(TaskComponentsSchema, raw, file, HINT);
}

export function readTaskComponents(file: string): TaskComponents {
  return parseTaskComponents(readFileSync(file, "utf8"), file);
}
