import { createHash } from "node:crypto";
import { InfrastructureError } from "../core/llm.js";
import type { EmbeddingCache, TextEmbedder } from "../core/text-embedder.js";
import { rankByScore, type SearchHit } from "./bm25.js";
import type { KnowledgeBase } from "./knowledge-base.js";
import type { Retriever } from "./search-pipeline.js";

// ---------------------------------------------------------------------------------------------------
// Dense search

export interface DenseIndexOptions {
  /** Document vectors already computed; absent: none are kept on disk. */
  cache?: EmbeddingCache;
  /** Documents per embeddings request; default 128. */
  batchSize?: number;
  signal?: AbortSignal;
}

/** Document vectors (KB order) and their norms. */
export interface DenseIndex {
  vectors: Float64Array[];
  norms: Float64Array;
}

const denseIndexes = new WeakMap<KnowledgeBase, Map<string, Promise<DenseIndex>>>();

/**
 * The document vectors of a knowledge base under an embedder: from the cache where it has them, the
 * rest embedded (contents only, in batches) and stored. Built once per knowledge base and embedder spec
 * for the process, and shared by every conversation; a failed build is forgotten so the next call retries.
 */
export function denseIndex(
  kb: KnowledgeBase,
  embedder: TextEmbedder,
  options: DenseIndexOptions = {},
): Promise<DenseIndex> {
  let byEmbedder = denseIndexes.get(kb);
  if (!byEmbedder) denseIndexes.set(kb, (byEmbedder = new Map()));
  const known = byEmbedder.get(embedder.spec);
  if (known) return known;
  const building = buildDenseIndex(kb, embedder, options);
  byEmbedder.set(embedder.spec, building);
  building.catch(() => byEmbedder.delete(embedder.spec));
  return building;
}

async function buildDenseIndex(
  kb: KnowledgeBase,
  embedder: TextEmbedder,
  options: DenseIndexOptions,
): Promise<DenseIndex> {
  const hashes = kb.documents.map((document) => createHash("sha256").update(document.content).digest("hex"));
  const vectors: Array<Float64Array | undefined> = hashes.map((hash) =>
    options.cache?.get(embedder.spec, hash),
  );
  const missing = vectors.flatMap((vector, index) => (vector === undefined ? [index] : []));
  const batchSize = Math.max(1, options.batchSize ?? 128);
  for (let start = 0; start < missing.length; start += batchSize) {
    const batch = missing.slice(start, start + batchSize);
    const embedded = await embedder.embed(
      batch.map((index) => kb.documents[index]!.content),
      options.signal,
    );
    if (embedded.length !== batch.length)
      throw new InfrastructureError(
        `the embeddings endpoint of ${embedder.spec} returned ${embedded.length} vectors ` +
          `for ${batch.length} texts; ` +
          "the conversation is an infrastructure error and can be run again.",
        1,
      );
    batch.forEach((index, i) => (vectors[index] = Float64Array.from(embedded[i]!)));
    options.cache?.put(
      embedder.spec,
      batch.map((index, i) => ({ contentSha256: hashes[index]!, vector: embedded[i]! })),
    );
  }
  const complete = vectors as Float64Array[];
  return { vectors: complete, norms: Float64Array.from(complete, norm) };
}

function norm(vector: Float64Array): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

/**
 * The `topK` documents nearest to a query by cosine similarity of embeddings (ties in KB order). Only
 * the query is embedded once the document vectors exist. An empty or whitespace query returns nothing
 * (τ²'s encoder refuses to embed it).
 *
 * @example
 * const hits = await denseSearch(kb, embedder, "dispute a card charge", 10, { cache });
 */
export async function denseSearch(
  kb: KnowledgeBase,
  embedder: TextEmbedder,
  query: string,
  topK: number,
  options: DenseIndexOptions = {},
): Promise<SearchHit[]> {
  if (query.trim() === "") return [];
  const index = await denseIndex(kb, embedder, options);
  const [embedded] = await embedder.embed(
    [embedder.formatQuery ? embedder.formatQuery(query) : query],
    options.signal,
  );
  if (embedded === undefined)
    throw new InfrastructureError(
      `the embeddings endpoint of ${embedder.spec} returned no vector for the query.`,
      1,
    );
  const queryVector = Float64Array.from(embedded);
  const queryNorm = norm(queryVector);
  const scores = index.vectors.map((vector, i) => {
    const denominator = queryNorm * index.norms[i]!;
    if (denominator === 0) return 0;
    let dot = 0;
    for (let j = 0; j < vector.length; j++) dot += vector[j]! * (queryVector[j] ?? 0);
    return dot / denominator;
  });
  return rankByScore(kb.documents, scores, topK);
}

/** Dense search as a Retriever, for `createKbSearchPipeline`. */
export function denseRetriever(
  kb: KnowledgeBase,
  embedder: TextEmbedder,
  options: DenseIndexOptions = {},
): Retriever {
  return {
    name: embedder.spec,
    retrieve: (query, topK, signal) =>
      denseSearch(kb, embedder, query, topK, { ...options, ...(signal ? { signal } : {}) }),
  };
}
