export { createLanguageModel, DEFAULT_TIMEOUT_MS } from "./create-language-model.js";
export type { CreateLanguageModelOptions } from "./create-language-model.js";
export type { LlmRole } from "./model-call-observer.js";
export { parseLlmArgs, checkLlmArgs, mergeLlmArgs, LlmArgsSchema } from "./llm-args.js";
export type { LlmArgs } from "./llm-args.js";
export { parseModelSpec, formatModelSpec } from "./model-spec.js";
export type { ModelSpec } from "./model-spec.js";
export {
  createProviderRegistry,
  createDefaultProviderRegistry,
  defaultProviderDefinitions,
  loadProviderPackage,
  providerPackageStatus,
  providerEnvVars,
  installCommand,
} from "./provider-registry.js";
export { providerReport, providerReports, modelReport } from "./provider-report.js";
export type { ProviderReport, ModelReport } from "./provider-report.js";
export type {
  ProviderDefinition,
  ProviderRegistry,
  ProviderEnv,
  ProviderEnvVar,
  ProviderEnvListing,
  ProviderPackage,
  ProviderPackageStatus,
  ProviderProtocol,
} from "./provider-registry.js";
export {
  DEFAULT_RETRY_OPTIONS,
  resolveRetryOptions,
  retryDelayMs,
  parseRetryAfterMs,
  retryDelayFromBodyMs,
  retryWithBackoff,
  abortableSleep,
} from "./retry.js";
export type { RetryOptions, RetryEvent, AttemptFailure } from "./retry.js";
export { composeLanguageModel } from "./compose-language-model.js";
export type { LanguageModelLayers } from "./compose-language-model.js";
export { combineObservers } from "./model-call-observer.js";
export type { ModelCallObserver, ObservedModel } from "./model-call-observer.js";
export { withArgs } from "./with-args.js";
export { withCache } from "./with-cache.js";
export { withCost } from "./with-cost.js";
export type { CostOptions } from "./with-cost.js";
export { withRetry, classifyFault, infrastructureFailure } from "./with-retry.js";
export type { RetryPolicy } from "./with-retry.js";
export { withTimeout, CallTimeoutError } from "./with-timeout.js";
export { createAiSdkLanguageModel, aiSdkErrorPolicy } from "./ai-sdk-language-model.js";
export { promptCacheMarkers, bedrockCachesPrompts } from "./prompt-cache.js";
export type { SdkLanguageModel } from "./sdk-language-model.js";
export type { PromptCacheStyle } from "./prompt-cache.js";
export {
  callCost,
  modelPricing,
  loadPriceOverrides,
  PriceOverridesSchema,
  ModelPriceSchema,
} from "./cost.js";
export type { PriceOverrides, ModelPrice, ModelPricing, TokenUsage, PriceLookup } from "./cost.js";
export { openResponseCache, responseCacheKey } from "./response-cache.js";
export type { ResponseCache } from "./response-cache.js";
export { redactSecrets, redactUrl, isRedactedUrl, urlCredentials, REDACTED } from "./redact.js";
export { createConfigEmbedder, createTextEmbedder } from "./text-embedder.js";
export { DEFAULT_EMBEDDING_CACHE, openEmbeddingCache } from "./embedding-cache.js";
export type { CreateTextEmbedderOptions } from "./text-embedder.js";
