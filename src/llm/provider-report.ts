import { modelPricing, type ModelPricing, type PriceOverrides } from "./cost.js";
import { parseModelSpec } from "./model-spec.js";
import {
  createDefaultProviderRegistry,
  envValue,
  installCommand,
  providerEnvVars,
  providerPackageStatus,
  type ProviderDefinition,
  type ProviderEnv,
} from "./provider-registry.js";

/** One provider as `passk models` shows it: never a variable's value, only whether it is set. */
export interface ProviderReport {
  provider: string;
  package: string;
  optional: boolean;
  installed: boolean;
  version: string | null;
  compatible: boolean;
  install: string | null;
  protocol: string;
  env: { name: string; kind: string; description: string; required: boolean; set: boolean }[];
}

/** Whether a provider can be used here: its package, and which of its variables are set. */
export function providerReport(definition: ProviderDefinition, env: ProviderEnv): ProviderReport {
  const status = providerPackageStatus(definition.package);
  const usable = status.installed && status.compatible;
  return {
    provider: definition.id,
    package: `${definition.package.name}@${definition.package.major}`,
    optional: definition.package.optional,
    installed: status.installed,
    version: status.installed ? status.version : null,
    compatible: usable,
    install: usable ? null : installCommand(definition.package),
    protocol: definition.protocol,
    env: providerEnvVars(definition).map((variable) => ({
      ...variable,
      set: envValue(env, variable.name) !== undefined,
    })),
  };
}

/** Every default provider's report, in the registry's order. */
export function providerReports(env: ProviderEnv): ProviderReport[] {
  const registry = createDefaultProviderRegistry();
  return registry.ids.map((id) => providerReport(registry.get(id), env));
}

/** One model: its provider's report and its prices (null when no table or override prices it). */
export interface ModelReport {
  /** `<provider>:<model>` */
  model: string;
  provider: ProviderReport;
  pricing: ModelPricing | null;
}

/**
 * A model spec's provider and prices, as a run would price it: at `baseUrl`, else the provider's
 * base URL variable or default (an openai-compatible model is priced by host).
 */
export function modelReport(
  spec: string,
  options: { env: ProviderEnv; baseUrl?: string; overrides?: PriceOverrides; at?: Date },
): ModelReport {
  const registry = createDefaultProviderRegistry();
  const parsed = parseModelSpec(spec, registry.ids);
  const definition = registry.get(parsed.provider);
  const { env } = options;
  const defaultBaseUrl =
    typeof definition.defaultBaseUrl === "function"
      ? definition.defaultBaseUrl(env)
      : definition.defaultBaseUrl;
  const baseUrl = options.baseUrl ?? envValue(env, definition.baseUrlEnv) ?? defaultBaseUrl ?? "";
  const pricing = modelPricing({
    provider: parsed.provider,
    model: parsed.model,
    lookup: definition.priceLookup(baseUrl),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    at: options.at ?? new Date(),
  });
  return { model: `${parsed.provider}:${parsed.model}`, provider: providerReport(definition, env), pricing };
}
