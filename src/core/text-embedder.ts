/** Turns texts into vectors. `llm/`'s `createTextEmbedder` calls an embeddings API through the AI SDK. */
export interface TextEmbedder {
  /** `<provider>:<model>`; the embedding cache keys vectors by it. Never contains secrets. */
  readonly spec: string;
  /** One vector per text, in order. A failing endpoint throws an InfrastructureError. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
  /** How a query is written before it is embedded (documents are embedded as they are). */
  formatQuery?(query: string): string;
}

/** An embedding model as a retrieval config names it: what building its embedder takes. */
export interface TextEmbedderRequest {
  /** `<provider>:<model>`. */
  readonly spec: string;
  /** Base URL used when none is configured (OpenRouter's); absent: the provider's own default. */
  readonly baseUrl?: string;
  /** The key's variable when not the provider's usual one (e.g. `OPENROUTER_API_KEY`); then required. */
  readonly apiKeyEnv?: string;
  /** Prefixed to queries (not documents) in Qwen's `Instruct: …\nQuery:…` format. */
  readonly queryInstruction?: string;
}

/** Builds the embedder a request names (configuration problems are ConfigErrors, raised before any call). */
export type TextEmbedderFactory = (request: TextEmbedderRequest) => TextEmbedder;

/** Document vectors kept across runs, by embedder spec and SHA-256 of the document's content. */
export interface EmbeddingCache {
  get(spec: string, contentSha256: string): Float64Array | undefined;
  put(spec: string, entries: ReadonlyArray<{ contentSha256: string; vector: readonly number[] }>): void;
  close(): void;
}
