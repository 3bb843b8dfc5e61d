import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir, tau2Dir } from "../testing/tau2-fixtures.js";
import { agentSystemPrompt, DEFAULT_AGENT_TEMPLATES, readAgentPromptTemplates } from "./agent-prompt.js";

const templatesFile = path.join(tau2Dir(), "fixtures/prompts/prompt_templates.json");
const domains = [...builtinDomains.keys()].filter((d) =>
  existsSync(path.join(tau2Dir(), `fixtures/prompts/agent_system_prompt_${d}.txt`)),
);

describe("agent system prompt", () => {
  it.each(domains)("with the reference templates equals τ²'s prompt for %s byte for byte", (name) => {
    const data = new DomainData(builtinDomains.get(name)!, tau2DataDir());
    const expected = readFileSync(
      path.join(tau2Dir(), `fixtures/prompts/agent_system_prompt_${name}.txt`),
      "utf8",
    );
    expect(
      agentSystemPrompt({ policy: data.policy, templates: readAgentPromptTemplates(templatesFile) }),
    ).toBe(expected);
  });

  it("uses passk's own wording by default, with the same layout", () => {
    const prompt = agentSystemPrompt({ policy: "POLICY" });
    expect(prompt).toBe(
      `<instructions>\n${DEFAULT_AGENT_TEMPLATES.AGENT_INSTRUCTION}\n</instructions>\n<policy>\nPOLICY\n</policy>`,
    );
    expect(prompt).not.toContain("You are a customer service agent that helps the user according to");
  });

  it("puts the ticket and the stop tool in solo mode", () => {
    const prompt = agentSystemPrompt({ policy: "P", solo: true, ticket: "My phone has no data." });
    expect(prompt).toContain("<ticket>\nMy phone has no data.\n</ticket>");
    expect(prompt).toContain("`done`");
  });
});
