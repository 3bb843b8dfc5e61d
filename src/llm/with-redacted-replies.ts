import type { LanguageModel, LlmRequest, LlmResponse } from "../core/llm.js";
import { stringifyKeepingPyFloats } from "../python/py-float.js";
import { redactKnownSecrets, redactKnownSecretsDeep } from "./redact.js";

/** The shortest configured value treated as a secret inside replies. */
export const MIN_REPLY_SECRET_CHARS = 12;

/**
 * A model whose replies never carry a configured secret: a provider that echoes the API key (or a base
 * URL's credentials) inside an ordinary 200 answer — its text, a tool call's arguments — has it replaced
 * by `[redacted]` before the reply reaches the conversation, so no trajectory, checkpoint, response
 * cache, store, results file or export can hold it. Only the secrets' own values are replaced: a reply's
 * text is graded, so nothing that merely looks like a key is touched, and values shorter than
 * {@link MIN_REPLY_SECRET_CHARS} (`OPENAI_API_KEY=EMPTY`, a user name) are left alone: taking every
 * "EMPTY" out of a conversation would change what is graded, and such values guard nothing.
 */
export function withRedactedReplies(model: LanguageModel, secrets: readonly string[]): LanguageModel {
  const known = secrets.filter((secret) => secret.length >= MIN_REPLY_SECRET_CHARS);
  if (known.length === 0) return model;
  return {
    spec: model.spec,
    get priced() {
      return model.priced;
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const response = await model.generate(request);
      if (response.text !== null) response.text = redactKnownSecrets(response.text, known);
      for (const call of response.toolCalls) {
        call.argumentsText = redactKnownSecrets(call.argumentsText, known);
        // The text may spell a key with JSON escapes (`\u0073k-…`); the parsed arguments never do.
        const parsed = call.arguments === undefined ? "" : JSON.stringify(call.arguments);
        if (call.arguments && known.some((secret) => parsed.includes(secret))) {
          redactKnownSecretsDeep(call.arguments, known);
          call.argumentsText = stringifyKeepingPyFloats(call.arguments);
        }
      }
      if (response.raw) redactKnownSecretsDeep(response.raw, known);
      return response;
    },
  };
}
