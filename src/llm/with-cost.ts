import type { LanguageModel, LlmRequest, LlmResponse } from "../core/llm.js";
import { callCost, isPriced, type PriceLookup, type PriceOverrides } from "./cost.js";

/** Where a model's calls are priced: the price table (or the override file) and the clock. */
export interface CostOptions {
  /** The `<provider>` and `<model>` of the spec, as the table is searched for them. */
  provider: string;
  model: string;
  lookup: PriceLookup;
  overrides?: PriceOverrides;
  /** The clock the price table uses (prices change over time). */
  now: () => Date;
}

/**
 * A model whose replies carry their cost in USD, priced from their usage: prompt tokens read from the
 * provider's prompt cache at the cache-read rate, those written to it at the cache-write rate, the rest
 * at the input rate. A model the table does not know gets `cost: null` — unknown, never 0.
 *
 * @example
 * const priced = withCost(model, { provider: "openai", model: "gpt-4.1", lookup: { providerId: "openai" }, now: () => new Date() });
 */
export function withCost(model: LanguageModel, options: CostOptions): LanguageModel {
  const { provider, lookup, overrides } = options;
  const name = options.model;
  // Looked up once, on the first answer: a model the price table does not know never gets a price.
  let priced: boolean | undefined;
  const isModelPriced = (): boolean =>
    (priced ??= isPriced({ provider, model: name, lookup, ...(overrides ? { overrides } : {}) }));
  return {
    spec: model.spec,
    get priced() {
      return isModelPriced();
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const response = await model.generate(request);
      const { usage } = response;
      const cost = !isModelPriced()
        ? null
        : callCost({
            provider,
            model: name,
            usage: {
              inputTokens: usage.promptTokens,
              outputTokens: usage.completionTokens,
              ...(usage.cacheReadTokens !== undefined ? { cacheReadTokens: usage.cacheReadTokens } : {}),
              ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
            },
            lookup,
            ...(overrides ? { overrides } : {}),
            at: options.now(),
          });
      return { ...response, cost };
    },
  };
}
