import { ConfigError } from "../core/errors.js";
import type { LanguageModel } from "../core/llm.js";
import { aiSdkErrorPolicy, createAiSdkLanguageModel } from "./ai-sdk-language-model.js";
import type { CallLimiter } from "./call-limits.js";
import { environmentSecrets } from "./environment-secrets.js";
import { composeLanguageModel } from "./compose-language-model.js";
import type { PriceOverrides } from "./cost.js";
import { checkLlmArgs, parseLlmArgs, type LlmArgs } from "./llm-args.js";
import { parseModelSpec, type ModelSpec } from "./model-spec.js";
import { urlCredentials } from "./redact.js";
import {
  createDefaultProviderRegistry,
  envValue,
  loadProviderPackage,
  type ProviderRegistry,
} from "./provider-registry.js";
import type { LlmRole, ModelCallObserver } from "./model-call-observer.js";
import type { ResponseCache } from "./response-cache.js";
import { resolveRetryOptions, type RetryOptions } from "./retry.js";

export interface CreateLanguageModelOptions {
  role?: LlmRole;
  /** `--<role>-llm-base-url`; else the provider's base-URL variable in `env`, else its default. */
  baseUrl?: string;
  /** `--<role>-llm-args`: its JSON text, or settings already parsed. */
  args?: string | LlmArgs;
  /** Where API keys and base URLs are read from. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  retry?: Partial<RetryOptions>;
  /** Per attempt, in milliseconds. */
  timeoutMs?: number;
  cache?: ResponseCache;
  /** Call limits shared by the run's processes (`--max-concurrent-requests`, `--requests-per-minute`…). */
  limiter?: CallLimiter;
  priceOverrides?: PriceOverrides;
  /** Defaults to every provider of `defaultProviderDefinitions` (`passk models` lists them). */
  registry?: ProviderRegistry;
  /** Ask for server-sent events and gather them, instead of one JSON answer. */
  stream?: boolean;
  /** The clock the price table uses (prices change over time). */
  now?: () => Date;
  /**
   * Explicit prompt-cache markers where the provider takes them (Anthropic, Bedrock's Claude and Nova;
   * see `ProviderDefinition.promptCache`): on unless false (`--no-prompt-cache`). They change what a call costs,
   * never what the model is shown.
   */
  promptCache?: boolean;
  /** Watches every call (`--otel` tracing); it never sees the key. */
  observer?: ModelCallObserver;
}

export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Builds a `LanguageModel` from a `<provider>:<model>` spec. Every configuration problem — unknown
 * provider, missing key or base URL, bad settings — is a ConfigError raised here, before any call.
 *
 * @example
 * const agent = createLanguageModel("openai:gpt-4.1", { args: '{"temperature": 0}' });
 * const local = createLanguageModel("openai-compatible:qwen3:8b", { baseUrl: "http://localhost:11434/v1" });
 * const reply = await agent.generate({ system: "You are…", messages: [{ role: "user", content: "Hi" }] });
 */
export function createLanguageModel(
  spec: string,
  options: CreateLanguageModelOptions = {},
): LanguageModel & ModelSpec {
  const role = options.role ?? "agent";
  const registry = options.registry ?? createDefaultProviderRegistry();
  const env = options.env ?? process.env;
  const parsed = parseModelSpec(spec, registry.ids);
  const provider = registry.get(parsed.provider);
  const label = `${parsed.provider}:${parsed.model}`;

  // An optional provider package that is not installed is the first thing to fix.
  if (provider.package.optional) loadProviderPackage(provider.id, provider.package);

  const apiKey = envValue(env, provider.apiKeyEnv);
  if (provider.apiKeyRequired && apiKey === undefined) {
    throw new ConfigError(
      `${provider.apiKeyEnv} is not set: export it, or use openai-compatible:<model> with --${role}-llm-base-url`,
    );
  }
  const missingCredentials = provider.missingCredentials?.(env);
  if (missingCredentials !== undefined) throw new ConfigError(missingCredentials);

  const defaultBaseUrl =
    typeof provider.defaultBaseUrl === "function" ? provider.defaultBaseUrl(env) : provider.defaultBaseUrl;
  const baseUrl = nonEmpty(options.baseUrl) ?? envValue(env, provider.baseUrlEnv) ?? defaultBaseUrl;
  if (baseUrl === undefined) {
    throw new ConfigError(
      provider.baseUrlHint !== undefined
        ? `${label} needs a base URL: ${provider.baseUrlHint}, or pass --${role}-llm-base-url or set ${provider.baseUrlEnv}`
        : `${label} needs a base URL: pass --${role}-llm-base-url (e.g. http://localhost:11434/v1 for Ollama) ` +
            `or set ${provider.baseUrlEnv}`,
    );
  }
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new ConfigError(
      `--${role}-llm-base-url "${baseUrl}" is not an http(s) URL; write e.g. http://localhost:11434/v1`,
    );
  }

  const flag = `--${role}-llm-args`;
  const args =
    options.args === undefined
      ? {}
      : typeof options.args === "string"
        ? parseLlmArgs(options.args, flag)
        : checkLlmArgs(options.args, flag);
  if (args.reasoning_effort !== undefined && provider.reasoningEffortKey === undefined) {
    throw new ConfigError(
      `${flag}: reasoning_effort is not supported by the ${provider.id} provider; ` +
        `pass its own settings through provider_options, e.g. {"provider_options": {"${provider.providerOptionsKey ?? provider.id}": {…}}}`,
    );
  }
  if (
    args.reasoning_effort !== undefined &&
    provider.reasoningEfforts !== undefined &&
    !provider.reasoningEfforts.includes(args.reasoning_effort)
  ) {
    throw new ConfigError(
      `${flag}: reasoning_effort "${args.reasoning_effort}" is not one the ${provider.id} provider accepts; ` +
        `use one of ${provider.reasoningEfforts.join(", ")}`,
    );
  }

  const sdkModel = provider.createModel(parsed.model, {
    baseUrl,
    env,
    ...(apiKey !== undefined ? { apiKey } : {}),
  });
  const promptCache = options.promptCache === false ? undefined : provider.promptCache?.(parsed.model);
  const base = createAiSdkLanguageModel({
    spec: parsed,
    provider,
    sdkModel,
    stream: options.stream ?? false,
    ...(promptCache ? { promptCache } : {}),
  });
  // Other credentials (AWS's key pair) and a base URL's own (`user:pass@`, `?api-key=`) are secrets too.
  const secrets = [
    ...(apiKey !== undefined ? [apiKey] : []),
    ...(provider.extraEnv ?? [])
      .filter((variable) => variable.kind === "credential")
      .flatMap((variable) => envValue(env, variable.name) ?? []),
    ...urlCredentials(baseUrl),
  ];
  const errors = aiSdkErrorPolicy({ spec: parsed, provider, secrets });
  const observer = options.observer;
  const onRetry = options.retry?.onRetry;
  const retry = resolveRetryOptions(
    observer
      ? {
          ...options.retry,
          onRetry: (event) => {
            observer.retried(event);
            onRetry?.(event);
          },
        }
      : options.retry,
  );
  const model = composeLanguageModel(base, {
    args,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { retry, ...errors },
    cost: {
      provider: parsed.provider,
      model: parsed.model,
      lookup: provider.priceLookup(baseUrl),
      ...(options.priceOverrides ? { overrides: options.priceOverrides } : {}),
      now: options.now ?? (() => new Date()),
    },
    ...(options.cache ? { cache: options.cache } : {}),
    ...(observer
      ? {
          observe: (inner: LanguageModel) =>
            observer.wrap(inner, {
              provider: parsed.provider,
              model: parsed.model,
              role,
              redact: errors.redact,
            }),
        }
      : {}),
    ...(options.limiter ? { limiter: options.limiter } : {}),
    // Every provider's key the environment holds, not only this model's: a reply echoing any is cleaned.
    secrets: [...new Set([...secrets, ...environmentSecrets(env)])],
  });
  return {
    spec: label,
    provider: parsed.provider,
    model: parsed.model,
    get priced() {
      return model.priced;
    },
    generate: (request) => model.generate(request),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
