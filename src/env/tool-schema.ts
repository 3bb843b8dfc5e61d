import { z } from "zod";
import type { LlmToolSpec } from "../core/llm.js";
import type { Tool } from "./tool.js";

const memo = new WeakMap<object, Record<string, unknown>>();

/** JSON Schema of a tool's parameters, as sent to a model (no `$schema`, no safe-integer noise). */
export function toolParametersJsonSchema(tool: Tool<unknown>): Record<string, unknown> {
  let schema = memo.get(tool);
  if (!schema) {
    const raw = z.toJSONSchema(tool.parameters, { io: "input", unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
    delete raw.$schema;
    schema = stripIntegerBounds(raw) as Record<string, unknown>;
    memo.set(tool, schema);
  }
  return schema;
}

function stripIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripIntegerBounds);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (
      (key === "minimum" && v === Number.MIN_SAFE_INTEGER) ||
      (key === "maximum" && v === Number.MAX_SAFE_INTEGER)
    )
      continue;
    out[key] = stripIntegerBounds(v);
  }
  return out;
}

/** One tool in OpenAI's function format, as τ²'s `fixtures/tools` files list them. */
const ToolSpecEntrySchema = z.looseObject({
  type: z.literal("function").optional(),
  function: z.looseObject({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});

/** A tool list in τ²'s `fixtures/tools` / OpenAI format, which `--tool-spec FILE` may supply. */
export const ToolSpecFileSchema = z.looseObject({
  agent_tools: z.array(ToolSpecEntrySchema).nullable().optional(),
  user_tools: z.array(ToolSpecEntrySchema).nullable().optional(),
});
export type ToolSpecFile = z.infer<typeof ToolSpecFileSchema>;

/** What the model is told about tools: passk's descriptions, or those of a `--tool-spec` file. */
export type ToolOverrides = ReadonlyMap<string, { description: string; parameters: Record<string, unknown> }>;

export function overridesFromSpecFile(file: ToolSpecFile): ToolOverrides {
  const map = new Map<string, { description: string; parameters: Record<string, unknown> }>();
  for (const entry of [...(file.agent_tools ?? []), ...(file.user_tools ?? [])]) {
    map.set(entry.function.name, {
      description: entry.function.description,
      parameters: entry.function.parameters,
    });
  }
  return map;
}

/** The tools as a model sees them. With overrides (a `--tool-spec` file) the text is taken verbatim. */
export function toolSpecs(tools: readonly Tool<unknown>[], overrides?: ToolOverrides): LlmToolSpec[] {
  return tools.map((tool) => {
    const override = overrides?.get(tool.name);
    return {
      name: tool.name,
      description: override?.description ?? tool.description,
      parameters: override?.parameters ?? toolParametersJsonSchema(tool),
    };
  });
}

/** OpenAI function-tool format (`{"type":"function","function":{…}}`). */
export function toOpenAiTools(
  specs: readonly LlmToolSpec[],
): Array<{ type: "function"; function: LlmToolSpec }> {
  return specs.map((spec) => ({ type: "function", function: spec }));
}
