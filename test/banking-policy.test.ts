import { describe, expect, it } from "vitest";
import { agentSystemPrompt } from "../src/agents/agent-prompt.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { loadReferenceTexts } from "../src/formats/tau2/upstream/reference-texts.js";
import { readFixtureJson, sha256, tau2DataDir, tau2UpstreamDir } from "../src/testing/tau2-fixtures.js";

// The agent's policy per retrieval config (golden_retrieval: per task) and the system prompt the τ²
// protocol builds from it equal the reference's (the reference's index records their SHA-256s).

interface Digests {
  policy_sha256: string;
  agent_system_prompt_sha256: string;
}
interface PromptIndex {
  by_retrieval_config: Record<string, Digests>;
  golden_retrieval_by_task: Record<string, Digests>;
}
const index = readFixtureJson<PromptIndex>("fixtures/prompts/banking_knowledge_prompt_index.json");

describe("banking_knowledge policies", () => {
  const domain = builtinDomains.get("banking_knowledge")!;

  it("the reference's index covers every retrieval config passk has", () => {
    expect(domain.configs!.names.filter((name) => !(name in index.by_retrieval_config))).toEqual([]);
  });

  it.each(domain.configs!.names.map((name) => [name] as const))("%s", (config) => {
    const data = new DomainData(domain, tau2DataDir(), { config });
    const policy = config === "golden_retrieval" ? data.policyFor(data.task("task_001")) : data.policy;
    const want = index.by_retrieval_config[config]!;
    expect(sha256(policy)).toBe(want.policy_sha256);
    const templates = loadReferenceTexts(tau2UpstreamDir()).prompts.agent;
    expect(sha256(agentSystemPrompt({ policy, templates }))).toBe(want.agent_system_prompt_sha256);
  });

  it("golden_retrieval inlines each task's required documents", () => {
    const data = new DomainData(domain, tau2DataDir(), { config: "golden_retrieval" });
    const byTask = Object.fromEntries(data.tasks.map((t) => [t.id, sha256(data.policyFor(t))]));
    expect(byTask).toEqual(
      Object.fromEntries(
        Object.entries(index.golden_retrieval_by_task).map(([id, h]) => [id, h.policy_sha256]),
      ),
    );
  });
});
