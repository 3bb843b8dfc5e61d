import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  createProviderRegistry,
  defaultProviderDefinitions,
  type ProviderRegistry,
} from "../src/llm/provider-registry.js";

/**
 * passk's providers with `openai-compatible:` answered by `fetch` in this process: what a bench measures
 * is the AI SDK and passk's layers, without a network.
 */
export function inProcessProviders(fetch: typeof globalThis.fetch): ProviderRegistry {
  return createProviderRegistry(
    defaultProviderDefinitions().map((definition) =>
      definition.id !== "openai-compatible"
        ? definition
        : {
            ...definition,
            createModel: (model: string, { apiKey, baseUrl }: { apiKey?: string; baseUrl: string }) =>
              createOpenAICompatible({
                name: "openaiCompatible",
                baseURL: baseUrl,
                apiKey,
                includeUsage: true,
                fetch,
              }).chatModel(model),
          },
    ),
  );
}
