import type { LanguageModel, LlmRequest, LlmResponse } from "../core/llm.js";
import { responseCacheKey, type ResponseCache } from "./response-cache.js";

/**
 * A model that answers a request it has answered before from `cache` (`--cache`), marked `cached: true`,
 * and stores every new answer. The key covers the spec and everything that shapes the answer — system
 * prompt, messages, tools, call settings (`request.params`, as sent), response schema and salt — so put
 * it inside {@link withArgs}, which completes the settings.
 *
 * @example
 * const replaying = withCache(model, openResponseCache(".passk/llm-cache.db"));
 */
export function withCache(model: LanguageModel, cache: ResponseCache): LanguageModel {
  return {
    spec: model.spec,
    get priced() {
      return model.priced;
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const key = responseCacheKey({ spec: model.spec, request, params: request.params ?? {} });
      const hit = cache.get(key);
      if (hit) return { ...hit, cached: true };
      const response = await model.generate(request);
      cache.set(key, model.spec, response);
      return response;
    },
  };
}
