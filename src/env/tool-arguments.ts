import type { z } from "zod";
import type { Tool } from "./tool.js";

export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/**
 * Check a model's arguments against the tool's schema (passk's strict mode). The message names the
 * tool, each offending argument and what was expected, so the model can correct itself.
 */
export function validateToolArguments(tool: Tool<unknown>, raw: Record<string, unknown>): ArgumentCheck {
  const problems: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!tool.parameterNames.includes(key)) {
      problems.push(
        `unexpected argument '${key}' (${tool.name} takes ${tool.parameterNames.map((n) => `'${n}'`).join(", ") || "no arguments"})`,
      );
    }
  }
  const parsed = tool.parameters.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(describeIssue(issue, raw));
  }
  if (problems.length > 0 || !parsed.success) {
    return {
      ok: false,
      message: `invalid arguments for tool '${tool.name}': ${problems.join("; ")}. Call it again with arguments that match its parameters.`,
    };
  }
  return { ok: true, args: parsed.data as Record<string, unknown> };
}

function describeIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>): string {
  const path = issue.path.map(String);
  const name =
    path.length > 0
      ? path.map((p, i) => (i === 0 ? p : /^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join("")
      : "(arguments)";
  const top = path[0];
  if (issue.code === "invalid_type" && top !== undefined && path.length === 1 && !(top in raw)) {
    return `missing required argument '${name}' (expected ${issue.expected})`;
  }
  let received = "";
  if (issue.code === "invalid_type" || issue.code === "invalid_value") {
    const value = valueAt(raw, issue.path);
    received = value === undefined ? "" : ` (got ${JSON.stringify(value)})`;
  }
  const message = issue.message.replace(/^Invalid input: /, "");
  return `argument '${name}': ${message}${received}`;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * τ²-bench's own argument handling: Python raises a TypeError for unexpected or missing keyword
 * arguments and checks nothing else. Reproduces its messages (`AirlineTools.f() got an unexpected
 * keyword argument 'x'`, `... missing 1 required positional argument: 'y'`).
 */
export function lenientArgumentError(
  tool: Tool<unknown>,
  raw: Record<string, unknown>,
  className = "Tools",
): string | undefined {
  const qualified = `${className}.${tool.name}()`;
  const unexpected = Object.keys(raw).find((key) => !tool.parameterNames.includes(key));
  if (unexpected !== undefined) return `${qualified} got an unexpected keyword argument '${unexpected}'`;
  const missing = tool.requiredParameters.filter((name) => !(name in raw));
  if (missing.length === 0) return undefined;
  const quoted = missing.map((m) => `'${m}'`);
  const list =
    quoted.length === 1
      ? quoted[0]
      : quoted.length === 2
        ? `${quoted[0]} and ${quoted[1]}`
        : `${quoted.slice(0, -1).join(", ")}, and ${quoted[quoted.length - 1]}`;
  return `${qualified} missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${list}`;
}
