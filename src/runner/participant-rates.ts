import { existsSync } from "node:fs";
import { z } from "zod";
import { loadPriceOverrides, modelPricing, type PriceOverrides } from "../llm/cost.js";
import { parseModelSpec } from "../llm/model-spec.js";
import { createDefaultProviderRegistry } from "../llm/provider-registry.js";
import type { ParticipantRates, TokenRates } from "../metrics/token-usage.js";

/** What is read of a run's info to price its models again: the specs, base URLs and price file. */
const PricedInfoSchema = z.looseObject({
  agent_info: z.looseObject({ llm: z.string().nullish() }).nullish(),
  user_info: z.looseObject({ llm: z.string().nullish() }).nullish(),
  passk: z
    .looseObject({
      config: z
        .looseObject({
          models: z
            .looseObject({
              agentLlmBaseUrl: z.string().optional(),
              userLlmBaseUrl: z.string().optional(),
              prices: z.string().optional(),
            })
            .optional(),
        })
        .optional(),
    })
    .nullish(),
});

/**
 * The rates a run's agent and customer models are priced at, at the time of the run (`timestamp`): the
 * price table (and the run's `--prices` file, when it is still there). Null for a model the table does
 * not know, a scripted participant or your own agent.
 */
export function participantRates(info: unknown, timestamp: string | undefined): ParticipantRates {
  const parsed = PricedInfoSchema.safeParse(info);
  if (!parsed.success) return { agent: null, user: null };
  const models = parsed.data.passk?.config?.models;
  let overrides: PriceOverrides | undefined;
  try {
    if (models?.prices !== undefined && existsSync(models.prices))
      overrides = loadPriceOverrides(models.prices);
  } catch {
    // A price file that no longer reads leaves the table's prices.
  }
  const stamp = Date.parse(timestamp ?? "");
  const at = Number.isNaN(stamp) ? new Date() : new Date(stamp);
  return {
    agent: modelRates(parsed.data.agent_info?.llm, models?.agentLlmBaseUrl, overrides, at),
    user: modelRates(parsed.data.user_info?.llm, models?.userLlmBaseUrl, overrides, at),
  };
}

function modelRates(
  spec: string | null | undefined,
  baseUrl: string | undefined,
  overrides: PriceOverrides | undefined,
  at: Date,
): TokenRates | null {
  if (spec === null || spec === undefined) return null;
  const registry = createDefaultProviderRegistry();
  let parsed: { provider: string; model: string };
  try {
    parsed = parseModelSpec(spec, registry.ids);
  } catch {
    return null; // scripted:gold, module:<path>
  }
  const provider = registry.get(parsed.provider);
  const pricing = modelPricing({
    ...parsed,
    lookup: provider.priceLookup(
      baseUrl ?? (typeof provider.defaultBaseUrl === "string" ? provider.defaultBaseUrl : ""),
    ),
    ...(overrides ? { overrides } : {}),
    at,
  });
  return pricing === null
    ? null
    : {
        input_mtok: pricing.inputMtok,
        cache_read_mtok: pricing.cacheReadMtok,
        cache_write_mtok: pricing.cacheWriteMtok,
      };
}
