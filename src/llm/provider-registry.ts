import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI, type OpenAIProvider } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { UnknownNameError } from "../core/errors.js";
import type { PriceLookup } from "./cost.js";
import { httpFetch } from "./http-fetch.js";

/** The AI SDK's language model (specification v3), named through a provider package's own types. */
export type SdkLanguageModel = ReturnType<OpenAIProvider["chat"]>;

/** Everything passk needs to know about one provider: where its settings come from and how to build a model. */
export interface ProviderDefinition {
  /** The `<provider>` of `<provider>:<model>`. */
  id: string;
  /** Environment variable holding the API key. */
  apiKeyEnv: string;
  apiKeyRequired: boolean;
  /** Environment variable with a base URL used when no `--*-llm-base-url` is given. */
  baseUrlEnv: string;
  /** Used when neither flag nor variable gives a base URL; absent means a base URL is required. */
  defaultBaseUrl?: string;
  /** Wire protocol; decides how a malformed earlier tool call is replayed (Anthropic needs an object). */
  protocol: "openai" | "anthropic";
  /** Key under which provider options (e.g. `reasoningEffort`) go; undefined if reasoning_effort is unsupported. */
  reasoningEffortKey?: string;
  /** Where the price table looks this provider's models up. */
  priceLookup(baseUrl: string): PriceLookup;
  createModel(model: string, settings: { apiKey?: string; baseUrl: string }): SdkLanguageModel;
}

/** A value you build and pass around; nothing is registered globally. */
export interface ProviderRegistry {
  readonly ids: readonly string[];
  /** Throws UnknownNameError listing the known providers. */
  get(id: string): ProviderDefinition;
}

export function createProviderRegistry(definitions: readonly ProviderDefinition[]): ProviderRegistry {
  const byId = new Map(definitions.map((definition) => [definition.id, definition]));
  if (byId.size !== definitions.length) throw new RangeError("createProviderRegistry: duplicate provider id");
  const ids = [...byId.keys()];
  return {
    ids,
    get(id) {
      const definition = byId.get(id);
      if (!definition) throw new UnknownNameError("provider", id, ids);
      return definition;
    },
  };
}

/**
 * `openai` (Chat Completions — the API τ²-bench calls through litellm), `anthropic` (Messages) and
 * `openai-compatible` (any Chat Completions server: Ollama, vLLM, LM Studio, OpenRouter, LiteLLM).
 * Keys and base URLs are always passed explicitly so the SDK never reads `process.env` itself; plain-http
 * base URLs (local servers) are called through `httpFetch`, which is cheaper per call than fetch.
 */
export function defaultProviderDefinitions(): ProviderDefinition[] {
  return [
    {
      id: "openai",
      apiKeyEnv: "OPENAI_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "OPENAI_BASE_URL",
      defaultBaseUrl: "https://api.openai.com/v1",
      protocol: "openai",
      reasoningEffortKey: "openai",
      priceLookup: () => ({ providerId: "openai" }),
      createModel: (model, { apiKey, baseUrl }) =>
        createOpenAI({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chat(model),
    },
    {
      id: "anthropic",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "ANTHROPIC_BASE_URL",
      defaultBaseUrl: "https://api.anthropic.com/v1",
      protocol: "anthropic",
      priceLookup: () => ({ providerId: "anthropic" }),
      createModel: (model, { apiKey, baseUrl }) =>
        createAnthropic({ apiKey, baseURL: baseUrl, fetch: httpFetch }).messages(model),
    },
    {
      id: "openai-compatible",
      apiKeyEnv: "OPENAI_COMPATIBLE_API_KEY",
      apiKeyRequired: false,
      baseUrlEnv: "OPENAI_COMPATIBLE_BASE_URL",
      protocol: "openai",
      reasoningEffortKey: "openaiCompatible",
      // Known hosted APIs (OpenRouter, Together, Groq…) are recognised by URL; a local server has no price.
      priceLookup: (baseUrl) => ({ providerApiUrl: baseUrl }),
      createModel: (model, { apiKey, baseUrl }) =>
        createOpenAICompatible({
          name: "openaiCompatible",
          baseURL: baseUrl,
          apiKey,
          includeUsage: true,
          fetch: httpFetch,
        }).chatModel(model),
    },
  ];
}

export function createDefaultProviderRegistry(): ProviderRegistry {
  return createProviderRegistry(defaultProviderDefinitions());
}
