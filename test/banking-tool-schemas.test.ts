import path from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_DISCOVERABLE_TOOLS } from "../src/domains/banking/agent-discoverable.js";
import { formatForAgent, ownInfo } from "../src/domains/banking/discoverable.js";
import { BankingServices } from "../src/domains/banking/services.js";
import { USER_DISCOVERABLE_TOOLS } from "../src/domains/banking/user-tools.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { referenceDiscoverableTools } from "../src/formats/tau2/upstream/discoverable-tools.js";
import { loadReferenceTexts } from "../src/formats/tau2/upstream/reference-texts.js";
import {
  readFixtureJson,
  canonicalJson,
  referenceTextMatches,
  tau2DataDir,
  tau2UpstreamDir,
  type ReferenceFixtures,
} from "../src/testing/tau2-fixtures.js";

// The tools each retrieval config offers the agent, and the customer per task, as the reference lists
// them: names and order per config, and under the τ² protocol the reference's texts exactly. The
// discoverable tools: their signatures, and what unlocking shows (the reference's docstrings when its
// source files are at hand).

interface FixtureTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
  x_tau2: { tool_type: string; mutates_state: boolean };
}
interface DiscoverableEntry {
  tool_type: string;
  mutates_state: boolean;
  parsed: {
    name: string;
    description: string;
    parameters: Record<string, { type: string; description: string; required: boolean }>;
  };
  formatted_for_agent?: string;
  python_params: string[];
}
interface BankingToolsFixture {
  agent_tools: FixtureTool[];
  user_tools: FixtureTool[];
  agent_tools_by_retrieval_config: Record<string, string[]>;
  agent_tool_schemas: Record<string, FixtureTool>;
  retrieval_config_aliases: Record<string, string>;
  discoverable_agent_tools: Record<string, DiscoverableEntry>;
  discoverable_user_tools: Record<string, DiscoverableEntry>;
}

const FILE = "fixtures/tools/banking_knowledge.json";
const upstream = tau2UpstreamDir();
/** `actual` must be the reference's text `key`, which `expected` derives from its fixture. */
function sameAsReference(
  actual: string,
  key: string,
  expected: (fixture: BankingToolsFixture) => string,
): void {
  const check = referenceTextMatches(actual, `${FILE}#${key}`, (f: ReferenceFixtures) =>
    expected(f.json<BankingToolsFixture>(FILE)),
  );
  expect(check.equal, check.message).toBe(true);
}

describe("banking_knowledge tools", () => {
  const domain = builtinDomains.get("banking_knowledge")!;
  // The reference's lists, names and kinds (its texts are known here by their digests).
  const fixture = readFixtureJson<BankingToolsFixture>(FILE);
  const configs = Object.entries(fixture.agent_tools_by_retrieval_config);

  it("the domain's configs are the reference's, with its aliases", () => {
    expect([...domain.configs!.names].sort()).toEqual(configs.map(([name]) => name).sort());
    expect(domain.configs!.aliases).toEqual(fixture.retrieval_config_aliases);
    expect(new DomainData(domain, tau2DataDir(), { config: "AllTools" }).config).toBe("alltools");
    expect(() => new DomainData(domain, tau2DataDir(), { config: "bm26" })).toThrow(/bm25/);
  });

  it.each(configs)("%s: the agent is offered the reference's tools in its order", (config, names) => {
    const world = new DomainData(domain, tau2DataDir(), { config }).newWorld();
    expect(world.offeredTools("agent").map((t) => t.name)).toEqual(names);
  });

  it.each(configs)("%s: under the τ² protocol, the reference's texts", (config, names) => {
    const texts = loadReferenceTexts(upstream);
    const tools = new DomainData(domain, tau2DataDir(), { config }).newWorld().offeredTools("agent");
    const specs = texts.toolSpecs(domain, "agent", tools);
    sameAsReference(JSON.stringify(specs), `agent_tools_by_retrieval_config.${config}`, (reference) =>
      JSON.stringify(names.map((name) => reference.agent_tool_schemas[name]!.function)),
    );
  });

  it("the customer: every user tool, only the task's, or none", () => {
    const texts = loadReferenceTexts(upstream);
    const data = new DomainData(domain, tau2DataDir());
    const all = data.newWorld().offeredTools("user");
    sameAsReference(JSON.stringify(texts.toolSpecs(domain, "user", all)), "user_tools", (reference) =>
      JSON.stringify(reference.user_tools.map((t) => t.function)),
    );
    expect(
      data
        .newWorld({ task: data.task("task_010") })
        .offeredTools("user")
        .map((t) => t.name),
    ).toEqual(["apply_for_credit_card", "submit_referral"]);
    const none = data.tasks.find((t) => Array.isArray(t.user_tools) && t.user_tools.length === 0)!;
    expect(data.newWorld({ task: none }).offeredTools("user")).toEqual([]);
    // Tools not offered stay callable by name, as the reference's toolkit accepts them.
    const result = data
      .newWorld({ task: none })
      .callTool({ name: "request_human_agent_transfer", arguments: {}, requestor: "user" });
    expect(result.content).toBe("Transfer request #1 submitted.\nThe agent will process your request.");
  });

  describe("discoverable tools", () => {
    const sides = [
      ["agent", AGENT_DISCOVERABLE_TOOLS, fixture.discoverable_agent_tools],
      ["user", USER_DISCOVERABLE_TOOLS, fixture.discoverable_user_tools],
    ] as const;
    const entriesOf = (reference: BankingToolsFixture, side: "agent" | "user") =>
      side === "agent" ? reference.discoverable_agent_tools : reference.discoverable_user_tools;

    it.each(sides)("%s: names, order, kinds and Python signatures", (_side, tools, entries) => {
      expect(tools.map((t) => t.name)).toEqual(Object.keys(entries));
      for (const tool of tools) {
        const entry = entries[tool.name]!;
        expect({ kind: tool.kind, mutates: tool.mutatesState }, tool.name).toEqual({
          kind: entry.tool_type,
          mutates: entry.mutates_state,
        });
        expect(
          tool.params.map((p) => p.name),
          tool.name,
        ).toEqual(entry.python_params);
        // Required and types as the reference's docstrings state them.
        expect(
          tool.params.map((p) => [p.name, p.type, p.optional === undefined]),
          tool.name,
        ).toEqual(
          entry.python_params.map((name) => [
            name,
            entry.parsed.parameters[name]!.type,
            entry.parsed.parameters[name]!.required,
          ]),
        );
      }
    });

    // The services as a loader composes them, with or without the reference's source files.
    const bm25Services = (upstreamDir: string | undefined) =>
      new BankingServices({
        config: "bm25",
        folder: path.join(tau2DataDir(), "banking_knowledge"),
        upstreamDir,
        referenceDiscoverableTools: (file, className) =>
          referenceDiscoverableTools(upstreamDir, file, className),
        textEmbedder: () => {
          throw new Error("bm25 embeds nothing");
        },
        embeddingCache: () => {
          throw new Error("bm25 embeds nothing");
        },
        env: {},
      });

    it.each(sides)("%s: unlocking shows the reference's parsed docstrings", (side, tools, entries) => {
      const services = bm25Services(upstream);
      for (const tool of tools) {
        const info = services.info(tool);
        const key = `discoverable_${side}_tools.${tool.name}`;
        expect(Object.keys(entries[tool.name]!.parsed.parameters), tool.name).toEqual(
          info.parameters.map(([name]) => name),
        );
        sameAsReference(
          canonicalJson({ description: info.description, parameters: Object.fromEntries(info.parameters) }),
          `${key}.parsed`,
          (reference) => {
            const { description, parameters } = entriesOf(reference, side)[tool.name]!.parsed;
            return canonicalJson({ description, parameters });
          },
        );
        // The reference formats only the agent's discoverable tools for the agent.
        if (side === "agent")
          sameAsReference(
            formatForAgent(info),
            `${key}.formatted_for_agent`,
            (reference) => entriesOf(reference, side)[tool.name]!.formatted_for_agent!,
          );
      }
    });

    it("without the reference's source, passk's own descriptions in the same layout", () => {
      const services = bm25Services(undefined);
      const tool = AGENT_DISCOVERABLE_TOOLS.find((t) => t.name === "close_debit_card_4721")!;
      expect(services.info(tool)).toEqual(ownInfo(tool));
      expect(formatForAgent(services.info(tool))).toBe(
        "Tool: close_debit_card_4721\nDescription: Close a debit card permanently.\nParameters:\n" +
          "  - card_id: string (required) - The debit card to close.\n" +
          "  - reason: string (required) - lost, stolen, fraud_suspected, damaged, no_longer_needed or account_closing.",
      );
    });
  });
});
