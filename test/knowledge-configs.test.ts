import { describe, expect, it } from "vitest";
import { UnknownNameError } from "../src/core/errors.js";
import {
  DEFAULT_RETRIEVAL_CONFIG,
  RETRIEVAL_CONFIGS,
  RETRIEVAL_CONFIG_ALIASES,
  agentToolNames,
  retrievalConfig,
  type RetrievalConfig,
} from "../src/knowledge/index.js";
import { readFixtureJson } from "../src/testing/tau2-fixtures.js";

interface FixtureSearch {
  type: "bm25" | "embedding";
  embedder_type?: string | null;
  embedder_model?: string | null;
  top_k: number;
  reranker?: boolean;
  reranker_min_score?: number;
}
interface FixtureConfig {
  prompt_template: string;
  prompt_builder: "standard_prompt" | "full_kb_prompt" | "golden_prompt";
  kb_search: FixtureSearch | null;
  kb_search_bm25: FixtureSearch | null;
  kb_search_dense: FixtureSearch | null;
  grep: { top_k: number; case_sensitive: boolean } | null;
  shell: { allow_writes: boolean; file_format: string } | null;
  supports_top_k: boolean;
}
interface ToolsFixture {
  agent_tools: Array<{ function: { name: string } }>;
  agent_tools_by_retrieval_config: Record<string, string[]>;
  retrieval_configs: Record<string, FixtureConfig>;
  retrieval_config_aliases: Record<string, string>;
  default_retrieval_config: string;
}
const fixture = readFixtureJson<ToolsFixture>("fixtures/tools/banking_knowledge.json");
const baseTools = fixture.agent_tools.map((tool) => tool.function.name);

/** passk's config written in the fixture's words, to compare field by field. */
function inFixtureWords(config: RetrievalConfig): FixtureConfig {
  const search = config.kbSearch;
  return {
    prompt_template: config.promptTemplate,
    prompt_builder: {
      standard: "standard_prompt",
      full_kb: "full_kb_prompt",
      golden_retrieval: "golden_prompt",
    }[config.policy] as FixtureConfig["prompt_builder"],
    kb_search: search
      ? {
          type: search.retriever === "bm25" ? "bm25" : "embedding",
          embedder_type: search.retriever === "dense" ? search.embedder.type : null,
          embedder_model: search.retriever === "dense" ? search.embedder.model : null,
          top_k: search.topK,
          reranker: search.reranker !== undefined,
          reranker_min_score: search.reranker?.minScore ?? 5,
        }
      : null,
    kb_search_bm25: config.kbSearchBm25 ? { type: "bm25", top_k: config.kbSearchBm25.topK } : null,
    kb_search_dense: config.kbSearchDense
      ? {
          type: "embedding",
          embedder_type: config.kbSearchDense.embedder.type,
          embedder_model: config.kbSearchDense.embedder.model,
          top_k: config.kbSearchDense.topK,
        }
      : null,
    grep: config.grep ? { top_k: config.grep.topK, case_sensitive: config.grep.caseSensitive } : null,
    shell: config.shell
      ? { allow_writes: config.shell.allowWrites, file_format: config.shell.fileFormat }
      : null,
    supports_top_k: config.supportsTopK,
  };
}

describe("retrieval configs", () => {
  it("are the reference's 20, in its order, with its alias and default", () => {
    expect(RETRIEVAL_CONFIGS.map((config) => config.name)).toEqual(Object.keys(fixture.retrieval_configs));
    expect(RETRIEVAL_CONFIG_ALIASES).toEqual(fixture.retrieval_config_aliases);
    expect(DEFAULT_RETRIEVAL_CONFIG).toBe(fixture.default_retrieval_config);
    expect(retrievalConfig().name).toBe("alltools");
    expect(retrievalConfig("AllTools")).toBe(retrievalConfig("alltools"));
  });

  it.each(Object.entries(fixture.retrieval_configs))("%s has the reference's spec", (name, expected) => {
    const {
      prompt_template,
      prompt_builder,
      kb_search,
      kb_search_bm25,
      kb_search_dense,
      grep,
      shell,
      supports_top_k,
    } = expected;
    expect(inFixtureWords(retrievalConfig(name))).toEqual({
      prompt_template,
      prompt_builder,
      kb_search,
      kb_search_bm25,
      kb_search_dense,
      grep,
      shell,
      supports_top_k,
    });
  });

  it.each(Object.entries(fixture.agent_tools_by_retrieval_config))(
    "%s gives the agent the reference's tools in its order",
    (name, expected) => {
      expect(agentToolNames(retrievalConfig(name), baseTools)).toEqual(expected);
    },
  );

  it("say what they need to run", () => {
    expect(retrievalConfig("bm25").needs).toEqual({ reranker: false, shell: false });
    expect(retrievalConfig("qwen_embeddings_reranker").needs).toMatchObject({
      embeddings: { spec: "openai-compatible:qwen/qwen3-embedding-8b", apiKeyEnv: "OPENROUTER_API_KEY" },
      reranker: true,
      shell: false,
    });
    expect(retrievalConfig("alltools").needs).toMatchObject({
      embeddings: { spec: "openai:text-embedding-3-large" },
      shell: true,
    });
  });

  it("reject an unknown name with UnknownNameError, a suggestion and the fix", () => {
    expect(() => retrievalConfig("bm52")).toThrow(UnknownNameError);
    expect(() => retrievalConfig("bm52")).toThrow(
      /^retrieval config "bm52" is not known \(known: no_knowledge, full_kb, .*\); did you mean "bm25"\? Pass --retrieval-config/,
    );
  });
});
