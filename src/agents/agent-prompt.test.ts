import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { loadReferenceTexts } from "../formats/tau2/upstream/reference-texts.js";
import { referenceTextMatches, tau2DataDir, tau2UpstreamDir } from "../testing/tau2-fixtures.js";
import { agentSystemPrompt, DEFAULT_AGENT_TEMPLATES } from "./agent-prompt.js";

// Every built-in domain the reference recorded an agent prompt for.
const domains = ["mock", "airline", "retail", "telecom", "telecom-workflow"];

describe("agent system prompt", () => {
  it("covers every built-in domain but banking_knowledge (tested per retrieval config)", () => {
    expect([...builtinDomains.keys()].filter((d) => !domains.includes(d))).toEqual(["banking_knowledge"]);
  });

  it.each(domains)("with the reference templates equals τ²'s prompt for %s byte for byte", (name) => {
    const data = new DomainData(builtinDomains.get(name)!, tau2DataDir());
    const templates = loadReferenceTexts(tau2UpstreamDir()).prompts.agent;
    const file = `fixtures/prompts/agent_system_prompt_${name}.txt`;
    const check = referenceTextMatches(agentSystemPrompt({ policy: data.policy, templates }), file, (f) =>
      f.text(file),
    );
    expect(check.equal, check.message).toBe(true);
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
