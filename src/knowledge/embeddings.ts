import { createHash } from "node:crypto";
import path from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany } from "ai";
import Database from "better-sqlite3";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError } from "../core/llm.js";
import { httpFetch } from "../llm/http-fetch.js";
import { parseModelSpec } from "../llm/model-spec.js";
import { redactSecrets } from "../llm/redact.js";
import { rankByScore, type SearchHit } from "./bm25.js";
import type { EmbedderSpec } from "./configs.js";
import type { KnowledgeBase } from "./knowledge-base.js";
import type { Retriever } from "./search-pipeline.js";
import { makeDirectory } from "../core/make-directory.js";

/** Turns texts into vectors. One implementation calls an embeddings API through the AI SDK. */
export interface TextEmbedder {
  /** `<provider>:<model>`; the embedding cache keys vectors by it. Never contains secrets. */
  readonly spec: string;
  /** One vector per text, in order. A failing endpoint throws an InfrastructureError. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
  /** How a query is written before it is embedded (documents are embedded as they are). */
  formatQuery?(query: string): string;
}

export interface CreateTextEmbedderOptions {
  /** Else the provider's base-URL variable in `env`, else its default (openai-compatible has none). */
  baseUrl?: string;
  /** Else the provider's key variable in `env` (`apiKeyEnv` when given). */
  apiKey?: string;
  /** The key's variable when not the provider's usual one (e.g. `OPENROUTER_API_KEY`); then required. */
  apiKeyEnv?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Retries per request after the first attempt (the AI SDK's backoff, honouring Retry-After); default 2. */
  maxRetries?: number;
  /** Prefixed to queries in Qwen's format: `Instruct: {instruction}\nQuery:{query}`. */
  queryInstruction?: string;
}

const PROVIDERS = {
  openai: {
    apiKeyEnv: "OPENAI_API_KEY",
    baseUrlEnv: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
  },
  "openai-compatible": { apiKeyEnv: "OPENAI_COMPATIBLE_API_KEY", baseUrlEnv: "OPENAI_COMPATIBLE_BASE_URL" },
} as const;

/**
 * An embedder for `openai:<model>` (OpenAI's embeddings API) or `openai-compatible:<model>` (any server
 * with an OpenAI-shaped `/embeddings`, such as OpenRouter, which serves Qwen's models). Configuration
 * problems are ConfigErrors raised here, before any call.
 *
 * @example
 * const embedder = createTextEmbedder("openai:text-embedding-3-large");
 * const qwen = createTextEmbedder("openai-compatible:qwen/qwen3-embedding-8b", {
 *   baseUrl: "https://openrouter.ai/api/v1", apiKeyEnv: "OPENROUTER_API_KEY",
 * });
 */
export function createTextEmbedder(spec: string, options: CreateTextEmbedderOptions = {}): TextEmbedder {
  const { provider, model } = parseModelSpec(spec, Object.keys(PROVIDERS));
  const settings = PROVIDERS[provider as keyof typeof PROVIDERS];
  const env = options.env ?? process.env;
  const keyVariable = options.apiKeyEnv ?? settings.apiKeyEnv;
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[keyVariable]);
  // OpenAI needs a key; so does any service whose key variable is named (OpenRouter's, for Qwen).
  if ((provider === "openai" || options.apiKeyEnv !== undefined) && apiKey === undefined)
    throw new ConfigError(`${keyVariable} is not set: export it to embed with ${spec}.`);
  const baseUrl =
    nonEmpty(options.baseUrl) ??
    nonEmpty(env[settings.baseUrlEnv]) ??
    ("defaultBaseUrl" in settings ? settings.defaultBaseUrl : undefined);
  if (baseUrl === undefined)
    throw new ConfigError(
      `${spec} needs a base URL: set ${settings.baseUrlEnv} or pass one (e.g. https://openrouter.ai/api/v1).`,
    );
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
    throw new ConfigError(
      `the embeddings base URL "${baseUrl}" is not an http(s) URL; write e.g. https://host/v1.`,
    );
  const sdkModel =
    provider === "openai"
      ? createOpenAI({ apiKey, baseURL: baseUrl, fetch: httpFetch }).embeddingModel(model)
      : createOpenAICompatible({
          name: "openaiCompatible",
          baseURL: baseUrl,
          apiKey,
          fetch: httpFetch,
        }).embeddingModel(model);
  const maxRetries = options.maxRetries ?? 2;
  const label = `${provider}:${model}`;
  const instruction = options.queryInstruction;
  return {
    spec: label,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      try {
        const result = await embedMany({
          model: sdkModel,
          values: [...texts],
          maxRetries,
          abortSignal: signal,
        });
        return result.embeddings;
      } catch (error) {
        if (signal?.aborted) throw error;
        const reason = redactSecrets(error instanceof Error ? error.message : String(error), [apiKey]);
        throw new InfrastructureError(
          `the embeddings endpoint of ${label} failed after ${maxRetries + 1} attempt(s) (${reason}); ` +
            "the conversation is an infrastructure error and can be run again.",
          maxRetries + 1,
          { cause: error },
        );
      }
    },
    ...(instruction ? { formatQuery: (query: string) => `Instruct: ${instruction}\nQuery:${query}` } : {}),
  };
}

/** The embedder a retrieval config names (OpenAI's, or Qwen's through OpenRouter). */
export function createConfigEmbedder(
  embedder: EmbedderSpec,
  options: Omit<CreateTextEmbedderOptions, "apiKeyEnv" | "queryInstruction"> = {},
): TextEmbedder {
  return createTextEmbedder(embedder.spec, {
    ...options,
    baseUrl: options.baseUrl ?? embedder.baseUrl,
    apiKeyEnv: embedder.apiKeyEnv,
    ...(embedder.queryInstruction !== undefined ? { queryInstruction: embedder.queryInstruction } : {}),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

// ---------------------------------------------------------------------------------------------------
// The on-disk cache of document embeddings

/** Document vectors by embedder spec and SHA-256 of the document's content. */
export interface EmbeddingCache {
  get(spec: string, contentSha256: string): Float64Array | undefined;
  put(spec: string, entries: ReadonlyArray<{ contentSha256: string; vector: readonly number[] }>): void;
  close(): void;
}

/** Where the embedding cache lives unless told otherwise. */
export const DEFAULT_EMBEDDING_CACHE = path.join(".passk", "embeddings.db");

/**
 * Opens (creating if needed) a SQLite file of document embeddings, so that a second run embeds no
 * document. `:memory:` gives a cache for the process only.
 *
 * @example
 * const cache = openEmbeddingCache(".passk/embeddings.db");
 */
export function openEmbeddingCache(file: string = DEFAULT_EMBEDDING_CACHE): EmbeddingCache {
  let database: Database.Database;
  try {
    if (file !== ":memory:") makeDirectory(path.dirname(path.resolve(file)), `the embeddings cache ${file}`);
    database = new Database(file);
    database.pragma("journal_mode = WAL");
    database.pragma("busy_timeout = 5000");
    database.exec(
      `CREATE TABLE IF NOT EXISTS document_embeddings (
         spec TEXT NOT NULL,
         content_sha256 TEXT NOT NULL,
         vector BLOB NOT NULL,
         PRIMARY KEY (spec, content_sha256)
       )`,
    );
  } catch (error) {
    throw new ConfigError(
      `the embedding cache ${file} cannot be opened (${(error as Error).message}); pass a writable path.`,
      { cause: error },
    );
  }
  const select = database.prepare<[string, string], { vector: Buffer }>(
    "SELECT vector FROM document_embeddings WHERE spec = ? AND content_sha256 = ?",
  );
  const insert = database.prepare<[string, string, Buffer]>(
    "INSERT OR REPLACE INTO document_embeddings (spec, content_sha256, vector) VALUES (?, ?, ?)",
  );
  const insertAll = database.transaction(
    (spec: string, entries: ReadonlyArray<{ contentSha256: string; vector: readonly number[] }>) => {
      for (const { contentSha256, vector } of entries)
        insert.run(spec, contentSha256, Buffer.from(Float64Array.from(vector).buffer));
    },
  );
  return {
    get(spec, contentSha256) {
      const row = select.get(spec, contentSha256);
      if (!row) return undefined;
      const bytes = new Uint8Array(row.vector);
      return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8).slice();
    },
    put(spec, entries) {
      insertAll(spec, entries);
    },
    close() {
      database.close();
    },
  };
}

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
