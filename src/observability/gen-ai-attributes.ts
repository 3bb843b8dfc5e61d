/**
 * Attribute names of the OpenTelemetry semantic conventions for generative AI (v1.37+, "development"
 * status). The conventions package ships them only from its unstable `incubating` entry point, which it
 * asks applications to copy rather than import; these are those names, written out.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** The older name of `gen_ai.provider.name`, still read by some backends. */
  system: "gen_ai.system",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  requestTemperature: "gen_ai.request.temperature",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestTopP: "gen_ai.request.top_p",
  requestSeed: "gen_ai.request.seed",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  usageCacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallId: "gen_ai.tool.call.id",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
} as const;

/** `error.type` (stable in the general conventions). */
export const ERROR_TYPE = "error.type";

/** The conventions' `gen_ai.provider.name` of a passk provider id; other providers keep their own id. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  google: "gcp.gemini",
  "google-vertex": "gcp.vertex_ai",
  azure: "azure.ai.openai",
  "amazon-bedrock": "aws.bedrock",
  mistral: "mistral_ai",
  groq: "groq",
  xai: "x_ai",
  deepseek: "deepseek",
  cohere: "cohere",
};

export function genAiProviderName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}
