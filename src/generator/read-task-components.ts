import { parseJsonFile, readInputText, validateInputFile } from "../core/json-file.js";
import { jsonSyntaxError } from "../core/ordered-json.js";
import { copyPyFloatMarks, parseJsonKeepingPyFloats } from "../python/py-float.js";
import { TaskComponentsSchema, type TaskComponents } from "./components-schema.js";

const HINT =
  "a components file lists personas, template_values, managers (issue families), selection_sets, subtasks (sub-issues) and task_sets; see the README section on generating tasks. Correct the fields listed and run again.";

/**
 * Parse and check a task components file. Whole floats (`2.0`) keep their float marks (see
 * python/py-float.ts) on the checked value, so the tasks composed from it write them as `2.0`.
 */
export function parseTaskComponents(text: string, file: string): TaskComponents {
  const raw = parseJsonFile(
    text,
    file,
    "the file is not valid JSON; fix the syntax at the position shown.",
    (t) => {
      try {
        return parseJsonKeepingPyFloats(t);
      } catch (error) {
        throw jsonSyntaxError(t, error);
      }
    },
  );
  const components = validateInputFile(TaskComponentsSchema, raw, file, HINT);
  // The schema check builds new objects (an `arguments` record is a copy): carry the marks over.
  copyPyFloatMarks(raw, components);
  return components;
}

export function readTaskComponents(file: string): TaskComponents {
  return parseTaskComponents(readInputText(file, "pass a task components JSON file saved on disk."), file);
}
