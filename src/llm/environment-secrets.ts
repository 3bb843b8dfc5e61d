import { defaultProviderDefinitions, envValue, providerEnvVars } from "./provider-registry.js";
import { urlCredentials } from "./redact.js";

/**
 * The secrets a process's environment holds for passk: every provider's credential variables and the
 * credentials inside its base-URL variables, plus `extra` (e.g. the OTLP headers).
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
