import { ConfigError, UnknownNameError } from "../core/errors.js";

/** A parsed `<provider>:<model>` spec. The model part may itself contain colons (`llama3.1:8b`). */
export interface ModelSpec {
  provider: string;
  model: string;
}

/**
 * Splits `<provider>:<model>` at the first colon and checks the provider against the known ones.
 *
 * @example
 * parseModelSpec("openai-compatible:llama3.1:8b", ["openai", "openai-compatible"])
 * // { provider: "openai-compatible", model: "llama3.1:8b" }
 */
export function parseModelSpec(spec: string, knownProviders: readonly string[]): ModelSpec {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(":");
  if (colon < 0) {
    throw new ConfigError(
      `model "${spec}" has no provider; write <provider>:<model>, e.g. openai:${trimmed || "gpt-4o"}` +
        ` (providers: ${knownProviders.join(", ")})`,
    );
  }
  const provider = trimmed.slice(0, colon);
  const model = trimmed.slice(colon + 1);
  if (provider === "") {
    throw new ConfigError(
      `model "${spec}" has an empty provider; write <provider>:<model>, e.g. openai:${model || "gpt-4o"}`,
    );
  }
  if (model === "") {
    throw new ConfigError(
      `model "${spec}" has an empty model name; write <provider>:<model>, e.g. ${provider}:gpt-4o`,
    );
  }
  if (!knownProviders.includes(provider)) {
    throw new UnknownNameError(
      "provider",
      provider,
      knownProviders,
      `Write <provider>:<model>, e.g. openai:${model}.`,
    );
  }
  return { provider, model };
}

/** The canonical text of a spec. */
export function formatModelSpec(spec: ModelSpec): string {
  return `${spec.provider}:${spec.model}`;
}
