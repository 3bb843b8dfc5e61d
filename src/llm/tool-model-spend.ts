import { AsyncLocalStorage } from "node:async_hooks";
import type { LanguageModel } from "../core/llm.js";

/**
 * What the model calls a conversation's tools made cost (banking_knowledge's LLM reranker rates every
 * search hit): null once one of them could not be priced.
 */
export interface ToolModelSpend {
  cost: number | null;
  calls: number;
}

// The tools' model is shared by every conversation of a domain; the conversation a call belongs to is
// the async context it is made in.
const spendOfConversation = new AsyncLocalStorage<ToolModelSpend>();

/** Run one conversation, counting what the tools' models called inside it cost. */
export async function countingToolModelSpend<T>(
  run: () => Promise<T>,
): Promise<{ result: T; spend: ToolModelSpend }> {
  const spend: ToolModelSpend = { cost: 0, calls: 0 };
  const result = await spendOfConversation.run(spend, run);
  return { result, spend };
}

/** A model that tools call, each call's cost counted to the conversation it is made in. */
export function meteredToolModel(model: LanguageModel): LanguageModel {
  return {
    spec: model.spec,
    ...(model.priced !== undefined ? { priced: model.priced } : {}),
    async generate(request) {
      const response = await model.generate(request);
      const spend = spendOfConversation.getStore();
      if (spend) {
        spend.calls++;
        spend.cost = spend.cost === null || response.cost === null ? null : spend.cost + response.cost;
      }
      return response;
    },
  };
}
