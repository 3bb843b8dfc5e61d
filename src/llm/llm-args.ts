import { z } from "zod";
import { closest, ConfigError } from "../core/errors.js";

/**
 * Model call settings as `--agent-llm-args` / `--user-llm-args` / `--judge-llm-args` give them. Keys use
 * τ²-bench's (litellm's) snake_case names so τ² configurations carry over; camelCase aliases are accepted.
 */
export const LlmArgsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.int().positive().optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.int().positive().optional(),
  seed: z.int().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  /** OpenAI and OpenAI-compatible reasoning models: `minimal`, `low`, `medium`, `high`… */
  reasoning_effort: z.string().min(1).optional(),
  /** Passed to the AI SDK provider untouched, keyed by provider (`{"openai": {"serviceTier": "flex"}}`). */
  provider_options: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export type LlmArgs = z.infer<typeof LlmArgsSchema>;

const ALIASES: Readonly<Record<string, keyof LlmArgs>> = {
  maxTokens: "max_tokens",
  maxOutputTokens: "max_tokens",
  max_output_tokens: "max_tokens",
  max_completion_tokens: "max_tokens",
  topP: "top_p",
  topK: "top_k",
  stopSequences: "stop",
  stop_sequences: "stop",
  presencePenalty: "presence_penalty",
  frequencyPenalty: "frequency_penalty",
  reasoningEffort: "reasoning_effort",
  providerOptions: "provider_options",
};

const KNOWN_KEYS = [...Object.keys(LlmArgsSchema.shape), ...Object.keys(ALIASES)];

/**
 * Parses and checks the JSON text of an `--*-llm-args` flag. `flag` names the flag in error messages.
 *
 * @example
 * parseLlmArgs('{"temperature": 0, "maxTokens": 512}', "--agent-llm-args")
 * // { temperature: 0, max_tokens: 512 }
 */
export function parseLlmArgs(json: string, flag = "--agent-llm-args"): LlmArgs {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new ConfigError(
      `${flag} is not valid JSON (${error instanceof Error ? error.message : String(error)}); ` +
        `write a JSON object, e.g. ${flag} '{"temperature": 0}'`,
    );
  }
  return checkLlmArgs(value, flag);
}

/**
 * Settings this module has checked or merged from checked ones. They are never changed afterwards, so
 * the layers a request goes through (see `withArgs`) check it once, not once per layer.
 */
const checkedArgs = new WeakSet<object>();

/** Checks an already-parsed settings object (from a config file or `LlmRequest.params`). */
export function checkLlmArgs(value: unknown, source: string): LlmArgs {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`${source} must be a JSON object, e.g. '{"temperature": 0}'`);
  }
  if (checkedArgs.has(value)) return value as LlmArgs;
  const normalized: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    const canonical = ALIASES[key] ?? key;
    if (canonical in normalized) {
      throw new ConfigError(`${source} sets "${canonical}" twice (as "${key}" too); keep one of them`);
    }
    normalized[canonical] = entry;
  }
  const result = LlmArgsSchema.safeParse(normalized);
  if (result.success) {
    checkedArgs.add(result.data);
    return result.data;
  }
  const lines = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys
        .map((key) => {
          const suggestion = closest(key, KNOWN_KEYS);
          return `  - "${key}" is not a known setting${suggestion ? `; did you mean "${suggestion}"?` : ""}`;
        })
        .join("\n");
    }
    const at = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    return `  - ${at}: ${issue.message}`;
  });
  throw new ConfigError(
    `${source} is not valid:\n${lines.join("\n")}\nKnown settings: ${Object.keys(LlmArgsSchema.shape).join(", ")}`,
  );
}

/** Request-level settings override model-level ones, key by key. */
export function mergeLlmArgs(base: LlmArgs, override: LlmArgs | undefined): LlmArgs {
  if (!override) return base;
  const merged: LlmArgs = { ...base, ...override };
  if (base.provider_options && override.provider_options) {
    const providerOptions: Record<string, Record<string, unknown>> = { ...base.provider_options };
    for (const [provider, options] of Object.entries(override.provider_options)) {
      providerOptions[provider] = { ...providerOptions[provider], ...options };
    }
    merged.provider_options = providerOptions;
  }
  if (checkedArgs.has(base) && checkedArgs.has(override)) checkedArgs.add(merged);
  return merged;
}
