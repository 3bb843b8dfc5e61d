import { visit, printParseErrorCode, type ParseError } from "jsonc-parser";

// Keys JavaScript objects reorder (canonical array indices): "0", "42", "3377618313" …
const INTEGER_LIKE_KEY = /"(?:0|[1-9]\d{0,9})"\s*:/;

const MAX_ARRAY_INDEX = 4294967294;

function isIndexKey(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

/**
 * Parse JSON keeping the file's key order everywhere. Plain `JSON.parse` moves integer-like keys
 * ("3377618313") first, which would reorder e.g. retail product variants in tool outputs; objects with
 * such keys come back as `Map`s in file order, all others as plain objects. Falls back to the fast
 * `JSON.parse` when the text has no integer-like key at all.
 */
export function parseOrderedJson(text: string): unknown {
  if (!INTEGER_LIKE_KEY.test(text)) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new JsonSyntaxError(String((error as Error).message), jsonErrorOffset(text));
    }
  }
  type Container =
    { kind: "array"; value: unknown[] } | { kind: "object"; entries: Array<[string, unknown]> };
  const stack: Container[] = [];
  const keys: string[] = [];
  let root: unknown;
  let error: ParseError | undefined;
  const add = (value: unknown) => {
    const top = stack[stack.length - 1];
    if (!top) root = value;
    else if (top.kind === "array") top.value.push(value);
    else top.entries.push([keys.pop()!, value]);
  };
  visit(
    text,
    {
      onObjectBegin: () => void stack.push({ kind: "object", entries: [] }),
      onObjectProperty: (key) => void keys.push(key),
      onObjectEnd: () => {
        const done = stack.pop() as Extract<Container, { kind: "object" }>;
        add(
          done.entries.some(([k]) => isIndexKey(k))
            ? new Map(done.entries)
            : Object.fromEntries(done.entries),
        );
      },
      onArrayBegin: () => void stack.push({ kind: "array", value: [] }),
      onArrayEnd: () => add((stack.pop() as Extract<Container, { kind: "array" }>).value),
      onLiteralValue: (value) => add(value),
      onError: (code, offset) => {
        error ??= { error: code, offset, length: 0 };
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  if (error)
    throw new JsonSyntaxError(`JSON syntax error: ${printParseErrorCode(error.error)}`, error.offset);
  return root;
}

/** The first syntax error in `text`, as jsonc-parser finds it (code and character offset). */
function firstSyntaxError(text: string): { code: number; offset: number } | undefined {
  let found: { code: number; offset: number } | undefined;
  visit(
    text,
    {
      onError: (code, offset) => {
        found ??= { code, offset };
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return found;
}

/** Offset of the first JSON syntax error in `text` (Node 20's JSON.parse messages carry no position). */
export function jsonErrorOffset(text: string): number {
  return firstSyntaxError(text)?.offset ?? 0;
}

/**
 * `JSON.parse` failed on `text` with `error`: the same failure as a JsonSyntaxError with jsonc-parser's
 * name for the problem and its position (`JSON syntax error: CommaExpected` at offset 8).
 */
export function jsonSyntaxError(text: string, error: unknown): JsonSyntaxError {
  const found = firstSyntaxError(text);
  return found
    ? new JsonSyntaxError(`JSON syntax error: ${printParseErrorCode(found.code)}`, found.offset)
    : new JsonSyntaxError(String((error as Error).message), 0);
}

/** Line and column (1-based) of a character offset, for error messages. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
