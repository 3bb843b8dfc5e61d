import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ConfigError, UnknownNameError } from "../core/errors.js";
import type { TextEmbedderRequest } from "../core/text-embedder.js";
import { RERANKER_MODULE } from "./reranker.js";
import { missingSandboxBinaries, sandboxUnavailable } from "./shell-sandbox.js";

/** The retrieval tools a config adds to the agent's tools. */
export type RetrievalToolName = "KB_search" | "grep" | "shell" | "KB_search_bm25" | "KB_search_dense";

/** How the policy text is built: the template alone, with the whole KB, or with the task's documents. */
export type PolicyKind = "standard" | "full_kb" | "golden_retrieval";

/** An embedding model as τ² names it (`embedder_type`, `embedder_model`) and as passk calls it. */
export interface EmbedderSpec extends TextEmbedderRequest {
  readonly type: "openai" | "openrouter";
  readonly model: string;
  /** passk's `<provider>:<model>` for `createTextEmbedder`. */
  readonly spec: string;
  /** Base URL used when none is given (OpenRouter's); absent: the provider's own default. */
  readonly baseUrl?: string;
  /** Environment variable holding the API key. */
  readonly apiKeyEnv: string;
  /** Prefixed to queries (not documents) in Qwen's `Instruct: …\nQuery:…` format. */
  readonly queryInstruction?: string;
  /** How `all_tools.md` names the service. */
  readonly serviceLabel: string;
}

export type KbSearchSpec = { readonly topK: number } & (
  { readonly retriever: "bm25" } | { readonly retriever: "dense"; readonly embedder: EmbedderSpec }
);

/** One of τ²'s retrieval configs (`--retrieval-config`) for the banking_knowledge domain. */
export interface RetrievalConfig {
  readonly name: string;
  /** File under `prompts/`. */
  readonly promptTemplate: string;
  readonly policy: PolicyKind;
  /** Extra agent tools, in the order the model sees them; they all come before the base tools. */
  readonly tools: readonly RetrievalToolName[];
  /** `KB_search`, with the LLM reranker's minimum score when it has one. */
  readonly kbSearch?: KbSearchSpec & { readonly reranker?: { readonly minScore: number } };
  readonly kbSearchBm25?: { readonly topK: number };
  readonly kbSearchDense?: { readonly topK: number; readonly embedder: EmbedderSpec };
  readonly grep?: { readonly topK: number; readonly caseSensitive: boolean };
  readonly shell?: { readonly allowWrites: boolean; readonly fileFormat: "md" };
  /** What running it takes beyond the data: an embeddings API, a reranking LLM, a sandboxed shell. */
  readonly needs: { readonly embeddings?: EmbedderSpec; readonly reranker: boolean; readonly shell: boolean };
  /** τ²'s `supports_top_k`. */
  readonly supportsTopK: boolean;
}

export const OPENAI_EMBEDDER: EmbedderSpec = Object.freeze({
  type: "openai",
  model: "text-embedding-3-large",
  spec: "openai:text-embedding-3-large",
  apiKeyEnv: "OPENAI_API_KEY",
  serviceLabel: "OpenAI API",
});

export const QWEN_EMBEDDER: EmbedderSpec = Object.freeze({
  type: "openrouter",
  model: "qwen3-embedding-8b",
  spec: "openai-compatible:qwen/qwen3-embedding-8b",
  baseUrl: "https://openrouter.ai/api/v1",
  apiKeyEnv: "OPENROUTER_API_KEY",
  // Qwen3-Embedding's documented query instruction (its model card), which τ² uses for queries.
  queryInstruction: "Given a web search query, retrieve relevant passages that answer the query",
  serviceLabel: "OpenRouter",
});

const TOP_K = 10;
const RERANKER_MIN_SCORE = 5;

function plain(name: string, promptTemplate: string, policy: PolicyKind): RetrievalConfig {
  return {
    name,
    promptTemplate,
    policy,
    tools: [],
    needs: { reranker: false, shell: false },
    supportsTopK: false,
  };
}

function kbSearchConfig(
  name: string,
  promptTemplate: string,
  search: { retriever: "bm25" } | { retriever: "dense"; embedder: EmbedderSpec },
  reranker: boolean,
  grep: boolean,
): RetrievalConfig {
  const embedder = search.retriever === "dense" ? search.embedder : undefined;
  return {
    name,
    promptTemplate,
    policy: "standard",
    tools: grep ? ["KB_search", "grep"] : ["KB_search"],
    kbSearch: { ...search, topK: TOP_K, ...(reranker ? { reranker: { minScore: RERANKER_MIN_SCORE } } : {}) },
    ...(grep ? { grep: { topK: TOP_K, caseSensitive: false } } : {}),
    needs: { ...(embedder ? { embeddings: embedder } : {}), reranker, shell: false },
    supportsTopK: true,
  };
}

function shellConfig(name: string, promptTemplate: string, allowWrites: boolean): RetrievalConfig {
  return {
    name,
    promptTemplate,
    policy: "standard",
    tools: ["shell"],
    shell: { allowWrites, fileFormat: "md" },
    needs: { reranker: false, shell: true },
    supportsTopK: false,
  };
}

function allToolsConfig(name: string, embedder: EmbedderSpec): RetrievalConfig {
  return {
    name,
    promptTemplate: "all_tools.md",
    policy: "standard",
    tools: ["KB_search_bm25", "KB_search_dense", "shell"],
    kbSearchBm25: { topK: TOP_K },
    kbSearchDense: { topK: TOP_K, embedder },
    shell: { allowWrites: false, fileFormat: "md" },
    needs: { embeddings: embedder, reranker: false, shell: true },
    supportsTopK: false,
  };
}

const bm25 = { retriever: "bm25" } as const;
const qwen = { retriever: "dense", embedder: QWEN_EMBEDDER } as const;
const openai = { retriever: "dense", embedder: OPENAI_EMBEDDER } as const;

/** τ²'s 20 retrieval configs, in its order. */
export const RETRIEVAL_CONFIGS: readonly RetrievalConfig[] = Object.freeze([
  plain("no_knowledge", "no_knowledge.md", "standard"),
  plain("full_kb", "full_kb.md", "full_kb"),
  plain("golden_retrieval", "required_docs.md", "golden_retrieval"),
  kbSearchConfig("qwen_embeddings_grep", "classic_rag_qwen.md", qwen, false, true),
  kbSearchConfig("openai_embeddings_grep", "classic_rag_openai.md", openai, false, true),
  kbSearchConfig("qwen_embeddings_reranker_grep", "classic_rag_qwen.md", qwen, true, true),
  kbSearchConfig("openai_embeddings_reranker_grep", "classic_rag_openai.md", openai, true, true),
  kbSearchConfig("bm25_grep", "classic_rag_bm25.md", bm25, false, true),
  kbSearchConfig("bm25_reranker_grep", "classic_rag_bm25.md", bm25, true, true),
  kbSearchConfig("qwen_embeddings", "classic_rag_qwen_no_grep.md", qwen, false, false),
  kbSearchConfig("openai_embeddings", "classic_rag_openai_no_grep.md", openai, false, false),
  kbSearchConfig("qwen_embeddings_reranker", "classic_rag_qwen_no_grep.md", qwen, true, false),
  kbSearchConfig("openai_embeddings_reranker", "classic_rag_openai_no_grep.md", openai, true, false),
  kbSearchConfig("bm25", "classic_rag_bm25_no_grep.md", bm25, false, false),
  kbSearchConfig("bm25_reranker", "classic_rag_bm25_no_grep.md", bm25, true, false),
  {
    name: "grep_only",
    promptTemplate: "grep_only.md",
    policy: "standard",
    tools: ["grep"],
    grep: { topK: TOP_K, caseSensitive: false },
    needs: { reranker: false, shell: false },
    supportsTopK: true,
  },
  shellConfig("terminal_use", "agentic_search.md", false),
  shellConfig("terminal_use_write", "agentic_search_write.md", true),
  allToolsConfig("alltools", OPENAI_EMBEDDER),
  allToolsConfig("alltools-qwen", QWEN_EMBEDDER),
]);

/** Other names τ² accepts for a config. */
export const RETRIEVAL_CONFIG_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  AllTools: "alltools",
});

/** What τ² runs when no `--retrieval-config` is given. */
export const DEFAULT_RETRIEVAL_CONFIG = "alltools";

/** What passk runs without `--retrieval-config` when alltools cannot run here. */
export const FALLBACK_RETRIEVAL_CONFIG = "bm25";

/** The environment the embeddings keys are read from, given by the caller (a process: its own). */
export type KeyEnv = Readonly<Record<string, string | undefined>>;

/**
 * What alltools (the reference's default) lacks on this machine: the embeddings key in `env`, the
 * sandbox's system programs; empty when it can run.
 */
export function allToolsMissing(env: KeyEnv): string[] {
  const missing: string[] = [];
  if (!env[OPENAI_EMBEDDER.apiKeyEnv])
    missing.push(`${OPENAI_EMBEDDER.apiKeyEnv} (for ${OPENAI_EMBEDDER.model})`);
  const binaries = missingSandboxBinaries();
  if (binaries.length > 0) missing.push(`${binaries.join(", ")} (for the shell sandbox)`);
  return missing;
}

/** passk's default retrieval config: the reference's (alltools) when it can run here, else bm25. */
export function defaultRetrievalConfig(env: KeyEnv): string {
  if (!env[OPENAI_EMBEDDER.apiKeyEnv]) return FALLBACK_RETRIEVAL_CONFIG;
  return allToolsMissing(env).length === 0 ? DEFAULT_RETRIEVAL_CONFIG : FALLBACK_RETRIEVAL_CONFIG;
}

/** The sentence saying why the default is not alltools, or undefined when it is. */
export function defaultRetrievalNote(env: KeyEnv): string | undefined {
  const missing = allToolsMissing(env);
  if (missing.length === 0) return undefined;
  return `banking_knowledge runs ${FALLBACK_RETRIEVAL_CONFIG}, not the reference's default alltools, which needs ${missing.join(" and ")}; set it up or pass --retrieval-config.`;
}

const byName = new Map(RETRIEVAL_CONFIGS.map((config) => [config.name, config]));

/**
 * The retrieval config of a name (or alias); UnknownNameError listing the known names otherwise.
 *
 * @example
 * retrievalConfig("bm25").tools // ["KB_search"]
 */
export function retrievalConfig(name: string = DEFAULT_RETRIEVAL_CONFIG): RetrievalConfig {
  const config = byName.get(RETRIEVAL_CONFIG_ALIASES[name] ?? name);
  if (!config)
    throw new UnknownNameError(
      "retrieval config",
      name,
      RETRIEVAL_CONFIGS.map((known) => known.name),
      "Pass --retrieval-config with one of the known names.",
    );
  return config;
}

/** `--retrieval-config-kwargs`: the overrides τ² accepts for a retrieval config. */
export const RetrievalConfigKwargsSchema = z.strictObject({
  /** How many documents KB_search, KB_search_bm25 and KB_search_dense fetch (default 10). */
  top_k: z.int().min(1).optional(),
  /** How many documents grep shows (default 10). */
  grep_top_k: z.int().min(1).optional(),
  /** Whether grep tells upper from lower case (default false). */
  case_sensitive: z.boolean().optional(),
  /** The reranker's minimum score (0–10) for a hit to be kept (default 5). */
  reranker_min_score: z.int().optional(),
});
export type RetrievalConfigKwargs = z.infer<typeof RetrievalConfigKwargsSchema>;

const KWARG_NAMES = Object.keys(RetrievalConfigKwargsSchema.shape);

/**
 * `--retrieval-config-kwargs` text as validated overrides; a ConfigError naming the problem (and the
 * known keys, for an unknown one) otherwise.
 *
 * @example
 * parseRetrievalConfigKwargs('{"top_k": 5}') // { top_k: 5 }
 */
export function parseRetrievalConfigKwargs(text: string): RetrievalConfigKwargs {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `--retrieval-config-kwargs is not JSON (${(error as Error).message}); pass an object such as '{"top_k": 10}'`,
    );
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const unknown = Object.keys(value).filter((key) => !KWARG_NAMES.includes(key));
    if (unknown.length > 0)
      throw new ConfigError(
        `--retrieval-config-kwargs: unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; known keys: ${KWARG_NAMES.join(", ")}`,
      );
  }
  const parsed = RetrievalConfigKwargsSchema.safeParse(value);
  if (!parsed.success)
    throw new ConfigError(
      `--retrieval-config-kwargs: ${parsed.error.issues.map((i) => `${i.path.join(".") || "value"}: ${i.message}`).join("; ")} (known keys: ${KWARG_NAMES.join(", ")})`,
    );
  return parsed.data;
}

/** A config with `--retrieval-config-kwargs` applied, as τ² applies them (only to what the config has). */
export function withRetrievalKwargs(config: RetrievalConfig, kwargs: RetrievalConfigKwargs): RetrievalConfig {
  const { top_k: topK, grep_top_k: grepTopK, case_sensitive: caseSensitive } = kwargs;
  const minScore = kwargs.reranker_min_score;
  return {
    ...config,
    ...(config.kbSearch
      ? {
          kbSearch: {
            ...config.kbSearch,
            ...(topK !== undefined ? { topK } : {}),
            ...(minScore !== undefined && config.kbSearch.reranker ? { reranker: { minScore } } : {}),
          },
        }
      : {}),
    ...(config.kbSearchBm25 && topK !== undefined ? { kbSearchBm25: { ...config.kbSearchBm25, topK } } : {}),
    ...(config.kbSearchDense && topK !== undefined
      ? { kbSearchDense: { ...config.kbSearchDense, topK } }
      : {}),
    ...(config.grep
      ? {
          grep: {
            topK: grepTopK ?? config.grep.topK,
            caseSensitive: caseSensitive ?? config.grep.caseSensitive,
          },
        }
      : {}),
  };
}

/** The agent's tools in the order the model sees them: the config's retrieval tools, then the base tools. */
export function agentToolNames(config: RetrievalConfig, baseTools: readonly string[]): string[] {
  return [...config.tools, ...baseTools];
}

/**
 * Why passk cannot hold conversations under a config, or undefined when it can: dense search needs
 * its embeddings key; the shell needs the sandbox runtime's system programs (bubblewrap, ripgrep, socat); the reranker needs a model (`--reranker-llm`) and the reference's prompt, read
 * from its upstream source file. Replays, single calls and tool listings of the other tools work under
 * every config; conversations would fail at the agent's first such call, so runs refuse them before
 * they start.
 */
export function conversationBlocker(
  config: RetrievalConfig,
  ready: { readonly toolModel: boolean; readonly upstreamDir: string | undefined; readonly env: KeyEnv },
): string | undefined {
  const env = ready.env;
  // Read where the searches read it (the dense retriever's embedder takes its key from the same environment).
  const embeddings = config.needs.embeddings;
  if (embeddings && !env[embeddings.apiKeyEnv]?.trim())
    return `retrieval config ${config.name} searches with ${embeddings.model} embeddings (${embeddings.serviceLabel}), which need ${embeddings.apiKeyEnv}: set it, or choose a config without embeddings (bm25, bm25_grep, grep_only, terminal_use…)`;
  if (config.needs.shell) {
    const unavailable = sandboxUnavailable();
    if (unavailable)
      return `retrieval config ${config.name} gives the agent a shell over the documents: ${unavailable}; or choose a config without shell (bm25, bm25_grep, grep_only, openai_embeddings…)`;
  }
  if (config.needs.reranker) {
    if (!ready.toolModel)
      return `retrieval config ${config.name} reranks every hit with an LLM: name the model with --reranker-llm <provider>:<model>, or choose the same config without _reranker`;
    const file = ready.upstreamDir === undefined ? undefined : path.join(ready.upstreamDir, RERANKER_MODULE);
    if (file === undefined || !existsSync(file))
      return `retrieval config ${config.name} reranks with the reference's prompt, read from its source file ${file ?? RERANKER_MODULE} (not found; --upstream or PASSK_TAU2_UPSTREAM names the folder): put tau2-bench's file there, or choose the same config without _reranker`;
  }
  return undefined;
}
