import { ToolError } from "../../../env/world.js";
import { pyFloatStr, pyIterate, pyTypeName } from "../../../python/py-values.js";
import { parseExpression, PySyntaxError, type Expression } from "./parse.js";
import {
  binary,
  float,
  int,
  pyRound2,
  pyValueStr,
  toFloat,
  unary,
  type PyValue,
} from "../../../python/py-arithmetic.js";

const ALLOWED_TEXT = "0123456789+-*/(). ";
const ALLOWED = new Set(ALLOWED_TEXT);

/** The characters `calculate` accepts, as a regular expression (for strict argument checking). */
export const CALCULATE_CHARACTERS = /^[0-9+\-*/(). ]*$/;

/**
 * τ²'s `calculate` tool: evaluates an arithmetic expression as Python would (`eval` restricted to
 * digits, `+ - * / ( ) .` and spaces) and returns `str(round(float(result), 2))`, e.g. "8276.23".
 * Failures raise a PyException (a ToolError, or the arithmetic's own) with the Python exception type
 * and text (ZeroDivisionError "division by zero", SyntaxError "invalid syntax (<string>, line 1)", …).
 * `expression` is the raw argument: in lenient mode it may be any JSON value, and fails as Python's
 * iteration over it would.
 */
export function calculate(expression: unknown): string {
  const characters = charactersOf(expression);
  if (!characters.every((c) => ALLOWED.has(c))) throw new ToolError("Invalid characters in expression");
  if (typeof expression !== "string") {
    throw new ToolError("eval() arg 1 must be a string, bytes or code object", "TypeError");
  }
  let tree: Expression;
  try {
    tree = parseExpression(expression);
  } catch (error) {
    if (error instanceof PySyntaxError) throw new ToolError(error.message, "SyntaxError");
    throw error;
  }
  return pyFloatStr(pyRound2(toFloat(evaluate(tree))));
}

/**
 * What `for char in expression` yields when the check runs on a raw argument, with Python's errors:
 * non-iterables raise, list items must be strings (tested as substrings of the allowed characters).
 */
function charactersOf(expression: unknown): string[] {
  if (typeof expression === "string") return [...expression];
  for (const item of pyIterate(expression)) {
    if (typeof item !== "string") {
      throw new ToolError(
        `'in <string>' requires string as left operand, not ${pyTypeName(item)}`,
        "TypeError",
      );
    }
    if (!ALLOWED_TEXT.includes(item)) throw new ToolError("Invalid characters in expression");
  }
  return [];
}

function evaluate(node: Expression): PyValue {
  switch (node.kind) {
    case "number":
      return node.text.includes(".") ? float(Number(node.text)) : int(BigInt(node.text));
    case "ellipsis":
      return { type: "ellipsis" };
    case "tuple":
      return { type: "tuple" };
    case "unary":
      return unary(node.operator, evaluate(node.operand));
    case "binary": {
      const left = evaluate(node.left);
      return binary(node.operator, left, evaluate(node.right));
    }
    case "call": {
      const callee = evaluate(node.callee);
      if (node.argument) {
        const value = evaluate(node.argument.value);
        if (node.argument.unpack === "*" && value.type !== "tuple") {
          throw new ToolError(
            `${pyValueStr(callee)} argument after * must be an iterable, not ${value.type}`,
            "TypeError",
          );
        }
        if (node.argument.unpack === "**") {
          throw new ToolError(
            `${pyValueStr(callee)} argument after ** must be a mapping, not ${value.type}`,
            "TypeError",
          );
        }
      }
      throw new ToolError(`'${callee.type}' object is not callable`, "TypeError");
    }
  }
}
