import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinDomains } from "../src/domains/registry.js";
import type { Tool } from "../src/env/tool.js";
import { hasFact, readFixtureJson } from "../src/testing/tau2-fixtures.js";

// The tools each domain offers must look, to a model, like the reference's: same order, names,
// parameter names, JSON types, enums and required lists (descriptions are passk's own words), and the
// same replay metadata. Our side is the zod parameters through `z.toJSONSchema`; the reference's is
// pydantic's JSON Schema from fixtures/tools/<domain>.json.

interface FixtureTool {
  function: { name: string; parameters: JsonSchema };
  x_tau2: { tool_type: string; mutates_state: boolean };
}
interface ToolsFixture {
  agent_tools: FixtureTool[];
  user_tools: FixtureTool[] | null;
}
type JsonSchema = { [key: string]: unknown };

/** What a parameter schema means to a model, with the two generators' spelling differences removed. */
interface Shape {
  type?: unknown;
  enum?: unknown[];
  properties?: Array<[string, Shape]>;
  required?: string[];
  items?: Shape;
}

/**
 * Resolve `$ref`s, reduce `anyOf` (drop the `null` branch of an optional; of `Model | dict`, keep the
 * model, the more specific branch) and keep only what the model is told about structure and types.
 */
function normalise(schema: JsonSchema, root: JsonSchema): Shape {
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace(/^#\/\$defs\//, "");
    const defs = root.$defs as Record<string, JsonSchema> | undefined;
    const target = defs?.[name];
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
    return normalise(target, root);
  }
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) {
    const meaningful = variants.filter((v) => v.type !== "null");
    const chosen =
      meaningful.find((v) => v.$ref !== undefined || v.properties !== undefined) ?? meaningful[0];
    if (!chosen) throw new Error(`anyOf without a non-null branch: ${JSON.stringify(schema)}`);
    return normalise(chosen, root);
  }
  // zod writes an optional scalar as `type: ["string", "null"]`, pydantic as plain `type: "string"`.
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  const shape: Shape = { type: types.length === 1 ? types[0] : types };
  if (Array.isArray(schema.enum)) shape.enum = [...(schema.enum as unknown[])].map(String).sort();
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties && Object.keys(properties).length > 0) {
    shape.properties = Object.entries(properties).map(([name, value]) => [name, normalise(value, root)]);
  }
  const required = schema.required as string[] | undefined;
  if (required && required.length > 0) shape.required = [...required].sort();
  if (schema.items) shape.items = normalise(schema.items as JsonSchema, root);
  return shape;
}

function ourShape(tool: Tool<unknown>): Shape {
  const schema = z.toJSONSchema(tool.parameters, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return normalise(schema, schema);
}

const domains = [...builtinDomains.keys()].filter((d) => hasFact(`fixtures/tools/${d}.json`));

describe.each(domains)("tools of %s match the reference's tool list", (name) => {
  const domain = builtinDomains.get(name)!;
  const fixture = readFixtureJson<ToolsFixture>(`fixtures/tools/${name}.json`);
  const sides = [
    ["agent", domain.agent.tools, fixture.agent_tools],
    ["user", domain.user?.tools ?? null, fixture.user_tools],
  ] as const;

  it.each(sides)("%s tools: same names in the same order", (_side, ours, theirs) => {
    expect(ours?.map((t) => t.name) ?? null).toEqual(theirs?.map((t) => t.function.name) ?? null);
  });

  const pairs = sides.flatMap(([side, ours, theirs]) =>
    (theirs ?? []).map((reference) => {
      const tool = ours?.find((t) => t.name === reference.function.name);
      return [`${side} ${reference.function.name}`, tool, reference] as const;
    }),
  );

  it.each(pairs)("%s: parameters and kind", (_label, tool, reference) => {
    expect(tool).toBeDefined();
    const parameters = reference.function.parameters;
    expect(ourShape(tool!)).toEqual(normalise(parameters, parameters));
    expect({ kind: tool!.kind, mutatesState: tool!.mutatesState }).toEqual({
      kind: reference.x_tau2.tool_type,
      mutatesState: reference.x_tau2.mutates_state,
    });
  });
});

describe("the schema normalisation can tell tools apart", () => {
  const root = {
    $defs: { Item: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    type: "object",
    properties: {
      items: { type: "array", items: { anyOf: [{ $ref: "#/$defs/Item" }, { type: "object" }] } },
      note: { anyOf: [{ type: "string" }, { type: "null" }] },
      tag: { type: ["string", "null"] },
      count: { type: "integer" },
    },
    required: ["items", "count"],
  };

  it("resolves refs, drops null branches and keeps the model branch", () => {
    expect(normalise(root, root)).toEqual({
      type: "object",
      properties: [
        [
          "items",
          {
            type: "array",
            items: { type: "object", properties: [["id", { type: "string" }]], required: ["id"] },
          },
        ],
        ["note", { type: "string" }],
        ["tag", { type: "string" }],
        ["count", { type: "integer" }],
      ],
      required: ["count", "items"],
    });
  });

  it("sees a wrong type, a wrong name and a wrong required list", () => {
    const base = normalise(root, root);
    const variants: JsonSchema[] = [
      { ...root, properties: { ...root.properties, count: { type: "number" } } },
      { ...root, properties: { ...root.properties, counts: { type: "integer" } } },
      { ...root, required: ["items"] },
    ];
    for (const variant of variants) expect(normalise(variant, variant)).not.toEqual(base);
  });
});
