import { calcPrice, type PriceCalculation, type Provider as PriceProvider } from "@pydantic/genai-prices";
import { z } from "zod";
import { ConfigError, InvalidInputFileError } from "../core/errors.js";
import { parseJsonFile, readInputText, validateInputFile } from "../core/json-file.js";

/**
 * USD per million tokens, with genai-prices' key names. Cache rates default to the input rate. Audio
 * models add their audio rates, also the table's names: audio tokens (`input_audio_mtok`,
 * `output_audio_mtok`, `cache_audio_read_mtok`), audio time (`input_audio_hours` for transcription and
 * per-minute realtime agents, `output_audio_hours` for speech: USD per hour) and characters spoken
 * (`input_mchars`: USD per million characters).
 */
export const ModelPriceSchema = z
  .strictObject({
    input_mtok: z.number().nonnegative().optional(),
    output_mtok: z.number().nonnegative().optional(),
    cache_read_mtok: z.number().nonnegative().optional(),
    cache_write_mtok: z.number().nonnegative().optional(),
    input_audio_mtok: z.number().nonnegative().optional(),
    output_audio_mtok: z.number().nonnegative().optional(),
    cache_audio_read_mtok: z.number().nonnegative().optional(),
    input_audio_hours: z.number().nonnegative().optional(),
    output_audio_hours: z.number().nonnegative().optional(),
    input_mchars: z.number().nonnegative().optional(),
    /**
     * USD per minute of a realtime session, for voice agents billed by the session's time rather than
     * its tokens (xAI's voice agent API bills per minute of connection).
     */
    realtime_minutes: z.number().nonnegative().optional(),
  })
  .superRefine((price, context) => {
    // Token rates are required but for a voice agent priced by the minute alone.
    if (price.realtime_minutes !== undefined) return;
    for (const key of ["input_mtok", "output_mtok"] as const)
      if (price[key] === undefined)
        context.addIssue({
          code: "custom",
          path: [key],
          message: `${key} is required (USD per million tokens), unless realtime_minutes prices a voice agent by the minute`,
        });
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
  /** All prompt tokens, cached ones and audio ones included. */
  inputTokens: number;
  /** All output tokens, audio ones included. */
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Audio tokens among `inputTokens` (realtime speech-to-speech models). */
  inputAudioTokens?: number;
  /** Audio tokens among `outputTokens`. */
  outputAudioTokens?: number;
  /** Audio tokens among `cacheReadTokens`. */
  cacheAudioReadTokens?: number;
  /** Seconds of audio billed by time on the way in (transcription, per-minute realtime agents). */
  inputAudioSeconds?: number;
  /** Seconds of audio billed by time on the way out (speech models priced per minute). */
  outputAudioSeconds?: number;
  /** Characters billed (speech models priced per character). */
  inputCharacters?: number;
}

/** A priced call, or why it has no price (never a silent 0). */
export type PricedUsage = { cost: number } | { cost: null; reason: string };

/** The usage meters that need a rate of their own (the price key that rates each, in the table's names). */
const METERED = [
  ["inputAudioTokens", "input_audio_mtok", "audio input tokens"],
  ["outputAudioTokens", "output_audio_mtok", "audio output tokens"],
  ["inputAudioSeconds", "input_audio_hours", "audio input time"],
  ["outputAudioSeconds", "output_audio_hours", "audio output time"],
  ["inputCharacters", "input_mchars", "characters"],
] as const;

/**
 * Per-minute prices of realtime voice agents billed by session time, which the price table (per token)
 * lacks: USD per minute, by `provider:model`.
 */
const REALTIME_MINUTE_PRICES: Readonly<Record<string, number>> = {
  // xAI's Voice Agent API, "billed at a flat rate per minute of connection time": $0.05/min ($3.00/hr)
  // (docs.x.ai/developers/models/voice-agent-api).
  "xai:grok-voice-think-fast-1.0": 0.05,
  // $4.80/hr as listed for it on Vercel's AI Gateway (xAI's own model page lists no rate), as in τ²-bench's table.
  "xai:grok-voice-think-fast-2.0": 0.08,
};

/**
 * USD for the minutes of a realtime session billed by time (`realtime_minutes`: the override file,
 * else passk's per-minute table), pro rata to the second; or why it has no price — never 0.
 */
export function priceRealtimeMinutes(input: {
  provider: string;
  model: string;
  seconds: number;
  overrides?: PriceOverrides;
}): PricedUsage {
  const spec = `${input.provider}:${input.model}`;
  const rate =
    input.overrides?.models[spec]?.realtime_minutes ??
    input.overrides?.models[input.model]?.realtime_minutes ??
    REALTIME_MINUTE_PRICES[spec];
  if (rate === undefined)
    return {
      cost: null,
      reason: `${spec} is billed per minute of session and passk has no per-minute price for it (set "realtime_minutes" for it in --prices FILE)`,
    };
  return { cost: (input.seconds / 60) * rate };
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

/**
 * USD cost of one metered use, or the reason it has none: the model is in neither the override file
 * nor the table, or the model's price has no rate for a meter the use has (audio tokens priced only as
 * text, seconds of a model priced by the token): an unknown price is never read as 0.
 */
export function priceUsage(input: {
  provider: string;
  model: string;
  usage: TokenUsage;
  lookup: PriceLookup;
  overrides?: PriceOverrides;
  at?: Date;
}): PricedUsage {
  const calculation = tableCalculation(input);
  const spec = `${input.provider}:${input.model}`;
  if (calculation === null)
    return { cost: null, reason: `${spec} is not in the price table (pass --prices FILE)` };
  const missing = METERED.filter(
    ([meter, key]) => (input.usage[meter] ?? 0) > 0 && !hasRate(calculation.model_price, key),
  ).map(([, key, what]) => `${what} (${key})`);
  if (missing.length > 0)
    return {
      cost: null,
      reason: `${spec} has no price for its ${missing.join(", ")} in the price table (pass --prices FILE)`,
    };
  return { cost: calculation.total_price };
}

function hasRate(prices: Record<string, unknown>, key: string): boolean {
  if (prices[key] !== undefined) return true;
  // The table prices time by the hour of audio, input and output under one ancestor.
  return (key === "input_audio_hours" || key === "output_audio_hours") && prices.audio_hours !== undefined;
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
  const calculation = tableCalculation(input);
  if (calculation === null) return null;
  // A meter the model has no rate for would be charged nothing: the call has no price.
  if (METERED.some(([meter, key]) => (input.usage[meter] ?? 0) > 0 && !hasRate(calculation.model_price, key)))
    return null;
  return calculation;
}

/** genai-prices' calculation for one call (override first, then the table), or null when unknown. */
function tableCalculation(input: {
  provider: string;
  model: string;
  usage: TokenUsage;
  lookup: PriceLookup;
  overrides?: PriceOverrides;
  at?: Date;
}): PriceCalculation | null {
  const { provider, model, lookup, overrides } = input;
  const seconds = (input.usage.inputAudioSeconds ?? 0) + (input.usage.outputAudioSeconds ?? 0);
  const usage = {
    input_tokens: input.usage.inputTokens,
    output_tokens: input.usage.outputTokens,
    cache_read_tokens: input.usage.cacheReadTokens,
    cache_write_tokens: input.usage.cacheWriteTokens,
    input_audio_tokens: input.usage.inputAudioTokens,
    output_audio_tokens: input.usage.outputAudioTokens,
    cache_audio_read_tokens: input.usage.cacheAudioReadTokens,
    // The table's time meters nest under `audio_seconds`.
    audio_seconds: seconds > 0 ? seconds : undefined,
    input_audio_seconds: input.usage.inputAudioSeconds,
    output_audio_seconds: input.usage.outputAudioSeconds,
    input_characters: input.usage.inputCharacters,
  };
  const given = overrides?.models[`${provider}:${model}`] ?? overrides?.models[model];
  // A per-minute price alone (`realtime_minutes`) says nothing of tokens: they stay the table's.
  const override = given?.input_mtok !== undefined ? given : undefined;
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
          // A per-minute voice agent's tokens are in its minute rate.
          input_mtok: price.input_mtok ?? 0,
          output_mtok: price.output_mtok ?? 0,
          cache_read_mtok: price.cache_read_mtok ?? price.input_mtok ?? 0,
          cache_write_mtok: price.cache_write_mtok ?? price.input_mtok ?? 0,
          input_audio_mtok: price.input_audio_mtok,
          output_audio_mtok: price.output_audio_mtok,
          // Cached audio at the audio input rate unless a cached audio rate is given.
          cache_audio_read_mtok: price.cache_audio_read_mtok ?? price.input_audio_mtok,
          // The table needs a rate for audio written to a cache once audio and cache writes are priced.
          cache_audio_write_mtok: price.input_audio_mtok,
          input_audio_hours: price.input_audio_hours,
          output_audio_hours: price.output_audio_hours,
          // The table nests both time meters under one ancestor rate.
          audio_hours: price.input_audio_hours ?? price.output_audio_hours,
          input_mchars: price.input_mchars,
        },
      },
    ],
  };
}
