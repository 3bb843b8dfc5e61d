import { bm25Search, type SearchHit } from "./bm25.js";
import { formatKbSearchOutput, type SearchTiming } from "./format.js";
import type { KnowledgeBase } from "./knowledge-base.js";

/** Finds the `topK` best documents for a query (BM25, dense embeddings, a team's own search…). */
export interface Retriever {
  /** What it is, for messages: `bm25`, `openai:text-embedding-3-large`… */
  readonly name: string;
  retrieve(query: string, topK: number, signal?: AbortSignal): Promise<SearchHit[]>;
}

/** Re-orders or filters retrieved hits (the LLM reranker). */
export interface Postprocessor {
  process(query: string, hits: readonly SearchHit[], signal?: AbortSignal): Promise<SearchHit[]>;
}

/** BM25 over a knowledge base, as a Retriever. */
export function bm25Retriever(kb: KnowledgeBase): Retriever {
  return { name: "bm25", retrieve: async (query, topK) => bm25Search(kb, query, topK) };
}

export interface KbSearchPipelineOptions {
  retriever: Retriever;
  /** How many documents the retriever fetches (τ²'s configs: 10). */
  topK?: number;
  postprocessor?: Postprocessor;
  /** Clock in milliseconds; `performance.now` by default. */
  now?: () => number;
}

export interface KbSearchResult {
  hits: SearchHit[];
  timing: SearchTiming;
}

/** τ²'s retrieval pipeline: retrieve, post-process, cut; with wall-clock timings. */
export interface KbSearchPipeline {
  /**
   * `topK` (the `k` argument of `KB_search_bm25` / `KB_search_dense`) only cuts what the retriever
   * fetched with the pipeline's own top-k: as in τ², asking for 25 of a 10-document pipeline gives 10.
   */
  retrieve(query: string, options?: { topK?: number; signal?: AbortSignal }): Promise<KbSearchResult>;
  /** The tool's output text: hits (or "No relevant documents found.") and the timing suffix. */
  run(query: string, options?: { topK?: number; signal?: AbortSignal }): Promise<string>;
}

/**
 * Builds a KB search pipeline, the engine behind τ²'s `KB_search`, `KB_search_bm25` and
 * `KB_search_dense` tools.
 *
 * @example
 * const search = createKbSearchPipeline({ retriever: bm25Retriever(kb) });
 * const text = await search.run("overdraft fee"); // "1. Understanding Blue Account overdraft fees\n…"
 */
export function createKbSearchPipeline(options: KbSearchPipelineOptions): KbSearchPipeline {
  const { retriever, postprocessor } = options;
  const pipelineTopK = options.topK ?? 10;
  const now = options.now ?? (() => performance.now());
  const retrieve: KbSearchPipeline["retrieve"] = async (query, call = {}) => {
    const start = now();
    const retrieved = await retriever.retrieve(query, pipelineTopK, call.signal);
    const retrievedAt = now();
    let hits = postprocessor ? await postprocessor.process(query, retrieved, call.signal) : retrieved;
    if (call.topK !== undefined) hits = hits.slice(0, Math.max(0, call.topK));
    const end = now();
    return {
      hits,
      timing: { retrievalMs: retrievedAt - start, postprocessingMs: end - retrievedAt, totalMs: end - start },
    };
  };
  return {
    retrieve,
    async run(query, call) {
      const { hits, timing } = await retrieve(query, call);
      return formatKbSearchOutput(hits, timing);
    },
  };
}
