import { z } from "zod";
import { PyException } from "../../python/py-exception.js";
import { pyStrip } from "../../python/py-str.js";
import { defineTool, type Tool, type ToolContext } from "../../env/tool.js";
import { ToolError } from "../../env/world.js";
import type { BankingDb } from "./db.js";
import { argValue, dictEntries, str } from "../../python/py-dynamic.js";

// Discoverable tools: hidden from the tool lists, learnt from the knowledge base. The agent unlocks one
// (`unlock_discoverable_agent_tool`, which shows its description) and calls it through
// `call_discoverable_agent_tool` with JSON arguments; the agent gives a user tool to the customer
// (`give_discoverable_user_tool`), who calls it through `call_discoverable_user_tool`. Either side may
// also call one directly by name, as τ²'s `use_tool` allows.

export type DiscoverableKind = "read" | "write" | "generic";

export interface DiscoverableParam {
  readonly name: string;
  /** The type its description names (`string`, `number`, `integer`, `boolean`). */
  readonly type: "string" | "number" | "integer" | "boolean";
  /** passk's description of the parameter. */
  readonly description: string;
  /** Optional parameters: the Python default. */
  readonly optional?: { readonly default: unknown };
}

/** A discoverable tool: its signature, passk's description of it, and its behaviour. */
export interface DiscoverableTool {
  readonly name: string;
  readonly side: "agent" | "user";
  readonly kind: DiscoverableKind;
  /** Whether replay re-executes it (and, on the agent's side, whether calling it is always logged). */
  readonly mutatesState: boolean;
  readonly description: string;
  readonly params: readonly DiscoverableParam[];
  /**
   * Runs with the arguments bound as Python binds keywords (defaults filled in). Python exceptions
   * (`PyException`) are thrown as the reference raises them; changes made before stay, as in Python.
   */
  run(db: BankingDb, args: Readonly<Record<string, unknown>>, context: ToolContext): string;
}

export function discoverableTool(
  spec: Omit<DiscoverableTool, "mutatesState"> & { mutatesState?: boolean },
): DiscoverableTool {
  return Object.freeze({ ...spec, mutatesState: spec.mutatesState ?? spec.kind === "write" });
}

/** What unlocking shows of a tool: τ²'s parse of its docstring, or passk's own description. */
export interface DiscoverableInfo {
  readonly name: string;
  readonly description: string;
  readonly parameters: ReadonlyArray<
    readonly [string, { readonly type: string; readonly description: string; readonly required: boolean }]
  >;
}

/** passk's own description of a discoverable tool (used when the reference's source is not at hand). */
export function ownInfo(tool: DiscoverableTool): DiscoverableInfo {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.params.map((p) => [
      p.name,
      { type: p.type, description: p.description, required: p.optional === undefined },
    ]),
  };
}

/**
 * The reference's reading of a discoverable tool's docstring (`doc`, as `inspect.cleandoc` gives it):
 * the text before `Args:` is the description; each `name (type[, optional]): description` line of the
 * Args section is a parameter (type `string` when none is given).
 */
export function parseDiscoverableDocstring(name: string, doc: string): DiscoverableInfo {
  const parts = splitOnce(doc, /\n\s*Args:\s*\n/);
  const description = pyStrip(parts[0]);
  const parameters = new Map<string, { type: string; description: string; required: boolean }>();
  if (parts.length > 1) {
    const args = splitOnce(parts[1]!, /\n\s*Returns:\s*\n/)[0];
    const line = /^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$/gm;
    for (const match of args.matchAll(line)) {
      const typeInfo = match[2] ?? "string";
      const type = pyStrip(typeInfo.replace(/,?\s*optional/gi, "")) || "string";
      parameters.set(match[1]!, {
        type,
        description: pyStrip(match[3]!),
        required: !typeInfo.toLowerCase().includes("optional"),
      });
    }
  }
  return { name, description, parameters: [...parameters] };
}

function splitOnce(text: string, separator: RegExp): [string] | [string, string] {
  const match = separator.exec(text);
  if (!match) return [text];
  return [text.slice(0, match.index), text.slice(match.index + match[0].length)];
}

/** The tool as the agent reads it after unlocking: name, description and one line per parameter. */
export function formatForAgent(info: DiscoverableInfo): string {
  const lines = info.parameters.map(
    ([name, p]) => `  - ${name}: ${p.type}${p.required ? " (required)" : " (optional)"} - ${p.description}`,
  );
  return `Tool: ${info.name}\nDescription: ${info.description}\nParameters:\n${lines.length > 0 ? lines.join("\n") : "  (no parameters)"}`;
}

/**
 * Python keyword binding of `args` (a parsed JSON value) to the tool's signature: the arguments with
 * defaults filled in, or the TypeError Python raises (`C.f() got an unexpected keyword argument 'x'`,
 * `… missing 2 required positional arguments: 'a' and 'b'`, `… argument after ** must be a mapping`).
 */
export function bindArguments(
  tool: DiscoverableTool,
  args: unknown,
  className: string,
): Record<string, unknown> {
  const entries = dictEntries(args);
  if (!entries)
    throw new PyException(
      `tau2.domains.banking_knowledge.tools.${className}.${tool.name}() argument after ** must be a mapping, not ${typeNameOf(args)}`,
      "TypeError",
    );
  const qualified = `${className}.${tool.name}()`;
  const names = tool.params.map((p) => p.name);
  const bound: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    if (!names.includes(key))
      throw new PyException(`${qualified} got an unexpected keyword argument '${key}'`, "TypeError");
    bound[key] = value;
  }
  const missing = tool.params
    .filter((p) => p.optional === undefined && !(p.name in bound))
    .map((p) => `'${p.name}'`);
  if (missing.length > 0) {
    const list =
      missing.length === 1
        ? missing[0]
        : missing.length === 2
          ? `${missing[0]} and ${missing[1]}`
          : `${missing.slice(0, -1).join(", ")}, and ${missing[missing.length - 1]}`;
    throw new PyException(
      `${qualified} missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${list}`,
      "TypeError",
    );
  }
  for (const p of tool.params) if (!(p.name in bound) && p.optional) bound[p.name] = p.optional.default;
  return bound;
}

function typeNameOf(value: unknown): string {
  if (value === null) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "list";
  return "float";
}

/**
 * Run Python-like tool code: a Python exception it raises becomes the tool's error while the changes it
 * made before stay, as in the reference (Python does not roll a database back).
 */
export function asPython<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof PyException) throw new ToolError(error.message, error.pyType, { keepChanges: true });
    throw error;
  }
}

const PARAMETER_TYPES = {
  string: () => z.string(),
  number: () => z.number(),
  integer: () => z.int(),
  boolean: () => z.boolean(),
} as const;

/**
 * The tool a direct call by name runs (τ²'s `use_tool` accepts discoverable methods): no unlocking, no
 * logging. Its schema only checks arguments under passk's strict validation.
 */
export function directTool(tool: DiscoverableTool, className: string): Tool<BankingDb> {
  const shape: Record<string, z.ZodType> = {};
  for (const p of tool.params) {
    const base = PARAMETER_TYPES[p.type]().describe(p.description);
    shape[p.name] = p.optional ? base.nullable().optional() : base;
  }
  return defineTool({
    name: tool.name,
    description: tool.description,
    kind: tool.kind,
    mutatesState: tool.mutatesState,
    className,
    parameters: z.object(shape),
    run(db: BankingDb, args, context) {
      const values: Record<string, unknown> = {};
      for (const key of Object.keys(args)) if (args[key] !== undefined) values[key] = argValue(args, key);
      return asPython(() => tool.run(db, bindArguments(tool, values, className), context));
    },
  });
}

/** `str()` of a tool name argument as an f-string prints it. */
export function nameText(value: unknown): string {
  return str(value);
}
