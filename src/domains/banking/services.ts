import path from "node:path";
import { ConfigError } from "../../core/errors.js";
import type { LanguageModel } from "../../core/llm.js";
import type { Task } from "../../core/task.js";
import type { EmbeddingCache, TextEmbedderFactory } from "../../core/text-embedder.js";
import {
  bankingPolicy,
  bm25Retriever,
  bm25Search,
  createKbSearchPipeline,
  createPointwiseReranker,
  denseRetriever,
  formatGrepOutput,
  formatKbSearchOutput,
  grepSearch,
  loadKnowledgeBase,
  readRerankerPrompt,
  RERANKER_MODULE,
  retrievalConfig,
  withRetrievalKwargs,
  type RetrievalConfigKwargs,
  type KbSearchPipeline,
  type KbSearchSpec,
  type KnowledgeBase,
  type Postprocessor,
  type RetrievalConfig,
} from "../../knowledge/index.js";
import type { DocumentHit, DomainEnv, DomainServicesContext } from "../../env/domain.js";
import { sessionSlot, type Session, type SessionState } from "../../env/session.js";
import { sandboxAccount, ShellSandbox } from "../../knowledge/shell-sandbox.js";
import type { ToolContext } from "../../env/tool.js";
import {
  ownInfo,
  parseDiscoverableDocstring,
  type DiscoverableInfo,
  type DiscoverableTool,
} from "./discoverable.js";

/** The conversation's shell sandbox (its folder name), set at its first shell call. */
export const SHELL_SANDBOX = sessionSlot<string>("banking.shell_sandbox", "");

export const TOOLS_FILE = "src/tau2/domains/banking_knowledge/tools.py";

/**
 * What the banking tools read besides the database, built once per loaded data and retrieval config:
 * where the data lives, and what its loader injects — the reference's own descriptions of the
 * discoverable tools when its source files are at hand (unlocking a tool shows them; without them
 * passk's own descriptions are shown), the embedder and embedding cache of dense search, the reranker.
 */
export class BankingServices {
  readonly config: string;
  /** The domain's data folder (`db.json`, `documents/`, `prompts/`, `tasks/`). */
  readonly folder: string;
  /** The upstream source files, when at hand (see `resolveUpstreamDir`). */
  readonly upstreamDir: string | undefined;
  #reference: Map<string, DiscoverableInfo> | null | undefined;
  #kb: KnowledgeBase | undefined;
  readonly #pipelines = new Map<string, KbSearchPipeline>();
  readonly #embeddingCache: () => EmbeddingCache;
  readonly #textEmbedder: TextEmbedderFactory;
  readonly #referenceTools: DomainServicesContext["referenceDiscoverableTools"];
  readonly #env: DomainEnv;
  readonly #reranker: LanguageModel | undefined;
  readonly #sandboxes = new Map<string, ShellSandbox>();
  readonly #retrieval: RetrievalConfig;

  constructor(options: {
    config: string;
    folder: string;
    upstreamDir?: string | undefined;
    /** The document embeddings kept across runs (dense configs), opened when a dense search first runs. */
    embeddingCache: () => EmbeddingCache;
    /** Builds the embedder a dense config names. */
    textEmbedder: TextEmbedderFactory;
    /** The reference's discoverable tools of a class in its verified source (see `DomainServicesContext`). */
    referenceDiscoverableTools: DomainServicesContext["referenceDiscoverableTools"];
    /** The environment the tools may read (the shell sandbox's account name). */
    env: DomainEnv;
    /** The model that rates each hit under the `_reranker` configs (`--reranker-llm`). */
    reranker?: LanguageModel;
    /** `--retrieval-config-kwargs`: overrides of the config's settings (`top_k`…). */
    kwargs?: RetrievalConfigKwargs;
  }) {
    this.#retrieval = withRetrievalKwargs(retrievalConfig(options.config), options.kwargs ?? {});
    this.config = options.config;
    this.folder = options.folder;
    this.upstreamDir = options.upstreamDir;
    this.#embeddingCache = options.embeddingCache;
    this.#textEmbedder = options.textEmbedder;
    this.#referenceTools = options.referenceDiscoverableTools;
    this.#env = options.env;
    this.#reranker = options.reranker;
  }

  get documentsDir(): string {
    return path.join(this.folder, "documents");
  }

  get promptsDir(): string {
    return path.join(this.folder, "prompts");
  }

  /** The documents (read once per folder and process, shared by every world). */
  get kb(): KnowledgeBase {
    this.#kb ??= loadKnowledgeBase(this.documentsDir);
    return this.#kb;
  }

  /** The retrieval config's definition. */
  get retrieval(): RetrievalConfig {
    return this.#retrieval;
  }

  /**
   * KB_search (`backend` undefined) or AllTools' KB_search_bm25 / KB_search_dense: the config's search,
   * as the tool's text. BM25 answers at once; dense search (an embeddings API) and the LLM reranker answer
   * asynchronously.
   */
  kbSearch(query: string, topK?: number, backend?: "bm25" | "dense"): string | Promise<string> {
    const config = this.retrieval;
    const spec =
      backend === "bm25"
        ? config.kbSearchBm25 && { retriever: "bm25" as const, topK: config.kbSearchBm25.topK }
        : backend === "dense"
          ? config.kbSearchDense && {
              retriever: "dense" as const,
              topK: config.kbSearchDense.topK,
              embedder: config.kbSearchDense.embedder,
            }
          : config.kbSearch;
    if (!spec) throw new Error(`retrieval config ${config.name} has no such search`);
    if (spec.retriever === "bm25" && !("reranker" in spec && spec.reranker)) {
      // BM25 alone: synchronous, timed as the reference times its pipeline.
      const start = performance.now();
      let hits = bm25Search(this.kb, query, spec.topK);
      const retrieved = performance.now();
      if (topK !== undefined) hits = hits.slice(0, Math.max(0, topK));
      const end = performance.now();
      return formatKbSearchOutput(hits, {
        retrievalMs: retrieved - start,
        postprocessingMs: end - retrieved,
        totalMs: end - start,
      });
    }
    return this.#pipeline(spec).run(query, topK !== undefined ? { topK } : {});
  }

  #pipeline(spec: KbSearchSpec & { readonly reranker?: { readonly minScore: number } }): KbSearchPipeline {
    const key = spec.retriever === "dense" ? `dense:${spec.embedder.spec}` : "bm25";
    let pipeline = this.#pipelines.get(key);
    if (!pipeline) {
      const retriever =
        spec.retriever === "dense"
          ? denseRetriever(this.kb, this.#textEmbedder(spec.embedder), {
              cache: this.#embeddingCache(),
            })
          : bm25Retriever(this.kb);
      let postprocessor: Postprocessor | undefined;
      if (spec.reranker) {
        if (!this.#reranker)
          throw new ConfigError(
            `retrieval config ${this.config} reranks every hit with an LLM: name the model with --reranker-llm <provider>:<model>.`,
          );
        if (this.upstreamDir === undefined)
          throw new ConfigError(
            `retrieval config ${this.config} reranks with the reference's prompt, read from ${RERANKER_MODULE} in the upstream source files: set --upstream or PASSK_TAU2_UPSTREAM.`,
          );
        postprocessor = createPointwiseReranker({
          model: this.#reranker,
          prompt: readRerankerPrompt(this.upstreamDir),
          minScore: spec.reranker.minScore,
        });
      }
      pipeline = createKbSearchPipeline({
        retriever,
        topK: spec.topK,
        ...(postprocessor ? { postprocessor } : {}),
      });
      this.#pipelines.set(key, pipeline);
    }
    return pipeline;
  }

  /**
   * BM25 over the knowledge base for a person reading it (the playground), whatever the agent's config:
   * the documents sharing a word with the query, best first.
   */
  searchDocuments(query: string, limit: number): DocumentHit[] {
    return bm25Search(this.kb, query, limit)
      .filter((hit) => hit.score > 0)
      .map(({ document, score }) => ({
        id: document.id,
        title: document.title,
        score,
        content: document.content,
      }));
  }

  /** grep over the knowledge base's documents, as the tool's text. */
  grep(pattern: string): string {
    const spec = this.retrieval.grep;
    if (!spec) throw new Error(`retrieval config ${this.config} has no grep`);
    return formatGrepOutput(
      pattern,
      grepSearch(this.kb, pattern, spec.topK, { caseSensitive: spec.caseSensitive }),
    );
  }

  /**
   * The shell tool: `command` run in the conversation's own sandbox (created at its first shell call,
   * named in the world's session so that copies of the world share it).
   */
  shell(command: string, session: Session, signal?: AbortSignal): Promise<string> {
    const spec = this.retrieval.shell;
    if (!spec) throw new Error(`retrieval config ${this.config} has no shell`);
    let id = session.get(SHELL_SANDBOX);
    let sandbox = id === "" ? undefined : this.#sandboxes.get(id);
    if (!sandbox) {
      sandbox = new ShellSandbox(this.kb, {
        allowWrites: spec.allowWrites,
        account: sandboxAccount(this.#env),
      });
      id = path.basename(sandbox.dir);
      this.#sandboxes.set(id, sandbox);
      session.set(SHELL_SANDBOX, id);
    }
    return sandbox.run(command, signal);
  }

  /** How many conversation sandboxes are open. */
  get openSandboxes(): number {
    return this.#sandboxes.size;
  }

  /** Removes the sandbox of a conversation (its world's session), if it has one. */
  closeSandbox(session: SessionState): void {
    const id = session.get(SHELL_SANDBOX.key);
    if (typeof id !== "string") return;
    this.#sandboxes.get(id)?.close();
    this.#sandboxes.delete(id);
  }

  /** Removes every sandbox these services opened. */
  closeSandboxes(): void {
    for (const sandbox of this.#sandboxes.values()) sandbox.close();
    this.#sandboxes.clear();
  }

  /** The agent's policy under this config (golden_retrieval: with the task's required documents). */
  policy(task: Task | undefined): string {
    const config = this.retrieval;
    // Outside a task the golden_retrieval policy has no documents to inline.
    const forTask =
      task ??
      (config.policy === "golden_retrieval" ? { id: "(no task)", required_documents: [] } : undefined);
    return bankingPolicy({
      promptsDir: this.promptsDir,
      config,
      kb: this.kb,
      ...(forTask
        ? { task: { id: forTask.id, required_documents: forTask.required_documents ?? null } }
        : {}),
    });
  }

  /** What unlocking (or giving) `tool` shows: the reference's docstring when at hand, else passk's text. */
  info(tool: DiscoverableTool): DiscoverableInfo {
    return this.#referenceInfo()?.get(`${tool.side}:${tool.name}`) ?? ownInfo(tool);
  }

  /** The reference's discoverable-tool docstrings, read once from its verified tools.py. */
  #referenceInfo(): Map<string, DiscoverableInfo> | null {
    if (this.#reference !== undefined) return this.#reference;
    this.#reference = null;
    const infos = new Map<string, DiscoverableInfo>();
    for (const [side, className] of [
      ["agent", "KnowledgeTools"],
      ["user", "KnowledgeUserTools"],
    ] as const) {
      const tools = this.#referenceTools(TOOLS_FILE, className);
      if (tools === undefined) return null;
      for (const tool of tools)
        infos.set(`${side}:${tool.name}`, parseDiscoverableDocstring(tool.name, tool.doc));
    }
    this.#reference = infos;
    return this.#reference;
  }
}

/** The banking services of a tool call's world, if it was built by `DomainData` (else passk's texts). */
export function servicesOf(context: ToolContext): BankingServices | undefined {
  return context.services instanceof BankingServices ? context.services : undefined;
}

/** What unlocking or giving a tool shows in this world. */
export function infoOf(context: ToolContext, tool: DiscoverableTool): DiscoverableInfo {
  return servicesOf(context)?.info(tool) ?? ownInfo(tool);
}
