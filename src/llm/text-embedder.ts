import { embedMany } from "ai";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError } from "../core/llm.js";
import type { TextEmbedder, TextEmbedderRequest } from "../core/text-embedder.js";
import { parseModelSpec } from "./model-spec.js";
import { defaultProviderDefinitions, type ProviderEnv } from "./provider-registry.js";
import { redactSecrets } from "./redact.js";

export interface CreateTextEmbedderOptions {
  /** Else the provider's base-URL variable in `env`, else its default (openai-compatible has none). */
  baseUrl?: string;
  /** Else the provider's key variable in `env` (`apiKeyEnv` when given). */
  apiKey?: string;
  /** The key's variable when not the provider's usual one (e.g. `OPENROUTER_API_KEY`); then required. */
  apiKeyEnv?: string;
  /** Where the key and base URL are read; the caller passes it (a process passes `process.env`). */
  env: ProviderEnv;
  /** Retries per request after the first attempt (the AI SDK's backoff, honouring Retry-After); default 2. */
  maxRetries?: number;
  /** Prefixed to queries in Qwen's format: `Instruct: {instruction}\nQuery:{query}`. */
  queryInstruction?: string;
}

/** The providers with an embeddings API: their definitions in llm's provider table (openai, openai-compatible). */
const embeddingProviders = () => defaultProviderDefinitions().filter((d) => d.createEmbeddingModel);

/**
 * An embedder for `openai:<model>` (OpenAI's embeddings API) or `openai-compatible:<model>` (any server
 * with an OpenAI-shaped `/embeddings`, such as OpenRouter, which serves Qwen's models), with the key and
 * base-URL variables of llm's provider table. Configuration problems are ConfigErrors raised here,
 * before any call; a failing endpoint's message never carries the key.
 *
 * @example
 * const embedder = createTextEmbedder("openai:text-embedding-3-large", { env: process.env });
 * const qwen = createTextEmbedder("openai-compatible:qwen/qwen3-embedding-8b", {
 *   baseUrl: "https://openrouter.ai/api/v1", apiKeyEnv: "OPENROUTER_API_KEY", env: process.env,
 * });
 */
export function createTextEmbedder(spec: string, options: CreateTextEmbedderOptions): TextEmbedder {
  const providers = embeddingProviders();
  const { provider, model } = parseModelSpec(
    spec,
    providers.map((d) => d.id),
  );
  const settings = providers.find((d) => d.id === provider)!;
  const env = options.env;
  const keyVariable = options.apiKeyEnv ?? settings.apiKeyEnv;
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[keyVariable]);
  // OpenAI needs a key; so does any service whose key variable is named (OpenRouter's, for Qwen).
  if ((settings.apiKeyRequired || options.apiKeyEnv !== undefined) && apiKey === undefined)
    throw new ConfigError(`${keyVariable} is not set: export it to embed with ${spec}.`);
  const defaultBaseUrl =
    typeof settings.defaultBaseUrl === "function" ? settings.defaultBaseUrl(env) : settings.defaultBaseUrl;
  const baseUrl = nonEmpty(options.baseUrl) ?? nonEmpty(env[settings.baseUrlEnv]) ?? defaultBaseUrl;
  if (baseUrl === undefined)
    throw new ConfigError(
      `${spec} needs a base URL: set ${settings.baseUrlEnv} or pass one (e.g. https://openrouter.ai/api/v1).`,
    );
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
    throw new ConfigError(
      `the embeddings base URL "${baseUrl}" is not an http(s) URL; write e.g. https://host/v1.`,
    );
  const sdkModel = settings.createEmbeddingModel!(model, {
    ...(apiKey !== undefined ? { apiKey } : {}),
    baseUrl,
  });
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

/**
 * The embedder a retrieval config names (OpenAI's, or Qwen's through OpenRouter): its spec, key
 * variable, default base URL and query instruction.
 *
 * @example
 * const embedder = createConfigEmbedder(QWEN_EMBEDDER, { env: process.env });
 */
export function createConfigEmbedder(
  embedder: TextEmbedderRequest,
  options: Omit<CreateTextEmbedderOptions, "apiKeyEnv" | "queryInstruction">,
): TextEmbedder {
  const baseUrl = options.baseUrl ?? embedder.baseUrl;
  return createTextEmbedder(embedder.spec, {
    ...options,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(embedder.apiKeyEnv !== undefined ? { apiKeyEnv: embedder.apiKeyEnv } : {}),
    ...(embedder.queryInstruction !== undefined ? { queryInstruction: embedder.queryInstruction } : {}),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
