import { calcPrice, type PriceCalculation, type Provider as PriceProvider } from "@pydantic/genai-prices";
import { z } from "zod";
import { ConfigError, InvalidInputFileError } from "../core/errors.js";
import { parseJsonFile, readInputText, validateInputFile } from "../formats/json-file.js";

/** USD per million tokens, with genai-prices' key names. Cache rates default to the input rate. */
export const ModelPriceSchema = z.strictObject({
  input_mtok: z.number().nonnegative(),
  output_mtok: z.number().nonnegative(),
  cache_read_mtok: z.number().nonnegative().optional(),
  cache_write_mtok: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * The user's price override file: prices for models the table lacks (local or fine-tuned ones) or
 * prices that differ from it. A key is a full spec (`openai-compatible:llama3.1:8b`), tried first, or a
 * bare model name that applies under any provider.
 *
 * @example
 * { "models": { "openai-compatible:llama3.1:8b": { "input_mtok": 0, "output_mtok": 0 },
 *               "gpt-4o": { "input_mtok": 2.5, "output_mtok": 10, "cache_read_mtok": 1.25 } } }
 */
export const PriceOverridesSchema = z.strictObject({
  models: z.record(z.string().min(1), ModelPriceSchema),
});
export type PriceOverrides = z.infer<typeof PriceOverridesSchema>;

const PRICES_HINT =
  'write {"models": {"<provider>:<model>": {"input_mtok": 1, "output_mtok": 2}}} (USD per million tokens)';

export function loadPriceOverrides(file: string): PriceOverrides {
  let text: string;
  try {
    text = readInputText(file, PRICES_HINT);
  } catch (error) {
    if (error instanceof InvalidInputFileError) throw error;
    throw new ConfigError(
      `price override file ${file} cannot be read (${error instanceof Error ? error.message : String(error)}); ` +
        `check the path`,
    );
  }
  return validateInputFile(PriceOverridesSchema, parseJsonFile(text, file, PRICES_HINT), file, PRICES_HINT);
}

export interface TokenUsage {
  /** All prompt tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** Where the price table should look a model up: a known provider id, or the API base URL it was called at. */
export interface PriceLookup {
  providerId?: string;
  providerApiUrl?: string;
}

/**
 * USD cost of one call, or null when neither the override file nor the genai-prices table knows the
 * model — an unknown price must never read as free.
 */
export function callCost(input: {
  provider: string;
  model: string;
  usage: TokenUsage;
  lookup: PriceLookup;
  overrides?: PriceOverrides;
  /** Prices can change over time; the table picks the price in force at this instant. */
  at?: Date;
}): number | null {
  return priceCalculation(input)?.total_price ?? null;
}

/** genai-prices' calculation for one call (override first, then the table), or null when unpriced. */
function priceCalculation(input: {
  provider: string;
  model: string;
  usage: TokenUsage;
  lookup: PriceLookup;
  overrides?: PriceOverrides;
  at?: Date;
}): PriceCalculation | null {
  const { provider, model, lookup, overrides } = input;
  const usage = {
    input_tokens: input.usage.inputTokens,
    output_tokens: input.usage.outputTokens,
    cache_read_tokens: input.usage.cacheReadTokens,
    cache_write_tokens: input.usage.cacheWriteTokens,
  };
  const override = overrides?.models[`${provider}:${model}`] ?? overrides?.models[model];
  try {
    if (override) {
      return calcPrice(usage, model, { provider: overrideProvider(model, override), timestamp: input.at });
    }
    if (lookup.providerId === undefined && lookup.providerApiUrl === undefined) return null;
    return calcPrice(usage, model, {
      ...(lookup.providerId !== undefined ? { providerId: lookup.providerId } : {}),
      ...(lookup.providerApiUrl !== undefined ? { providerApiUrl: lookup.providerApiUrl } : {}),
      timestamp: input.at,
    });
  } catch {
    // The table throws on inconsistent usage (e.g. more cached than total tokens): price unknown.
    return null;
  }
}

/** The rates one model is priced at, as `passk models --model` shows them. */
export interface ModelPricing {
  /** `override` (the price override file) or `table` (genai-prices). */
  source: "override" | "table";
  /** The price table's names for the provider and the model the spec matched. */
  tableProvider: string;
  tableModel: string;
  /** USD per million tokens, in force at the given instant (cached rates are what a cached token costs). */
  inputMtok: number;
  outputMtok: number;
  cacheReadMtok: number;
  cacheWriteMtok: number;
}

/**
 * What `callCost` would charge per million tokens for a model at an instant, or null when the model has
 * no price. Rates are measured on a small call (a thousand tokens), below any long-context tier.
 */
export function modelPricing(input: {
  provider: string;
  model: string;
  lookup: PriceLookup;
  overrides?: PriceOverrides;
  at?: Date;
}): ModelPricing | null {
  const per = (usage: TokenUsage) => priceCalculation({ ...input, usage });
  const input1k = per({ inputTokens: 1000, outputTokens: 0 });
  const output1k = per({ inputTokens: 0, outputTokens: 1000 });
  if (input1k === null || output1k === null) return null;
  const cacheRead1k = per({ inputTokens: 1000, outputTokens: 0, cacheReadTokens: 1000 });
  const cacheWrite1k = per({ inputTokens: 1000, outputTokens: 0, cacheWriteTokens: 1000 });
  const mtok = (calculation: PriceCalculation | null, fallback: number) =>
    calculation === null ? fallback : Math.round(calculation.total_price * 1000 * 1e9) / 1e9;
  const inputMtok = mtok(input1k, 0);
  const overridden =
    input.overrides?.models[`${input.provider}:${input.model}`] ?? input.overrides?.models[input.model];
  return {
    source: overridden ? "override" : "table",
    tableProvider: input1k.provider.id,
    tableModel: input1k.model.id,
    inputMtok,
    outputMtok: mtok(output1k, 0),
    cacheReadMtok: mtok(cacheRead1k, inputMtok),
    cacheWriteMtok: mtok(cacheWrite1k, inputMtok),
  };
}

/**
 * Whether `callCost` can price this model at all: the override file or the table knows it. The answer
 * depends on neither usage nor time, so a model asks once and, when it is no, skips the table's lookup
 * (a regular expression per provider for base-URL lookups) on every call.
 */
export function isPriced(input: {
  provider: string;
  model: string;
  lookup: PriceLookup;
  overrides?: PriceOverrides;
}): boolean {
  return callCost({ ...input, usage: { inputTokens: 0, outputTokens: 0 } }) !== null;
}

/** A one-model provider in genai-prices' format, so overrides follow the table's cache arithmetic. */
function overrideProvider(model: string, price: ModelPrice): PriceProvider {
  return {
    id: "passk-override",
    name: "passk price override",
    api_pattern: ".*",
    models: [
      {
        id: model,
        match: { equals: model },
        prices: {
          input_mtok: price.input_mtok,
          output_mtok: price.output_mtok,
          cache_read_mtok: price.cache_read_mtok ?? price.input_mtok,
          cache_write_mtok: price.cache_write_mtok ?? price.input_mtok,
        },
      },
    ],
  };
}
