import { describe, expect, it } from "vitest";
import type { LanguageModel, LlmResponse } from "../core/llm.js";
import { fixtureDomainData, tau2DataDir } from "../testing/tau2-fixtures.js";
import { mulawDecode } from "./audio.js";
import { WIRE_SILENCE, type SpeechInsert } from "./call.js";
import { createCallerLine } from "./effects/caller-line.js";
import { SpeechInsertScheduler } from "./effects/speech-inserts.js";
import type { SpeechModel } from "./speech-models.js";
import { llmVoiceCustomer, readVoiceGuidelines, type VoiceCustomerTick } from "./voice-customer.js";
import { loadTasksVoice, voiceSettingsFor, type VoiceSettings } from "./voice-settings.js";

// The voice customer's vocal tics and side remarks on a synthetic call (a silent agent, a customer that
// says the same long sentence whenever its turn comes): where the task's settings enable them, tics
// inside utterances and off-turn inserts while the caller is silent, at the ticks the seeded draws
// put them, recorded as the reference records them; under `control`, none.

const task = fixtureDomainData("airline").task("11");
const TICK = 0.2;
const SEED = 7;
const TICKS = 900;
const SAYS = "I would like to change the flights of my reservation to a later date please.";

/** 16 kHz speech, 50 ms per character: a 500 Hz tone with a 3 kHz one on top (muffling takes the latter). */
const speech: SpeechModel & { said: string[] } = {
  spec: "fake:tts",
  provider: "fake",
  model: "tts",
  voice: "plain",
  said: [],
  async speak(text) {
    speech.said.push(text);
    const samples = Int16Array.from(
      { length: Math.round(text.length * 0.05 * 16000) },
      (_, n) =>
        3000 * Math.sin((2 * Math.PI * 500 * n) / 16000) + 3000 * Math.sin((2 * Math.PI * 3000 * n) / 16000),
    );
    return { samples, sampleRate: 16000 };
  },
};

const model: LanguageModel = {
  spec: "fake:customer",
  async generate(): Promise<LlmResponse> {
    return { text: SAYS, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 }, cost: 0 };
  },
};

/**
 * The task's settings at `complexity`, on a clean line (no noise, bursts, drops, muffling or telephone
 * band: silence stays digital silence) at `rate` inserts a minute.
 */
function settingsAt(complexity: string, rate?: number): VoiceSettings {
  const settings = structuredClone(
    voiceSettingsFor(loadTasksVoice(tau2DataDir(), "airline"), task.id, complexity),
  );
  settings.source_effects_config.enable_background_noise = false;
  settings.source_effects_config.enable_burst_noise = false;
  settings.channel_effects_config.enable_frame_drops = false;
  settings.speech_effects_config.enable_dynamic_muffling = false;
  settings.telephony_enabled = false;
  if (rate !== undefined) settings.speech_effects_config.speech_insert_events_per_minute = rate;
  return settings;
}

async function call(settings: VoiceSettings) {
  speech.said = [];
  const line = createCallerLine(settings, { background: null, bursts: [], substitutions: [] }, SEED);
  const customer = llmVoiceCustomer({
    model,
    speech,
    guidelines: readVoiceGuidelines(tau2DataDir()),
    line,
    speechEffects: settings.speech_effects_config,
  });
  await customer.start({ task, scenario: task.user_scenario, tools: [], seed: SEED, tickSeconds: TICK });
  const ticks: VoiceCustomerTick[] = [];
  for (let i = 0; i < TICKS; i++)
    ticks.push(await customer.tick({ agent: { text: "", containsSpeech: false }, toolResults: [] }));
  return { ticks, events: line.effectTimeline!().events, said: [...speech.said] };
}

/** Amplitude of `frequency` in 8 kHz samples. */
function amplitudeAt(samples: Int16Array, frequency: number): number {
  const w = (2 * Math.PI * frequency) / 8000;
  let s = 0;
  let c = 0;
  for (let i = 0; i < samples.length; i++) {
    s += samples[i]! * Math.sin(w * i);
    c += samples[i]! * Math.cos(w * i);
  }
  return (2 * Math.hypot(s, c)) / samples.length;
}

const isSilence = (wire: Uint8Array) => wire.every((b) => b === WIRE_SILENCE);

describe("the voice customer's speech inserts", () => {
  it("with the settings' inserts on: tics inside utterances and off-turn inserts at the seeded ticks, recorded as the reference does", async () => {
    // 30 a minute (`regular` has 0.7): plenty in a 3-minute call.
    const settings = settingsAt("regular", 30);
    const config = settings.speech_effects_config;
    expect(config.enable_vocal_tics && config.enable_non_directed_phrases).toBe(true);
    const { ticks, events, said } = await call(settings);

    // The draws of a scheduler with the call's seed: one per utterance, one per silent tick (the
    // customer never stops here, so every silent tick may start one).
    const expected = new SpeechInsertScheduler(config, SEED);
    const utterances = new Map<string, VoiceCustomerTick[]>();
    for (const tick of ticks)
      if (tick.chunk.contains_speech) {
        const id = tick.chunk.utterance_ids![0]!;
        utterances.set(id, [...(utterances.get(id) ?? []), tick]);
      }
    expect(utterances.size).toBeGreaterThan(5);
    let tics = 0;
    for (const chunks of utterances.values()) {
      const { text, insert } = expected.forUtterance(SAYS);
      // Every chunk of the utterance carries its tic; the words spoken hold it between two words.
      expect(chunks.map((t) => t.chunk.speech_effects?.speech_insert ?? null)).toEqual(
        chunks.map(() => insert),
      );
      expect(chunks.map((t) => t.chunk.content).join("")).toBe(text);
      if (insert) {
        tics++;
        expect(insert.type).toBe("vocal_tic");
        expect(text).not.toBe(SAYS);
        expect(said).toContain(text);
      }
      expect(chunks.every((t) => t.chunk.source_effects === null)).toBe(true);
    }
    expect(tics).toBeGreaterThan(0);

    const started: { tick: number; insert: SpeechInsert }[] = [];
    ticks.forEach((tick, i) => {
      if (tick.chunk.contains_speech) return;
      const insert = expected.duringSilence(TICK);
      expect(tick.chunk.source_effects?.speech_insert ?? null).toEqual(insert);
      expect(tick.chunk.speech_effects).toBeNull();
      if (insert) started.push({ tick: i, insert });
    });
    expect(new Set(started.map((s) => s.insert.type))).toEqual(new Set(["vocal_tic", "non_directed_phrase"]));

    // The timeline: one out-of-turn event per insert, from its tick until its audio ends, the next insert
    // starts, or the caller speaks; the wire carries sound exactly then.
    expect(events.map((e) => [e.effect_type, e.start_ms, e.params])).toEqual(
      started.map((s) => ["out_of_turn_speech", s.tick * 200, { type: s.insert.type, text: s.insert.text }]),
    );
    let cut = 0;
    let whole = 0;
    started.forEach(({ tick, insert }, k) => {
      const event = events[k]!;
      const ms = insert.text.length * 50;
      const firstSpeech = ticks.findIndex((t, i) => i > tick && t.chunk.contains_speech);
      const endMs = Math.min(
        tick * 200 + ms,
        started[k + 1] ? started[k + 1]!.tick * 200 : Infinity,
        firstSpeech >= 0 ? firstSpeech * 200 : TICKS * 200,
      );
      expect(event.end_ms).toBe(endMs);
      expect(event.duration_ms).toBe(endMs - tick * 200);
      if (endMs === tick * 200 + ms) whole++;
      else if (firstSpeech >= 0 && endMs === firstSpeech * 200) cut++;
    });
    expect(whole).toBeGreaterThan(0);
    expect(cut).toBeGreaterThan(0);
    ticks.forEach((tick, i) => {
      if (tick.chunk.contains_speech) return;
      const playing = events.some((e) => e.start_ms <= i * 200 && e.end_ms! > i * 200);
      expect(isSilence(tick.wire), `tick ${i}`).toBe(!playing);
    });

    // A remark not meant for the agent is said away from the phone: its 3 kHz tone muffled well under
    // its 500 Hz one; a tic is said into the phone, both as loud.
    const first = (type: SpeechInsert["type"]) => {
      const k = started.findIndex((x, k) => x.insert.type === type && events[k]!.duration_ms! >= 400);
      return mulawDecode(ticks[started[k]!.tick + 1]!.wire);
    };
    const phrase = first("non_directed_phrase");
    const tic = first("vocal_tic");
    expect(amplitudeAt(phrase, 3000) / amplitudeAt(phrase, 500)).toBeLessThan(0.2);
    expect(amplitudeAt(tic, 3000) / amplitudeAt(tic, 500)).toBeGreaterThan(0.7);

    // Each insert is synthesised once in a call, and its speech is priced on the tick that synthesised it.
    for (const text of new Set(started.map((s) => s.insert.text)))
      expect(said.filter((t) => t === text)).toHaveLength(1);
    const firstOfEach = started.filter(
      (s, k) => started.findIndex((x) => x.insert.text === s.insert.text) === k,
    );
    for (const s of firstOfEach)
      expect(ticks[s.tick]!.chunk.usage).toMatchObject({ tts_characters: s.insert.text.length });

    // The same seed, the same call.
    const again = await call(settings);
    expect(again.ticks.map((t) => Buffer.from(t.wire).toString("base64"))).toEqual(
      ticks.map((t) => Buffer.from(t.wire).toString("base64")),
    );
    expect(again.events).toEqual(events);
  }, 60_000);

  it("under `control` (inserts off in the task's settings): none, however high the rate", async () => {
    const settings = settingsAt("control", 30);
    const config = settings.speech_effects_config;
    expect(config.enable_vocal_tics || config.enable_non_directed_phrases).toBe(false);
    const { ticks, events, said } = await call(settings);
    expect(ticks.some((t) => t.chunk.contains_speech)).toBe(true);
    expect(ticks.every((t) => (t.chunk.speech_effects?.speech_insert ?? null) === null)).toBe(true);
    expect(ticks.every((t) => t.chunk.source_effects === null)).toBe(true);
    expect(events).toEqual([]);
    expect(new Set(said)).toEqual(new Set([SAYS]));
    expect(ticks.filter((t) => !t.chunk.contains_speech).every((t) => isSilence(t.wire))).toBe(true);
  }, 60_000);
});
