import type { SdkLanguageModel } from "./sdk-language-model.js";

/** The AI SDK's provider options of a prompt part or a tool. */
type ProviderOptions = NonNullable<Parameters<SdkLanguageModel["doGenerate"]>[0]["providerOptions"]>;

/**
 * How a provider takes explicit prompt-cache markers: `anthropic` — `cache_control` breakpoints (the
 * AI SDK's `providerOptions.anthropic.cacheControl`) on a tool, the system prompt and a message;
 * `bedrock` — Converse `cachePoint` blocks (`providerOptions.bedrock.cachePoint`) after the system
 * prompt and a message. Providers that cache on their own (OpenAI, Gemini 2.5, DeepSeek) need none.
 */
export type PromptCacheStyle = "anthropic" | "bedrock";

/** Where markers go in a request, as the AI SDK's provider options of each part. */
export interface PromptCacheMarkers {
  /** On the last tool: the tool list is cached (Anthropic only; Bedrock's SDK cannot mark tools). */
  tools?: ProviderOptions;
  /** On the system prompt: tools and system prompt are cached, shared by every conversation of a run. */
  system: ProviderOptions;
  /** On the last message: the conversation so far is cached for the next turn. */
  lastMessage: ProviderOptions;
}

/**
 * The markers of a style. Three breakpoints (Anthropic allows four): the tool list alone helps calls
 * whose system prompt differs (the customer of each task), the system prompt helps every conversation
 * of a run, and the last message makes each turn read the previous turn's prompt from the cache.
 * Markers are transport metadata: the texts the model is shown are the same with and without them.
 */
export function promptCacheMarkers(style: PromptCacheStyle): PromptCacheMarkers {
  if (style === "anthropic") {
    const marker = { anthropic: { cacheControl: { type: "ephemeral" } } };
    return { tools: marker, system: marker, lastMessage: marker };
  }
  const marker = { bedrock: { cachePoint: { type: "default" } } };
  return { system: marker, lastMessage: marker };
}

/**
 * Bedrock models that take `cachePoint` blocks: Claude 3.5 Haiku, 3.7 Sonnet and the Claude 4 family
 * on, and Amazon Nova. Other models answer a request with cache points with a validation error, so they
 * get none.
 */
export function bedrockCachesPrompts(model: string): boolean {
  return /anthropic\.claude-(3-5-haiku|3-7-sonnet|(sonnet|opus|haiku)-\d)|amazon\.nova-(2-)?(micro|lite|pro|premier)/.test(
    model,
  );
}
