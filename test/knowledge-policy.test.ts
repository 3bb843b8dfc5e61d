import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, UnknownNameError } from "../src/core/errors.js";
import {
  RETRIEVAL_CONFIGS,
  bankingPolicy,
  createKnowledgeBase,
  loadKnowledgeBase,
  type PolicyTask,
} from "../src/knowledge/index.js";
import { readFixtureJson, sha256, tau2DataDir } from "../src/testing/tau2-fixtures.js";

const domainDir = path.join(tau2DataDir(), "banking_knowledge");
const promptsDir = path.join(domainDir, "prompts");
const kb = loadKnowledgeBase(path.join(domainDir, "documents"));
const tasksDir = path.join(domainDir, "tasks");
const tasks = readdirSync(tasksDir)
  .filter((name) => /^task_.*\.json$/.test(name))
  .sort()
  .map((name) => JSON.parse(readFileSync(path.join(tasksDir, name), "utf8")) as PolicyTask);
const task001 = tasks.find((task) => task.id === "task_001")!;

interface PromptIndex {
  by_retrieval_config: Record<string, { policy_sha256: string; policy_chars: number }>;
  golden_retrieval_by_task: Record<string, { policy_sha256: string; policy_chars: number }>;
}
const promptIndex = readFixtureJson<PromptIndex>("fixtures/prompts/banking_knowledge_prompt_index.json");

describe.each(RETRIEVAL_CONFIGS.map((config) => [config.name] as const))("the %s policy", (name) => {
  it("equals the reference's policy text exactly", () => {
    const policy = bankingPolicy({ promptsDir, config: name, kb, task: task001 });
    expect(sha256(policy)).toBe(promptIndex.by_retrieval_config[name]!.policy_sha256);
    expect(Array.from(policy).length).toBe(promptIndex.by_retrieval_config[name]!.policy_chars);
  });
});

describe("the golden_retrieval policy", () => {
  it("covers all 97 tasks of the reference's index", () => {
    expect(tasks.map((task) => task.id)).toEqual(Object.keys(promptIndex.golden_retrieval_by_task));
  });

  it.each(tasks.map((task) => [task.id, task] as const))("of %s has the reference's sha256", (id, task) => {
    const policy = bankingPolicy({ promptsDir, config: "golden_retrieval", kb, task });
    expect(sha256(policy)).toBe(promptIndex.golden_retrieval_by_task[id]!.policy_sha256);
    expect(Array.from(policy).length).toBe(promptIndex.golden_retrieval_by_task[id]!.policy_chars);
  });

  it("needs the task", () => {
    expect(() => bankingPolicy({ promptsDir, config: "golden_retrieval", kb })).toThrow(ConfigError);
  });

  it("names a required document missing from the KB, and the task", () => {
    const task = { id: "task_x", required_documents: ["doc_nowhere"] };
    expect(() => bankingPolicy({ promptsDir, config: "golden_retrieval", kb, task })).toThrow(
      UnknownNameError,
    );
    expect(() => bankingPolicy({ promptsDir, config: "golden_retrieval", kb, task })).toThrow(
      /document "doc_nowhere" is not known .*Task "task_x" names it in required_documents/,
    );
  });
});

describe("bankingPolicy", () => {
  it("inlines a team's own KB in its order for full_kb", () => {
    const own = createKnowledgeBase([
      { id: "b", title: "Second", content: "two" },
      { id: "a", title: "First", content: "one" },
    ]);
    const policy = bankingPolicy({ promptsDir, config: "full_kb", kb: own });
    expect(policy).toContain(
      "<knowledge_base>\n## Second\n\ntwo\n\n---\n\n## First\n\none\n</knowledge_base>",
    );
  });

  it("says which file is missing and how to get it", () => {
    expect(() => bankingPolicy({ promptsDir: path.join(domainDir, "nowhere"), config: "bm25", kb })).toThrow(
      /the bm25 policy template \(.*nowhere.classic_rag_bm25_no_grep\.md\) is missing; run `passk data pull` or fix --data\./,
    );
  });

  it("rejects an unknown config name, listing the known ones", () => {
    expect(() => bankingPolicy({ promptsDir, config: "bm52", kb })).toThrow(
      /retrieval config "bm52" is not known/,
    );
  });
});
