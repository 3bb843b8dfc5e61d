import { printParseErrorCode, visit } from "jsonc-parser";
import { JsonSyntaxError } from "../formats/ordered-json.js";
import { PyFloat } from "./py-float.js";

const FLOAT_SYNTAX = /[.eE]/;

/**
 * Parse JSON as Python's `json.loads` would type it: a number written with a point or an exponent is a
 * float, so whole ones (`2.0`, `1e3`) come back as `PyFloat`; all other values are plain JSON.
 * Key order is JavaScript's (integer-like keys first), which is the file's order for the identifier-like
 * keys component files use.
 */
export function parseJsonWithFloats(text: string): unknown {
  type Container =
    { kind: "array"; items: unknown[] } | { kind: "object"; entries: Array<[string, unknown]> };
  const stack: Container[] = [];
  const keys: string[] = [];
  let root: unknown;
  let failure: { code: number; offset: number } | undefined;
  const add = (value: unknown) => {
    const top = stack[stack.length - 1];
    if (!top) root = value;
    else if (top.kind === "array") top.items.push(value);
    else top.entries.push([keys.pop()!, value]);
  };
  visit(
    text,
    {
      onObjectBegin: () => void stack.push({ kind: "object", entries: [] }),
      onObjectProperty: (key) => void keys.push(key),
      onObjectEnd: () =>
        add(Object.fromEntries((stack.pop() as Extract<Container, { kind: "object" }>).entries)),
      onArrayBegin: () => void stack.push({ kind: "array", items: [] }),
      onArrayEnd: () => add((stack.pop() as Extract<Container, { kind: "array" }>).items),
      onLiteralValue: (value: unknown, offset: number, length: number) => {
        const isWholeFloat =
          typeof value === "number" &&
          Number.isInteger(value) &&
          FLOAT_SYNTAX.test(text.slice(offset, offset + length));
        add(isWholeFloat ? new PyFloat(value) : value);
      },
      onError: (code, offset) => {
        failure ??= { code, offset };
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  if (failure)
    throw new JsonSyntaxError(`JSON syntax error: ${printParseErrorCode(failure.code)}`, failure.offset);
  return root;
}
