import { readFileSync, statSync } from "node:fs";
import type { z } from "zod";
import { InvalidInputFileError } from "./errors.js";
import { jsonErrorOffset, JsonSyntaxError, lineColumn } from "./ordered-json.js";
import { zodProblems } from "./zod-problems.js";

// Every JSON input passk reads (tasks, results, splits, prompt templates, tool specs, task components,
// databases) fails the same way: a syntax error names its line and column, a schema mismatch lists
// each problem by JSON path, both as an InvalidInputFileError with a hint on what to fix.

/**
 * Read the text of an input `file`, refusing what is not a regular file before opening it: a folder
 * (EISDIR otherwise) and a pipe, device or socket (a FIFO would block forever, /dev/zero never end).
 */
export function readInputText(file: string, hint: string): string {
  const stat = statSync(file);
  if (!stat.isFile())
    throw new InvalidInputFileError(
      file,
      [
        {
          path: "(file)",
          message: stat.isDirectory()
            ? "is a folder, not a file"
            : "is not a regular file (a pipe, device or socket)",
        },
      ],
      hint,
    );
  return readFileSync(file, "utf8");
}

/**
 * Parse the JSON `text` of `file` with `parse` (`JSON.parse` by default; the float-keeping and
 * order-keeping parsers fit too). A syntax error becomes an InvalidInputFileError at its position.
 */
export function parseJsonFile(
  text: string,
  file: string,
  hint: string,
  parse: (text: string) => unknown = JSON.parse,
): unknown {
  try {
    return parse(text);
  } catch (error) {
    // Node 20's JSON.parse messages carry no position; the order-keeping parser's errors do.
    const offset = error instanceof JsonSyntaxError ? error.offset : jsonErrorOffset(text);
    const { line, column } = lineColumn(text, offset);
    throw new InvalidInputFileError(
      file,
      [{ path: `line ${line}, column ${column}`, message: (error as Error).message }],
      hint,
    );
  }
}

/**
 * Check a parsed value of `file` against `schema`: its data, or an InvalidInputFileError listing every
 * issue. `taskIdAt` names the task an issue under a top-level list index belongs to.
 */
export function validateInputFile<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  file: string,
  hint: string,
  taskIdAt?: (index: number) => string | undefined,
): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new InvalidInputFileError(file, zodProblems(parsed.error, taskIdAt), hint);
  return parsed.data;
}

/** Read, parse and validate a JSON file; `hints` say how to fix bad syntax and a schema mismatch. */
export function readJsonFile<S extends z.ZodType>(
  file: string,
  schema: S,
  hints: { syntax: string; schema: string },
): z.output<S> {
  const raw = parseJsonFile(readInputText(file, hints.syntax), file, hints.syntax);
  return validateInputFile(schema, raw, file, hints.schema);
}
