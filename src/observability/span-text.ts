import { redactSecrets } from "../llm/redact.js";

/** Longest text an attribute holds (tool arguments and results, model output): spans stay small. */
export const MAX_SPAN_TEXT_CHARS = 4_096;

/**
 * What every text bound for a span goes through: the given secrets and anything shaped like a key or a
 * bearer token removed (as in logs and results), then cut to `limit` characters.
 */
export type SpanText = (text: string, limit?: number) => string;

export function spanTextFilter(secrets: readonly string[]): SpanText {
  return (text, limit = MAX_SPAN_TEXT_CHARS) => {
    const clean = redactSecrets(text, secrets);
    return clean.length <= limit
      ? clean
      : `${clean.slice(0, limit)}… [${clean.length - limit} more characters]`;
  };
}
