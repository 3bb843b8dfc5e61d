import { existsSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentSystemPrompt } from "../src/agents/agent-prompt.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { loadReferenceTexts } from "../src/formats/tau2/upstream/reference-texts.js";
import { readFixtureJson, tau2DataDir, tau2Dir } from "../src/testing/tau2-fixtures.js";

// The agent's policy per retrieval config (golden_retrieval: per task) and the system prompt the τ²
// protocol builds from it equal the reference's.

const prompts = path.join(tau2Dir(), "fixtures", "prompts");
const hasFixtures = existsSync(path.join(prompts, "banking_knowledge_prompt_index.json"));
const upstream = path.join(tau2Dir(), "upstream");

interface PromptIndex {
  golden_retrieval_by_task: Record<string, { policy_sha256: string; agent_system_prompt_sha256: string }>;
}

describe.runIf(hasFixtures)("banking_knowledge policies", () => {
  const domain = builtinDomains.get("banking_knowledge")!;
  const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

  it.each(domain.configs!.names.map((name) => [name] as const))("%s", (config) => {
    const data = new DomainData(domain, tau2DataDir(), { config });
    const policy = config === "golden_retrieval" ? data.policyFor(data.task("task_001")) : data.policy;
    expect(policy).toBe(readFileSync(path.join(prompts, `policy_banking_knowledge_${config}.md`), "utf8"));
    const promptFile = path.join(prompts, `agent_system_prompt_banking_knowledge_${config}.txt`);
    if (existsSync(path.join(upstream, "src/tau2/agent/llm_agent.py")) && existsSync(promptFile)) {
      const templates = loadReferenceTexts(upstream).prompts.agent;
      expect(agentSystemPrompt({ policy, templates })).toBe(readFileSync(promptFile, "utf8"));
    }
  });

  it("golden_retrieval inlines each task's required documents", () => {
    const index = readFixtureJson<PromptIndex>("fixtures/prompts/banking_knowledge_prompt_index.json");
    const data = new DomainData(domain, tau2DataDir(), { config: "golden_retrieval" });
    const byTask = Object.fromEntries(data.tasks.map((t) => [t.id, sha256(data.policyFor(t))]));
    expect(byTask).toEqual(
      Object.fromEntries(
        Object.entries(index.golden_retrieval_by_task).map(([id, h]) => [id, h.policy_sha256]),
      ),
    );
  });
});
