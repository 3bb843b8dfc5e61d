import type { OpenAIProvider } from "@ai-sdk/openai";

/** The AI SDK's language model (specification v3), named through a provider package's own types. */
export type SdkLanguageModel = ReturnType<OpenAIProvider["chat"]>;

/** The AI SDK's embedding model, named the same way. */
export type SdkEmbeddingModel = ReturnType<OpenAIProvider["embeddingModel"]>;
