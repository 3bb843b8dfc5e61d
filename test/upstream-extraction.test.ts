import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { TAU2_TYPES as AIRLINE_TYPES } from "../src/domains/airline/tau2-types.js";
import { builtinDomains } from "../src/domains/registry.js";
import { TAU2_TYPES as MOCK_TYPES } from "../src/domains/mock/tau2-types.js";
import { TAU2_TYPES as TELECOM_TYPES } from "../src/domains/telecom/tau2-types.js";
import {
  extractDoneTool,
  extractPromptTemplates,
  extractToolkit,
  extractToolkitWithDiscoverable,
  type ExtractedTool,
} from "../src/formats/tau2/upstream/index.js";
import { loadReferenceTexts } from "../src/formats/tau2/upstream/reference-texts.js";
import { DATA_MODEL_MODULES } from "../src/formats/tau2/official-manifest.js";
import {
  readFixtureJson,
  referenceTextMatches,
  tau2UpstreamDir,
  type ReferenceFixtures,
} from "../src/testing/tau2-fixtures.js";
import { upstreamWithoutModels, upstreamWithStandInModels } from "./helpers/stand-in-data-models.js";

// The texts passk extracts from the reference's Python source (prompt templates, tool descriptions and
// parameter schemas) must equal what the reference itself sends to models: the fixtures were produced
// by running tau2-bench. Schemas are compared as JSON text, so key order counts. The repository keeps
// the fixtures' facts (names, kinds, schemas without descriptions) and the digests of their texts.

/** `actual` must be the reference's text `key`, which `expected` derives from the fixtures. */
function sameAsReference(actual: string, key: string, expected: (f: ReferenceFixtures) => string): void {
  const check = referenceTextMatches(actual, key, expected);
  expect(check.equal, check.message).toBe(true);
}

const upstreamDir = tau2UpstreamDir();
const upstream = (file: string) => readFileSync(path.join(upstreamDir, file), "utf8");

interface FixtureTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
  x_tau2: { tool_type: string; mutates_state: boolean };
}
interface ToolsFixture {
  agent_tools: FixtureTool[];
  user_tools: FixtureTool[] | null;
}

/**
 * The fixture's tool without `x_tau2` and without any `description` inside `$defs`: from the toolkit
 * files alone passk builds named types (pydantic models, Enum classes) from its own zod schemas, which
 * must not carry the reference's wording; the reference's descriptions of nested model fields live in
 * the optional data-model modules (tested below, with stand-ins).
 */
function expectedTool(tool: FixtureTool): string {
  const strip = (value: unknown, inDefs: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => strip(item, inDefs));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (inDefs && key === "description" && typeof item === "string") continue;
      out[key] = strip(item, inDefs || key === "$defs");
    }
    return out;
  };
  return JSON.stringify({ type: tool.type, function: strip(tool.function, false) });
}

function asFunction(tool: ExtractedTool): string {
  return JSON.stringify({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  });
}

function expectSameTools(
  extracted: ExtractedTool[],
  domain: string,
  side: "agent_tools" | "user_tools",
): void {
  const file = `fixtures/tools/${domain}.json`;
  const expected = readFixtureJson<ToolsFixture>(file)[side]!;
  expect(extracted.map((t) => t.name)).toEqual(expected.map((t) => t.function.name));
  extracted.forEach((tool, i) => {
    const fixture = expected[i]!;
    sameAsReference(asFunction(tool), `${file}#${side}.${tool.name}`, (f) =>
      expectedTool(f.json<ToolsFixture>(file)[side]![i]!),
    );
    expect(tool.toolType, tool.name).toBe(fixture.x_tau2.tool_type);
    expect(tool.mutatesState, tool.name).toBe(fixture.x_tau2.mutates_state);
  });
}

describe("extraction from the upstream source", () => {
  it("prompt templates equal the reference's", () => {
    const templates = extractPromptTemplates(
      upstream("src/tau2/agent/llm_agent.py"),
      upstream("src/tau2/user/user_simulator.py"),
    );
    const file = "fixtures/prompts/prompt_templates.json";
    type Templates = { agent: Record<string, string>; user: Record<string, string> };
    for (const [key, value] of Object.entries(templates.agent))
      sameAsReference(value, `${file}#agent.${key}`, (f) => f.json<Templates>(file).agent[key]!);
    sameAsReference(
      templates.user.SYSTEM_PROMPT,
      `${file}#user.SYSTEM_PROMPT`,
      (f) => f.json<Templates>(file).user.SYSTEM_PROMPT!,
    );
  });

  it("the solo agent's done tool", () => {
    const done = extractDoneTool(upstream("src/tau2/agent/llm_agent.py"));
    const file = "fixtures/prompts/prompt_templates.json";
    sameAsReference(
      done.name,
      `${file}#agent.solo_stop_function_name`,
      (f) => f.json<{ agent: { solo_stop_function_name: string } }>(file).agent.solo_stop_function_name,
    );
    expect(
      JSON.stringify({ name: done.name, description: done.description, parameters: done.parameters }),
    ).toBe(
      JSON.stringify({
        name: "done",
        description: "Call this function when you are done with the task.",
        parameters: { properties: {}, title: "parameters", type: "object" },
      }),
    );
  });

  const toolkits: Array<{
    domain: string;
    side: "agent_tools" | "user_tools";
    file: string;
    className: string;
    types?: ReadonlyMap<string, z.ZodType>;
  }> = [
    { domain: "mock", side: "agent_tools", file: "mock/tools.py", className: "MockTools", types: MOCK_TYPES },
    {
      domain: "mock",
      side: "user_tools",
      file: "mock/user_tools.py",
      className: "MockUserTools",
      types: MOCK_TYPES,
    },
    {
      domain: "airline",
      side: "agent_tools",
      file: "airline/tools.py",
      className: "AirlineTools",
      types: AIRLINE_TYPES,
    },
    { domain: "retail", side: "agent_tools", file: "retail/tools.py", className: "RetailTools" },
    {
      domain: "telecom",
      side: "agent_tools",
      file: "telecom/tools.py",
      className: "TelecomTools",
      types: TELECOM_TYPES,
    },
    {
      domain: "telecom",
      side: "user_tools",
      file: "telecom/user_tools.py",
      className: "TelecomUserTools",
      types: TELECOM_TYPES,
    },
    {
      domain: "banking_knowledge",
      side: "agent_tools",
      file: "banking_knowledge/tools.py",
      className: "KnowledgeTools",
    },
    {
      domain: "banking_knowledge",
      side: "user_tools",
      file: "banking_knowledge/tools.py",
      className: "KnowledgeUserTools",
    },
  ];

  it.each(toolkits)("$domain $side ($className) equal fixtures/tools/$domain.json", (toolkit) => {
    const file = `src/tau2/domains/${toolkit.file}`;
    const extracted = extractToolkit(upstream(file), file, {
      className: toolkit.className,
      ...(toolkit.types ? { types: toolkit.types } : {}),
    });
    expectSameTools(extracted, toolkit.domain, toolkit.side);
  });

  describe("banking_knowledge beyond the base toolkits", () => {
    interface BankingFixture extends ToolsFixture {
      agent_tools_by_retrieval_config: Record<string, string[]>;
      agent_tool_schemas: Record<string, FixtureTool>;
      discoverable_agent_tools: Record<
        string,
        { tool_type: string; mutates_state: boolean; python_params: string[] }
      >;
      discoverable_user_tools: Record<
        string,
        { tool_type: string; mutates_state: boolean; python_params: string[] }
      >;
    }
    const bankingFile = "fixtures/tools/banking_knowledge.json";
    const fixture = () => readFixtureJson<BankingFixture>(bankingFile);
    const toolsFile = "src/tau2/domains/banking_knowledge/tools.py";
    const mixinsFile = "src/tau2/domains/banking_knowledge/retrieval_mixins.py";
    const mixins = [
      "KBSearchMixin",
      "GrepMixin",
      "KBSearchBm25AllToolsMixin",
      "KBSearchDenseAllToolsMixin",
      "ShellMixin",
    ];

    it("every retrieval config's tool list is retrieval-mixin tools, then the base agent tools", () => {
      const source = upstream(mixinsFile);
      const retrieval = new Map(
        mixins.flatMap((className) =>
          extractToolkit(source, mixinsFile, { className }).map((tool) => [tool.name, tool] as const),
        ),
      );
      const expected = fixture();
      for (const tool of retrieval.values()) {
        const schema = expected.agent_tool_schemas[tool.name]!;
        sameAsReference(asFunction(tool), `${bankingFile}#agent_tool_schemas.${tool.name}`, (f) =>
          expectedTool(f.json<BankingFixture>(bankingFile).agent_tool_schemas[tool.name]!),
        );
        expect(tool.toolType).toBe(schema.x_tau2.tool_type);
        expect(tool.mutatesState).toBe(schema.x_tau2.mutates_state);
      }
      const base = expected.agent_tools.map((t) => t.function.name);
      for (const [config, names] of Object.entries(expected.agent_tools_by_retrieval_config)) {
        const extra = names.length - base.length;
        expect(names.slice(extra), config).toEqual(base);
        for (const name of names.slice(0, extra))
          expect(retrieval.has(name), `${config}: ${name}`).toBe(true);
      }
    });

    it("discoverable tools: names, order, types and parameter names", () => {
      const source = upstream(toolsFile);
      const expected = fixture();
      const agent = extractToolkitWithDiscoverable(source, toolsFile, {
        className: "KnowledgeTools",
      }).discoverable;
      const user = extractToolkitWithDiscoverable(source, toolsFile, {
        className: "KnowledgeUserTools",
      }).discoverable;
      for (const [tools, listed] of [
        [agent, expected.discoverable_agent_tools],
        [user, expected.discoverable_user_tools],
      ] as const) {
        expect(tools.map((t) => t.name)).toEqual(Object.keys(listed));
        for (const tool of tools) {
          const entry = listed[tool.name]!;
          expect(tool.toolType, tool.name).toBe(entry.tool_type);
          expect(tool.mutatesState, tool.name).toBe(entry.mutates_state);
          expect(Object.keys(tool.parameters.properties as object), tool.name).toEqual(entry.python_params);
        }
      }
    });
  });
});

describe("nested models from the data-model modules", () => {
  const domains = ["airline", "telecom"] as const;
  /** The reference's tools as passk sends them: name, description, parameters — key order included. */
  const referenceSpecs = (
    f: ReferenceFixtures,
    domain: string,
    side: "agent_tools" | "user_tools",
    strip: boolean,
  ) =>
    JSON.stringify(
      (f.json<ToolsFixture>(`fixtures/tools/${domain}.json`)[side] ?? []).map((tool) => {
        const fn = strip ? (JSON.parse(expectedTool(tool)) as FixtureTool).function : tool.function;
        return { name: fn.name, description: fn.description, parameters: fn.parameters };
      }),
    );
  /** The tools passk sends must be the reference's (with or without the nested models' descriptions). */
  const expectReferenceSpecs = (
    actual: string,
    domain: string,
    side: "agent_tools" | "user_tools",
    strip: boolean,
  ) =>
    sameAsReference(
      actual,
      `fixtures/tools/${domain}.json#${side}.specs${strip ? ".without-nested-descriptions" : ""}`,
      (f) => referenceSpecs(f, domain, side, strip),
    );
  const specsOf = (dir: string, domain: string, side: "agent" | "user") =>
    JSON.stringify(loadReferenceTexts(dir).toolSpecs(builtinDomains.get(domain)!, side));

  it("with verified modules, airline's and telecom's tools equal the reference's completely", () => {
    const dir = upstreamWithStandInModels();
    const texts = loadReferenceTexts(dir);
    expect(texts.dataModels).toEqual(DATA_MODEL_MODULES.map((m) => ({ path: m.path, status: "verified" })));
    for (const domain of domains) {
      expectReferenceSpecs(specsOf(dir, domain, "agent"), domain, "agent_tools", false);
      expect(texts.nestedModelDescriptions(builtinDomains.get(domain)!)).toBe("complete");
    }
    expectReferenceSpecs(specsOf(dir, "telecom", "user"), "telecom", "user_tools", false);
    expect(specsOf(dir, "telecom", "user")).toContain(
      "Represents the configuration for a single Access Point Name",
    );
    expect(texts.nestedModelDescriptions(builtinDomains.get("retail")!)).toBe("complete");
  });

  it("a module with one description changed fails verification: its models go without descriptions", () => {
    const dir = upstreamWithStandInModels({ tamper: true });
    const texts = loadReferenceTexts(dir);
    expect(texts.dataModels.map((m) => m.status)).toEqual(["mismatch", "mismatch"]);
    expect(texts.dataModels[0]!.reason).toMatch(/^its schema entries have digest [0-9a-f]{64}, expected /);
    for (const domain of domains) {
      expectReferenceSpecs(specsOf(dir, domain, "agent"), domain, "agent_tools", true);
      expect(texts.nestedModelDescriptions(builtinDomains.get(domain)!)).toBe("missing");
    }
    expectReferenceSpecs(specsOf(dir, "telecom", "user"), "telecom", "user_tools", true);
  });

  it("without the modules: the same description-less models, and it says so", () => {
    const withoutModels = upstreamWithoutModels();
    const texts = loadReferenceTexts(withoutModels);
    expect(texts.dataModels.map((m) => m.status)).toEqual(["absent", "absent"]);
    expect(texts.nestedModelDescriptions(builtinDomains.get("airline")!)).toBe("missing");
    expect(texts.nestedModelDescriptions(builtinDomains.get("mock")!)).toBe("complete");
    expectReferenceSpecs(specsOf(withoutModels, "airline", "agent"), "airline", "agent_tools", true);
  });
});
