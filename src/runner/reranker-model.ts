import type { LanguageModel } from "../core/llm.js";
import { createLanguageModel } from "../llm/create-language-model.js";
import type { PriceOverrides } from "../llm/cost.js";
import { meteredToolModel } from "../llm/tool-model-spend.js";
import type { ModelSpec } from "./build.js";

/**
 * The model banking_knowledge's `_reranker` retrieval configs rate search hits with, as a domain load
 * (`DomainCatalog.load`) takes it: its calls are made inside conversations and counted to each
 * (`tool_model_cost`), and the key tells loads with different models or prices apart.
 */
export function rerankerToolModel(
  model: ModelSpec,
  options: { env?: Readonly<Record<string, string | undefined>>; priceOverrides?: PriceOverrides } = {},
): { toolModel: LanguageModel; toolModelKey: string } {
  return {
    toolModel: meteredToolModel(
      createLanguageModel(model.model, {
        env: options.env ?? process.env,
        role: "reranker",
        ...(model.baseUrl !== undefined ? { baseUrl: model.baseUrl } : {}),
        ...(options.priceOverrides !== undefined ? { priceOverrides: options.priceOverrides } : {}),
      }),
    ),
    toolModelKey: JSON.stringify([model.model, model.baseUrl ?? null, options.priceOverrides ?? null]),
  };
}
