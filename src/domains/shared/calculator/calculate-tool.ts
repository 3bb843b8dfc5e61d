import { z } from "zod";
import { defineTool, type Tool } from "../../../env/tool.js";
import { PyException } from "../../../python/py-exception.js";
import { calculate, CALCULATE_CHARACTERS } from "./calculate.js";

/**
 * How strict mode checks `expression` before the tool runs (lenient mode hands the raw argument to
 * the tool, which then fails as the reference does).
 * - `characters`: only the allowed characters; an expression that cannot be computed (`1/0`) gets the
 *   reference's own tool error.
 * - `evaluable`: non-empty and computable, so `1/0` is an argument error naming `expression` (airline's
 *   bad_calls fixtures file `1/0` under wrong_type, which strict mode must reject as an argument).
 */
export type CalculateArgumentCheck = "characters" | "evaluable";

const EXPRESSION_DESCRIPTION =
  "The expression, such as '2 * (350 - 122)'; digits, + - * /, parentheses, '.' and spaces only.";

/**
 * τ²'s generic `calculate` tool for a domain: `str(round(float(eval(expression)), 2))` with Python's
 * number model and error texts (see calculate.ts). The reference defines it identically in each
 * domain; only passk's strict-mode argument check differs.
 */
export function calculateTool<DB>(check: CalculateArgumentCheck): Tool<DB> {
  const expression =
    check === "characters"
      ? z.string().regex(CALCULATE_CHARACTERS, {
          error: "may only contain digits, spaces, parentheses, '.' and the operators + - * /",
        })
      : z.string().min(1).superRefine(rejectUnevaluable);
  return defineTool({
    name: "calculate",
    description:
      "Evaluate an arithmetic expression and return the result rounded to two decimals. Only numbers, + - * /, parentheses and spaces are allowed, e.g. '(120 + 30) * 2'.",
    kind: "generic",
    parameters: z.object({ expression: expression.describe(EXPRESSION_DESCRIPTION) }),
    run(_db: DB, args) {
      // In lenient mode `args.expression` is the raw argument, which need not be a string.
      return calculate(args.expression as unknown);
    },
  });
}

/** Strict mode reports an expression that cannot be computed as an argument error, before the call. */
function rejectUnevaluable(expression: string, context: z.RefinementCtx): void {
  try {
    calculate(expression);
  } catch (error) {
    const reason =
      error instanceof PyException && error.pyType === "ValueError"
        ? "it may only contain digits, + - * /, parentheses, '.' and spaces"
        : `it cannot be evaluated (${(error as Error).message})`;
    context.addIssue({ code: "custom", message: `invalid expression: ${reason}` });
  }
}
