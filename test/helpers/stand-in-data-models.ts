import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DATA_MODEL_MODULES, type DataModelModule } from "../../src/formats/tau2/official-manifest.js";
import { readFixtureJson, tau2Dir } from "../../src/testing/tau2-fixtures.js";

// The reference material may or may not hold the reference's data-model modules, so tests write
// stand-ins where they need them present, tampered with or absent: Python modules generated from the `$defs` entries the reference recorded in
// fixtures/tools/<domain>.json (class per entry, docstring from its description, one `Field(...)` per
// property, Enum classes for enum entries), plus a class the reader cannot interpret and does not need.
// Reading them back must give those entries exactly: the digests in DATA_MODEL_MODULES are of them.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

interface FixtureTool {
  function: { parameters: { $defs?: Record<string, Schema> } };
}
interface ToolsFixture {
  agent_tools: FixtureTool[];
  user_tools: FixtureTool[] | null;
}

const DOMAIN_OF_MODULE: Record<string, string> = {
  "src/tau2/domains/airline/data_model.py": "airline",
  "src/tau2/domains/telecom/user_data_model.py": "telecom",
};

/** Every `$defs` entry of a domain's recorded tool schemas, by name. */
export function fixtureDefs(domain: string): Map<string, Schema> {
  const fixture = readFixtureJson<ToolsFixture>(`fixtures/tools/${domain}.json`);
  const defs = new Map<string, Schema>();
  for (const tool of [...fixture.agent_tools, ...(fixture.user_tools ?? [])])
    for (const [name, entry] of Object.entries(tool.function.parameters.$defs ?? {})) defs.set(name, entry);
  return defs;
}

/** A Python string literal (JSON's escapes are Python's too). */
const py = (text: string) => JSON.stringify(text);
const memberName = (value: string | number) => `V_${String(value).toUpperCase().replace(/\W/g, "_")}`;

function refName(schema: Schema): string | undefined {
  const ref = schema.$ref;
  return typeof ref === "string" ? ref.replace("#/$defs/", "") : undefined;
}

function annotation(schema: Schema, useUnionSyntax: boolean): string {
  const ref = refName(schema);
  if (ref) return ref;
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (anyOf) {
    const rest = anyOf.filter((member) => member.type !== "null");
    const inner = rest.map((member) => annotation(member, useUnionSyntax));
    const union = inner.length === 1 ? inner[0]! : `Union[${inner.join(", ")}]`;
    if (rest.length === anyOf.length) return union;
    return useUnionSyntax ? `${union} | None` : `Optional[${union}]`;
  }
  if (Array.isArray(schema.enum)) return `Literal[${schema.enum.map((v) => JSON.stringify(v)).join(", ")}]`;
  switch (schema.type) {
    case "string":
      return "str";
    case "integer":
      return "int";
    case "number":
      return "float";
    case "boolean":
      return "bool";
    case "array":
      return `List[${annotation(schema.items as Schema, useUnionSyntax)}]`;
    case "object":
      return typeof schema.additionalProperties === "object" && schema.additionalProperties !== null
        ? `Dict[str, ${annotation(schema.additionalProperties as Schema, useUnionSyntax)}]`
        : "dict";
  }
  throw new Error(`stand-in: no annotation for ${JSON.stringify(schema)}`);
}

function literal(value: Json, schema: Schema, defs: Map<string, Schema>): string {
  const ref = refName(schema);
  if (ref && Array.isArray(defs.get(ref)?.enum) && (typeof value === "string" || typeof value === "number"))
    return `${ref}.${memberName(value)}`;
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return py(value);
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, {}, defs)).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${py(k)}: ${literal(v, {}, defs)}`)
    .join(", ")}}`;
}

function docstring(description: Json | undefined): string[] {
  return typeof description === "string" ? [`    """${description.replace(/"""/g, '\\"\\"\\"')}"""`, ""] : [];
}

function classSource(name: string, entry: Schema, defs: Map<string, Schema>, index: number): string {
  if (Array.isArray(entry.enum)) {
    const lines = [`class ${name}(str, Enum):`, ...docstring(entry.description)];
    for (const value of entry.enum as Array<string | number>)
      lines.push(`    ${memberName(value)} = ${JSON.stringify(value)}`);
    return lines.join("\n");
  }
  const lines = [`class ${name}(BaseModel):`, ...docstring(entry.description)];
  if (entry.additionalProperties === false) lines.push('    model_config = ConfigDict(extra="forbid")', "");
  const required = new Set((entry.required as string[] | undefined) ?? []);
  Object.entries(entry.properties as Record<string, Schema>).forEach(([field, schema], position) => {
    // Alternate between the two spellings of optional types.
    const type = annotation(schema, (index + position) % 2 === 1);
    const hasDefault = !required.has(field);
    const defaultText = hasDefault ? literal(schema.default ?? null, schema, defs) : undefined;
    const description = typeof schema.description === "string" ? schema.description : undefined;
    if (description === undefined) {
      lines.push(
        defaultText === undefined ? `    ${field}: ${type}` : `    ${field}: ${type} = ${defaultText}`,
      );
    } else if (defaultText === undefined) {
      lines.push(`    ${field}: ${type} = Field(description=${py(description)})`);
    } else {
      lines.push(
        `    ${field}: ${type} = Field(`,
        `        ${defaultText},`,
        `        description=${py(description)},`,
        "    )",
      );
    }
  });
  lines.push("", "    def helper(self) -> bool:", '        """Not a field."""', "        return True");
  return lines.join("\n");
}

/** The stand-in source of one data-model module; `tamper` changes one description. */
export function standInModuleSource(module: DataModelModule, options: { tamper?: boolean } = {}): string {
  const domain = DOMAIN_OF_MODULE[module.path];
  if (!domain) throw new Error(`stand-in: no fixture domain for ${module.path}`);
  const defs = fixtureDefs(domain);
  const classes = [...module.defs]
    .map((name) => [name, structuredClone(defs.get(name)!)] as const)
    .sort(([, a], [, b]) => Number(Array.isArray(b.enum)) - Number(Array.isArray(a.enum)));
  if (options.tamper) {
    const model = classes.find(([, entry]) => entry.properties)![1];
    const first = Object.values(model.properties as Record<string, Schema>).find((p) => p.description)!;
    first.description = `${String(first.description)} (edited)`;
  }
  return [
    '"""Stand-in data models, generated by the tests from recorded schemas."""',
    "from enum import Enum",
    "from typing import Dict, List, Literal, Optional, Union",
    "",
    "from pydantic import BaseModel, ConfigDict, Field",
    "",
    "",
    ...classes.map(([name, entry], i) => `${classSource(name, entry, defs, i)}\n\n`),
    "class Unrelated(SomeExternalBase):",
    "    rows: dict = Field(default_factory=lambda: {})",
    "",
    "",
    'if __name__ == "__main__":',
    "    print(Unrelated())",
    "",
  ].join("\n");
}

/**
 * A temporary copy of the reference material's upstream files (copied, never linked: tests write into
 * it, and a write through a link would change the reference material itself), without `omit`.
 */
export function upstreamWithout(omit: readonly string[] = []): string {
  const dir = mkdtempSync(path.join(tmpdir(), "passk-upstream-"));
  cpSync(path.join(tau2Dir(), "upstream"), dir, { recursive: true, dereference: true });
  for (const file of omit) rmSync(path.join(dir, file), { force: true });
  return dir;
}

/** A temporary upstream folder as the reference material has it, but without the data-model modules. */
export function upstreamWithoutModels(): string {
  return upstreamWithout(DATA_MODEL_MODULES.map((module) => module.path));
}

/** Write the stand-in modules into `dir` (repository layout). */
export function writeStandInModules(dir: string, options: { tamper?: boolean } = {}): void {
  for (const module of DATA_MODEL_MODULES) {
    const target = path.join(dir, module.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, standInModuleSource(module, options));
  }
}

/**
 * A temporary upstream folder: a copy of the reference material's upstream files with the stand-in
 * data-model modules in place of the reference's own.
 */
export function upstreamWithStandInModels(options: { tamper?: boolean } = {}): string {
  const dir = upstreamWithoutModels();
  writeStandInModules(dir, options);
  return dir;
}
