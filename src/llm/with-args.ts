import type { LanguageModel, LlmRequest, LlmResponse } from "../core/llm.js";
import { checkLlmArgs, mergeLlmArgs, type LlmArgs } from "./llm-args.js";

/**
 * A model called with `args` (`--<role>-llm-args`) under every request's own `params`, key by key; a
 * request's settings are checked first (a bad one is a ConfigError naming the model, before any call).
 * The request passed on always carries the complete settings.
 *
 * @example
 * const cold = withArgs(model, { temperature: 0 });
 */
export function withArgs(model: LanguageModel, args: LlmArgs): LanguageModel {
  const settings = checkLlmArgs(args, `${model.spec} settings`);
  return {
    spec: model.spec,
    get priced() {
      return model.priced;
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const params = mergeLlmArgs(
        settings,
        request.params ? checkLlmArgs(request.params, `${model.spec} request params`) : undefined,
      );
      return model.generate({ ...request, params });
    },
  };
}
