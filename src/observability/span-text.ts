import { providerEnvVars, defaultProviderDefinitions, envValue } from "../llm/provider-registry.js";
import { redactSecrets, urlCredentials } from "../llm/redact.js";

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

/**
 * The secrets a process's environment holds for passk: every provider's credential variables and the
 * credentials inside its base-URL variables, plus `extra` (the OTLP headers).
 */
export function environmentSecrets(
  env: Readonly<Record<string, string | undefined>>,
  extra: readonly string[] = [],
): string[] {
  const secrets = new Set(extra);
  for (const definition of defaultProviderDefinitions()) {
    for (const variable of providerEnvVars(definition)) {
      const value = envValue(env, variable.name);
      if (value === undefined) continue;
      if (variable.kind === "credential") secrets.add(value);
      else if (variable.kind === "base-url") for (const secret of urlCredentials(value)) secrets.add(secret);
    }
  }
  return [...secrets];
}
