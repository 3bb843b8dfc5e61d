import type { z } from "zod";
import { moduleTypeAliases } from "./pydantic-models.js";
import { parametersJsonSchema, type JsonObject, type SchemaParameter } from "./pydantic-schema.js";
import { docstringParamMap, parseDocstring, type ParsedDocstring } from "../../../python/py-docstring.js";
import { PythonSourceError } from "../../../python/py-source/errors.js";
import { parsePythonExpression, type PyExpr } from "../../../python/py-source/expression.js";
import {
  readPythonModule,
  type PyClass,
  type PyFunction,
  type PyModule,
} from "../../../python/py-source/module.js";

// A reference toolkit's tools as the model sees them, read from the toolkit's Python source: every
// method decorated `@is_tool(ToolType.X)` becomes a tool named after the method, described by its
// docstring (τ² `Tool._get_description`) and with pydantic's JSON schema of its signature.

export type ToolType = "read" | "write" | "think" | "generic";

export interface ExtractedTool {
  name: string;
  description: string;
  /** pydantic's `model_json_schema()` of the parameters, key order included. */
  parameters: JsonObject;
  toolType: ToolType;
  /** Whether evaluation replays the tool: `mutates_state=` when given, else whether it is a write tool. */
  mutatesState: boolean;
  /** The method's raw docstring (`__doc__`), if any. */
  docstring: string | undefined;
}

export interface ExtractToolkitOptions {
  className: string;
  /** The domain's named types (pydantic models, Enum classes, Literal aliases) as zod schemas. */
  types?: ReadonlyMap<string, z.ZodType>;
}

export interface ExtractedToolkit {
  /** `@is_tool` methods, in source order. */
  tools: ExtractedTool[];
  /** `@is_discoverable_tool` methods, in source order (hidden from the tool list upstream). */
  discoverable: ExtractedTool[];
}

interface ToolDecorator {
  discoverable: boolean;
  toolType: ToolType;
  mutatesState: boolean;
}

const TOOL_TYPES = new Set<string>(["read", "write", "think", "generic"]);

/**
 * The text a tool's description shows (τ² `Tool._get_description`): the short description, followed by
 * a blank line and the long description when there is one; the tool's name when there is no docstring.
 */
export function toolDescription(doc: ParsedDocstring, toolName: string): string {
  if (!doc.shortDescription) return toolName;
  if (!doc.longDescription) return doc.shortDescription;
  return doc.shortDescription + "\n\n" + doc.longDescription;
}

function calleeName(expr: PyExpr): string | undefined {
  if (expr.kind === "name") return expr.id;
  if (expr.kind === "attribute") return expr.attr;
  return undefined;
}

/** `is_tool(ToolType.READ)`, `is_tool(ToolType.GENERIC, mutates_state=True)`, `is_discoverable_tool(…)`. */
function toolDecorator(text: string, file: string, method: string): ToolDecorator | undefined {
  let expr: PyExpr;
  try {
    expr = parsePythonExpression(text, file);
  } catch {
    return undefined;
  }
  if (expr.kind !== "call") return undefined;
  const callee = calleeName(expr.func);
  if (callee !== "is_tool" && callee !== "is_discoverable_tool") return undefined;
  const typeArg = expr.args[0] ?? expr.keywords.find(([key]) => key === "tool_type")?.[1];
  const typeName = typeArg?.kind === "attribute" ? typeArg.attr.toLowerCase() : undefined;
  if (typeName === undefined || !TOOL_TYPES.has(typeName))
    throw new PythonSourceError(`${file}: ${method}: cannot read the tool type of @${text}`, file, method);
  const toolType = typeName as ToolType;
  const mutates = expr.keywords.find(([key]) => key === "mutates_state")?.[1];
  let mutatesState = toolType === "write";
  if (mutates !== undefined) {
    if (mutates.kind !== "constant" || typeof mutates.value !== "boolean")
      throw new PythonSourceError(`${file}: ${method}: mutates_state must be True or False`, file, method);
    mutatesState = mutates.value;
  }
  return { discoverable: callee === "is_discoverable_tool", toolType, mutatesState };
}

function buildTool(
  fn: PyFunction,
  file: string,
  decorator: Omit<ToolDecorator, "discoverable">,
  module: PyModule,
  types: ReadonlyMap<string, z.ZodType> | undefined,
): ExtractedTool {
  const doc = parseDocstring(fn.docstring);
  const documented = docstringParamMap(doc);
  const parameters: SchemaParameter[] = fn.parameters.map((parameter) => {
    const docParam = documented.get(parameter.name);
    return {
      name: parameter.name,
      // An unannotated parameter takes the docstring's type, as τ²'s Tool does.
      annotation: parameter.annotation ?? docParam?.typeName ?? undefined,
      default: parameter.default,
      description: docParam?.description,
    };
  });
  let schema: JsonObject;
  try {
    schema = parametersJsonSchema(parameters, {
      types,
      aliases: moduleTypeAliases(module),
      context: `${file}: ${fn.name}`,
    });
  } catch (error) {
    if (error instanceof PythonSourceError) throw error;
    throw new PythonSourceError((error as Error).message, file, fn.name);
  }
  return {
    name: fn.name,
    description: toolDescription(doc, fn.name),
    parameters: schema,
    toolType: decorator.toolType,
    mutatesState: decorator.mutatesState,
    docstring: fn.docstring,
  };
}

function findClass(module: PyModule, className: string): PyClass {
  const found = module.classes.find((c) => c.name === className);
  if (!found)
    throw new PythonSourceError(`${module.file}: class ${className} not found`, module.file, className);
  return found;
}

/** The tools and the discoverable tools of one toolkit class. */
export function extractToolkitWithDiscoverable(
  source: string,
  file: string,
  options: ExtractToolkitOptions,
): ExtractedToolkit {
  const module = readPythonModule(source, file);
  const toolkit = findClass(module, options.className);
  const result: ExtractedToolkit = { tools: [], discoverable: [] };
  for (const method of toolkit.methods) {
    const decorators = method.decorators
      .map((text) => toolDecorator(text, file, method.name))
      .filter((d): d is ToolDecorator => d !== undefined);
    const decorator = decorators[0];
    if (!decorator) continue;
    const tool = buildTool(method, file, decorator, module, options.types);
    (decorator.discoverable ? result.discoverable : result.tools).push(tool);
  }
  return result;
}

/** The `@is_tool` methods of one toolkit class, in source order. */
export function extractToolkit(
  source: string,
  file: string,
  options: ExtractToolkitOptions,
): ExtractedTool[] {
  return extractToolkitWithDiscoverable(source, file, options).tools;
}

/**
 * The solo agent's stop tool: the function `LLMSoloAgent.add_stop_tool` defines (named by the class's
 * `STOP_FUNCTION_NAME`) and wraps with `as_tool`. Its type fields are nominal: it is no toolkit method.
 */
export function extractDoneTool(llmAgentSource: string, file = "src/tau2/agent/llm_agent.py"): ExtractedTool {
  const module = readPythonModule(llmAgentSource, file);
  const agent = findClass(module, "LLMSoloAgent");
  const stopName = agent.constants.get("STOP_FUNCTION_NAME");
  if (stopName?.kind !== "string")
    throw new PythonSourceError(
      `${file}: LLMSoloAgent.STOP_FUNCTION_NAME not found`,
      file,
      "LLMSoloAgent.STOP_FUNCTION_NAME",
    );
  const adder = agent.methods.find((m) => m.name === "add_stop_tool");
  const done = adder?.nested.find((fn) => fn.name === stopName.value);
  if (!done)
    throw new PythonSourceError(
      `${file}: the stop tool ${stopName.value}() defined in LLMSoloAgent.add_stop_tool not found`,
      file,
      "LLMSoloAgent.add_stop_tool",
    );
  return buildTool(done, file, { toolType: "generic", mutatesState: false }, module, undefined);
}
