import {
  priceRealtimeMinutes,
  priceUsage,
  type PriceLookup,
  type PriceOverrides,
  type PricedUsage,
} from "../llm/cost.js";
import type { VoiceUsageRecord } from "./call.js";

// What a voice call cost: the usage each side's providers metered (audio and text tokens, audio
// seconds, characters), summed per model and priced with passk's price table (genai-prices) and the
// run's `--prices` overrides. A model or meter the table cannot price makes the side's cost unknown
// (null, with the reason) — never 0. The agent's usage is written as the reference's `agent_usage`
// (its `SessionUsage`: the summed records, the cost and its breakdown per model).

/** The reference's `UsageRecord`, summed over a call for one (component, provider, model). */
export interface SessionUsageRecord {
  provider: string;
  model: string;
  component: "realtime" | "llm" | "stt" | "tts";
  semantics: "delta";
  scope_id: null;
  tick_number: null;
  /** false for informational meters (a per-minute agent's token counts), as the reference marks them. */
  billable: boolean;
  input_tokens: number | null;
  output_tokens: number | null;
  input_text_tokens: number | null;
  input_audio_tokens: number | null;
  input_cached_tokens: number | null;
  input_cached_text_tokens: number | null;
  input_cached_audio_tokens: number | null;
  output_text_tokens: number | null;
  output_audio_tokens: number | null;
  audio_input_seconds: number | null;
  characters: number | null;
  raw: null;
}

/** The reference's `SessionUsage`: a side's usage over the call, and its cost. */
export interface SessionUsage {
  records: SessionUsageRecord[];
  /** USD, or null when any record has no price. */
  cost: number | null;
  /** USD per priced record, keyed `component:provider/model`. */
  cost_breakdown: Record<string, number> | null;
  pricing_version: string | null;
  num_raw_records: number;
}

/** A side's cost over a call: its session usage, and why the cost is unknown when it is. */
export interface VoiceSessionCost {
  usage: SessionUsage;
  cost: number | null;
  /** Why `cost` is null: each model or meter without a price, in a sentence. */
  unknown?: string;
}

/** How usage is priced: passk's price table, with the run's overrides (`--prices`). */
export interface VoicePricing {
  overrides?: PriceOverrides;
  /** The instant whose prices apply (prices change over time); default now. */
  at?: Date;
}

/** Where the table looks a provider up, by the provider of a voice spec. */
const TABLE_PROVIDERS: Record<string, string> = {
  openai: "openai",
  "openai-responses": "openai",
  azure: "azure",
  xai: "x-ai",
  gemini: "google",
  google: "google",
  anthropic: "anthropic",
};

/** Providers that run on this machine and cost nothing (espeak-ng is a local program). */
const LOCAL_PROVIDERS = new Set(["espeak-ng"]);

const COMPONENTS: Record<string, SessionUsageRecord["component"]> = {
  "openai-realtime": "realtime",
  "gemini-live": "realtime",
  transcription: "stt",
  speech: "tts",
  llm: "llm",
};

/** `provider:model` of a usage record (Gemini Live names its bare model). */
export function usageSpec(record: VoiceUsageRecord): { provider: string; model: string } {
  const colon = record.model.indexOf(":");
  if (colon > 0) return { provider: record.model.slice(0, colon), model: record.model.slice(colon + 1) };
  if (record.source === "gemini-live") return { provider: "gemini", model: record.model };
  return { provider: record.source, model: record.model };
}

/** The price of one usage record (summed or not): tokens by modality, seconds, characters. */
export function priceVoiceUsage(record: VoiceUsageRecord, pricing: VoicePricing = {}): PricedUsage {
  const { provider, model } = usageSpec(record);
  // The cascade's text agent is priced by passk's LLM layer as it answers (with the same overrides).
  if (record.cost !== undefined)
    return record.cost === null
      ? { cost: null, reason: `${record.model} is not in the price table (pass --prices FILE)` }
      : { cost: record.cost };
  if (LOCAL_PROVIDERS.has(provider)) return { cost: 0 };
  // Billed by the session's minutes: its tokens are informational.
  if (record.sessionSeconds !== undefined)
    return priceRealtimeMinutes({
      provider,
      model,
      seconds: record.sessionSeconds,
      ...(pricing.overrides ? { overrides: pricing.overrides } : {}),
    });
  const inputAudio = record.inputAudioTokens ?? 0;
  const inputText = record.inputTextTokens ?? 0;
  const cachedAudio = record.cachedInputAudioTokens ?? 0;
  const cachedText = record.cachedInputTextTokens ?? 0;
  const outputAudio = record.outputAudioTokens ?? 0;
  const seconds = record.audioSeconds ?? 0;
  const component = COMPONENTS[record.source];
  const lookup: PriceLookup = { providerId: TABLE_PROVIDERS[provider] ?? provider };
  return priceUsage({
    provider,
    model,
    lookup,
    usage: {
      inputTokens: inputAudio + inputText,
      outputTokens: outputAudio + (record.outputTextTokens ?? 0),
      ...(inputAudio > 0 ? { inputAudioTokens: inputAudio } : {}),
      ...(outputAudio > 0 ? { outputAudioTokens: outputAudio } : {}),
      ...(cachedAudio + cachedText > 0 ? { cacheReadTokens: cachedAudio + cachedText } : {}),
      ...(cachedAudio > 0 ? { cacheAudioReadTokens: cachedAudio } : {}),
      // Transcription bills the seconds it hears; speech by characters, else the seconds it speaks.
      ...(seconds > 0 && component !== "tts" ? { inputAudioSeconds: seconds } : {}),
      ...(record.characters ? { inputCharacters: record.characters } : {}),
      ...(seconds > 0 && component === "tts" && !record.characters ? { outputAudioSeconds: seconds } : {}),
    },
    ...(pricing.overrides ? { overrides: pricing.overrides } : {}),
    ...(pricing.at ? { at: pricing.at } : {}),
  });
}

/** Sum a call's usage per (component, provider, model), price each sum, and total them. */
export function voiceSessionCost(
  records: readonly VoiceUsageRecord[],
  pricing: VoicePricing = {},
): VoiceSessionCost {
  const groups = new Map<string, VoiceUsageRecord>();
  for (const record of records) {
    const key = `${record.source}\u0000${record.model}`;
    const sum = groups.get(key);
    groups.set(key, sum ? addUsage(sum, record) : { ...record });
  }
  const breakdown: Record<string, number> = {};
  const unknown: string[] = [];
  let total = 0;
  const summed: SessionUsageRecord[] = [];
  for (const record of groups.values()) {
    const written = sessionRecords(record);
    summed.push(...written);
    const priced = priceVoiceUsage(record, pricing);
    if (priced.cost === null) unknown.push(priced.reason);
    else {
      total += priced.cost;
      breakdown[`${written[0]!.component}:${written[0]!.provider}/${written[0]!.model}`] = priced.cost;
    }
  }
  const cost = unknown.length > 0 ? null : total;
  return {
    usage: {
      records: summed,
      cost,
      cost_breakdown: Object.keys(breakdown).length > 0 ? breakdown : null,
      pricing_version: null,
      num_raw_records: records.length,
    },
    cost,
    ...(unknown.length > 0 ? { unknown: [...new Set(unknown)].join("; ") } : {}),
  };
}

function addUsage(a: VoiceUsageRecord, b: VoiceUsageRecord): VoiceUsageRecord {
  const plus = (x: number | undefined, y: number | undefined) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const out: VoiceUsageRecord = { source: a.source, model: a.model };
  const keys = [
    "inputAudioTokens",
    "outputAudioTokens",
    "inputTextTokens",
    "outputTextTokens",
    "cachedInputAudioTokens",
    "cachedInputTextTokens",
    "audioSeconds",
    "sessionSeconds",
    "characters",
  ] as const;
  for (const key of keys) {
    const value = plus(a[key], b[key]);
    if (value !== undefined) out[key] = value;
  }
  if (a.cost !== undefined || b.cost !== undefined)
    out.cost = a.cost === null || b.cost === null ? null : (a.cost ?? 0) + (b.cost ?? 0);
  return out;
}

/**
 * A summed record as the reference writes it; a per-minute session as two, as the reference keeps
 * them: the session's seconds (`audio_input_seconds`, billable) and its token counts (not billable).
 */
function sessionRecords(record: VoiceUsageRecord): SessionUsageRecord[] {
  if (record.sessionSeconds === undefined) return [sessionRecord(record)];
  const { sessionSeconds, ...tokens } = record;
  const time: SessionUsageRecord = {
    ...sessionRecord({ source: record.source, model: record.model }),
    audio_input_seconds: sessionSeconds,
  };
  const counted = [
    tokens.inputAudioTokens,
    tokens.inputTextTokens,
    tokens.outputAudioTokens,
    tokens.outputTextTokens,
  ].some((n) => n !== undefined);
  return counted ? [time, { ...sessionRecord(tokens), billable: false }] : [time];
}

function sessionRecord(record: VoiceUsageRecord): SessionUsageRecord {
  const { provider, model } = usageSpec(record);
  const some = (...values: (number | undefined)[]) =>
    values.every((v) => v === undefined) ? null : values.reduce<number>((s, v) => s + (v ?? 0), 0);
  return {
    provider,
    model,
    component: COMPONENTS[record.source] ?? "realtime",
    semantics: "delta",
    scope_id: null,
    tick_number: null,
    billable: true,
    input_tokens: some(record.inputTextTokens, record.inputAudioTokens),
    output_tokens: some(record.outputTextTokens, record.outputAudioTokens),
    input_text_tokens: record.inputTextTokens ?? null,
    input_audio_tokens: record.inputAudioTokens ?? null,
    input_cached_tokens: some(record.cachedInputTextTokens, record.cachedInputAudioTokens),
    input_cached_text_tokens: record.cachedInputTextTokens ?? null,
    input_cached_audio_tokens: record.cachedInputAudioTokens ?? null,
    output_text_tokens: record.outputTextTokens ?? null,
    output_audio_tokens: record.outputAudioTokens ?? null,
    audio_input_seconds: COMPONENTS[record.source] === "tts" ? null : (record.audioSeconds ?? null),
    characters: record.characters ?? null,
    raw: null,
  };
}

/** A voice run's (or call's) cost line: each side's total, or why it is unknown. */
export function describeVoiceRunCost(cost: {
  agent: number | null;
  user: number | null;
  agentUnknown?: string | undefined;
  userUnknown?: string | undefined;
}): string {
  const side = (name: string, total: number | null, unknown: string | undefined) =>
    total !== null ? `${name} $${total.toFixed(4)}` : `${name} unknown (${unknown ?? "no usage"})`;
  const both =
    cost.agent !== null && cost.user !== null ? `cost $${(cost.agent + cost.user).toFixed(4)}: ` : "cost: ";
  return (
    both +
    [side("agent", cost.agent, cost.agentUnknown), side("customer", cost.user, cost.userUnknown)].join(", ")
  );
}
