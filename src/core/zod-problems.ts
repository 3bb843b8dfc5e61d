import type { z } from "zod";
import type { InputProblem } from "./errors.js";

/** JSON-path text of a zod issue path: `$[3].evaluation_criteria.actions[0].name`. */
export function jsonPath(pathParts: readonly PropertyKey[]): string {
  let text = "$";
  for (const part of pathParts) {
    text +=
      typeof part === "number"
        ? `[${part}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(part))
          ? `.${String(part)}`
          : `[${JSON.stringify(String(part))}]`;
  }
  return text;
}

/** Turn zod issues into input problems; `taskIdAt` names the task an issue belongs to, if any. */
export function zodProblems(
  error: z.ZodError,
  taskIdAt?: (index: number) => string | undefined,
): InputProblem[] {
  return error.issues.map((issue) => {
    const first = issue.path[0];
    const taskId = taskIdAt && typeof first === "number" ? taskIdAt(first) : undefined;
    return {
      path: jsonPath(issue.path),
      message: issue.message,
      ...(taskId !== undefined ? { taskId } : {}),
    };
  });
}
