export { checkComposedTasks, type ComposedTaskProblem } from "./check-composed-tasks.js";
export { TaskComponentsSchema, type TaskComponents } from "./components-schema.js";
export {
  composeTasks,
  type ComposedTask,
  type GeneratedTask,
  type GeneratedAction,
} from "./compose-tasks.js";
export { enumerateCombinations } from "./enumerate-combinations.js";
export { formatPyJson } from "./format-py-json.js";
export { generateTasks, type GenerateTasksOptions } from "./generate-tasks.js";
export { parseJsonWithFloats } from "./parse-json-with-floats.js";
export { PyFloat, withoutPyFloats } from "./py-float.js";
export { parseTaskComponents, readTaskComponents } from "./read-task-components.js";
export { sampleTasks } from "./sample-tasks.js";
export { selectTaskSet } from "./select-task-set.js";
