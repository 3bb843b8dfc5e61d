import { describe, expect, it } from "vitest";
import { mulawDecode, mulawEncode, rms } from "../src/voice/audio.js";
import { WIRE_SILENCE, type CallerLineTick, type CallerSpeechState } from "../src/voice/call.js";
import { createCallerLine } from "../src/voice/effects/caller-line.js";
import type { CallerNoise } from "../src/voice/effects/noise.js";
import { muffleAwayFromPhone } from "../src/voice/effects/muffling.js";
import { SpeechInsertScheduler } from "../src/voice/effects/speech-inserts.js";
import type { VoiceSettings } from "../src/voice/voice-settings.js";
import { amplitudeAt, db, tone } from "./helpers/tones.js";
import { quietSettings, settingsWith, whiteNoise } from "./helpers/voice-settings.js";

const TICK = 1600; // 0.2 s at 8 kHz
const NO_NOISE: CallerNoise = { background: null, bursts: [], substitutions: [] };
const SILENT: CallerSpeechState = { speaking: false, utteranceStart: false };

/** Run `ticks` ticks of `speech` (cut into ticks, repeated) through a line; the wire decoded and every tick. */
function call(
  settings: VoiceSettings,
  noise: CallerNoise,
  seed: number,
  ticks: number,
  speech: Int16Array = new Int16Array(TICK),
  state: (tick: number) => CallerSpeechState = () => SILENT,
): { pcm: Int16Array; wire: Uint8Array; ticks: CallerLineTick[] } {
  const line = createCallerLine(settings, noise, seed);
  const wire = new Uint8Array(ticks * TICK);
  const out: CallerLineTick[] = [];
  for (let t = 0; t < ticks; t++) {
    const from = (t * TICK) % speech.length;
    const tick = line.tick(speech.subarray(from, from + TICK), state(t));
    expect(tick.wire.length).toBe(TICK);
    wire.set(tick.wire, t * TICK);
    out.push(tick);
  }
  return {
    wire,
    ticks: out,
    get pcm() {
      return mulawDecode(wire);
    },
  };
}

/** What is left of `samples` once their best-fitting sinusoid at `frequency` is taken out. */
function residualAfterTone(samples: Int16Array, frequency: number): Float64Array {
  const w = (2 * Math.PI * frequency) / 8000;
  let s = 0;
  let c = 0;
  for (let i = 0; i < samples.length; i++) {
    s += samples[i]! * Math.sin(w * i);
    c += samples[i]! * Math.cos(w * i);
  }
  const [a, b] = [(2 * s) / samples.length, (2 * c) / samples.length];
  return Float64Array.from(samples, (x, i) => x - a * Math.sin(w * i) - b * Math.cos(w * i));
}

describe("the caller's line", () => {
  it("with `control` settings (telephone band, nothing else) leaves a tone intact but for μ-law and the headroom", () => {
    const control = settingsWith((s) => (s.telephony_enabled = true));
    const input = tone(1000, 8000, 1, 8000);
    const speaking = (t: number) => ({ speaking: true, utteranceStart: t === 0 });
    const { pcm, ticks } = call(control, NO_NOISE, 1, 25, input, speaking);
    const settled = pcm.subarray(TICK); // after the filter's first tick
    expect(db(amplitudeAt(settled, 1000, 8000) / (0.9 * 8000))).toBeGreaterThan(-0.3);
    expect(db(amplitudeAt(settled, 1000, 8000) / (0.9 * 8000))).toBeLessThan(0.3);
    // What is not the tone is μ-law's quantisation noise: as much as encoding the tone alone leaves.
    const alone = mulawDecode(mulawEncode(Int16Array.from(input, (x) => Math.round(0.9 * x))));
    const quantisation = rms(residualAfterTone(alone, 1000));
    expect(rms(residualAfterTone(settled, 1000))).toBeLessThan(1.5 * quantisation);
    for (const tick of ticks) {
      expect(tick.speechEffects).toEqual({ dynamic_muffling_enabled: false, speech_insert: null });
      expect(tick.sourceEffects).toBeNull();
      expect(tick.channelEffects).toBeNull();
    }
    // Silence stays digital silence.
    const quiet = call(control, NO_NOISE, 1, 5);
    expect(quiet.wire.every((b) => b === WIRE_SILENCE)).toBe(true);
    expect(quiet.ticks.every((t) => t.speechEffects === null)).toBe(true);
  });

  it("passes the telephone band (300–3400 Hz) and attenuates 100 Hz and 3.9 kHz", () => {
    const band = settingsWith((s) => (s.telephony_enabled = true));
    const level = (settings: VoiceSettings, frequency: number) => {
      const { pcm } = call(settings, NO_NOISE, 1, 10, tone(frequency, 8000, 2, 10000), () => ({
        speaking: true,
        utteranceStart: false,
      }));
      return amplitudeAt(pcm.subarray(2 * TICK), frequency, 8000);
    };
    const passband = level(band, 1000);
    expect(db(level(band, 100) / passband)).toBeLessThan(-30);
    expect(db(level(band, 3900) / passband)).toBeLessThan(-30);
    expect(db(level(band, 500) / passband)).toBeGreaterThan(-1);
    expect(db(level(band, 3000) / passband)).toBeGreaterThan(-1);
    // Without telephony the band is not applied.
    const open = quietSettings();
    expect(db(level(open, 100) / level(open, 1000))).toBeGreaterThan(-0.5);
  });

  it("mixes the background noise at `noise_snr_db` under the nominal speech level, drifting by `noise_snr_drift_db`", () => {
    const background = whiteNoise("white.wav", 7);
    const noise: CallerNoise = { background, bursts: [], substitutions: [] };
    for (const snr of [5, 15, 25]) {
      const steady = settingsWith((s) => {
        s.source_effects_config.enable_background_noise = true;
        s.source_effects_config.noise_snr_db = snr;
      });
      const { pcm } = call(steady, noise, 3, 100);
      expect(Math.abs(db(3000 / rms(pcm)) - snr), `SNR ${snr}`).toBeLessThan(1.5);
    }
    const drifting = settingsWith((s) => {
      s.source_effects_config.enable_background_noise = true;
      s.source_effects_config.noise_snr_drift_db = 3;
      s.source_effects_config.noise_variation_speed = 0.5;
    });
    const { pcm } = call(drifting, noise, 3, 3000); // ten minutes
    expect(Math.abs(db(3000 / rms(pcm)) - 15)).toBeLessThan(1.5);
    const perTick: number[] = [];
    for (let t = 0; t < 3000; t++) perTick.push(db(3000 / rms(pcm.subarray(t * TICK, (t + 1) * TICK))));
    expect(Math.max(...perTick) - Math.min(...perTick)).toBeGreaterThan(4.5);
    expect(Math.min(...perTick)).toBeGreaterThan(15 - 3 - 0.5);
    expect(Math.max(...perTick)).toBeLessThan(15 + 3 + 0.5);
  });

  it("plays Poisson bursts at `burst_noise_events_per_minute`, one at a time, at SNRs within the range, reported when they start", () => {
    const clips = [whiteNoise("a.wav", 1, 1), whiteNoise("b.wav", 1, 2)];
    const settings = settingsWith((s) => {
      s.source_effects_config.enable_burst_noise = true;
      s.source_effects_config.burst_noise_events_per_minute = 2;
      s.source_effects_config.burst_snr_range_db = [-5, 10];
    });
    const minutes = 60;
    const { pcm, ticks } = call(
      settings,
      { background: null, bursts: clips, substitutions: [] },
      5,
      minutes * 300,
    );
    const starts = ticks.flatMap((t, i) => (t.sourceEffects ? [i] : []));
    // Busy about 1.1 s per burst, the process fires at 2/min the rest of the time: ~118 expected, sd ~11.
    expect(starts.length).toBeGreaterThan(118 - 45);
    expect(starts.length).toBeLessThan(118 + 45);
    const names = new Set(ticks.flatMap((t) => (t.sourceEffects ? [t.sourceEffects.burst_noise_file] : [])));
    expect(names).toEqual(new Set(["a.wav", "b.wav"]));
    // Each burst lasts its recording's second, and nothing sounds between bursts.
    for (let k = 0; k < starts.length; k++) {
      const at = starts[k]! * TICK;
      const next = k + 1 < starts.length ? starts[k + 1]! * TICK : pcm.length;
      expect(next - at).toBeGreaterThanOrEqual(8000);
      const burst = pcm.subarray(at, at + 2 * TICK + 8000).filter((x) => x !== 0);
      const snr = db(3000 / rms(burst));
      expect(snr).toBeGreaterThan(-5 - 1);
      expect(snr).toBeLessThan(10 + 1);
      expect(pcm.subarray(at + 8000 + 2 * TICK, next).every((x) => x === 0)).toBe(true);
    }
  });

  it("loses `frame_drop_rate` of the audio in bursts (Gilbert–Elliott), as silence, keeping the timing", () => {
    const settings = settingsWith((s) => {
      s.channel_effects_config.enable_frame_drops = true;
      s.channel_effects_config.frame_drop_rate = 0.02;
      s.channel_effects_config.frame_drop_burst_duration_ms = 100;
    });
    const speech = new Int16Array(TICK).fill(5000); // never encodes to silence
    const { wire, ticks } = call(settings, NO_NOISE, 9, 60 * 300, speech);
    let lost = 0;
    for (let i = 0; i < wire.length; i++) if (wire[i] === WIRE_SILENCE) lost++;
    expect(lost / wire.length).toBeGreaterThan(0.014);
    expect(lost / wire.length).toBeLessThan(0.026);
    const reported = ticks.reduce((ms, t) => ms + (t.channelEffects?.frame_drop_ms ?? 0), 0);
    expect(reported).toBe(lost / 8);
    for (const t of ticks)
      if (t.channelEffects) expect(t.channelEffects.frame_drops_enabled).toBe(true);
      else expect(t.wire.includes(WIRE_SILENCE)).toBe(false);
    // Bursty: runs of lost audio average about the burst duration (independent 20 ms losses would give ~20 ms).
    const runs: number[] = [];
    let run = 0;
    for (let i = 0; i < wire.length; i++) {
      if (wire[i] === WIRE_SILENCE) run++;
      else if (run > 0) {
        runs.push(run);
        run = 0;
      }
    }
    const meanRunMs = runs.reduce((a, b) => a + b, 0) / runs.length / 8;
    expect(meanRunMs).toBeGreaterThan(70);
    expect(meanRunMs).toBeLessThan(140);
    expect(runs.every((r) => r % 160 === 0)).toBe(true); // whole 20 ms frames
  });

  it("muffles utterances with `muffle_probability`, low-passing a stretch of them, reported on every speaking tick", () => {
    const settings = (probability: number) =>
      settingsWith((s) => {
        s.speech_effects_config.enable_dynamic_muffling = true;
        s.speech_effects_config.muffle_probability = probability;
      });
    const speech = tone(3000, 8000, 0.2, 8000);
    // Utterances of 3 s (15 ticks) with 1 s of silence between.
    const state = (t: number) => ({ speaking: t % 20 < 15, utteranceStart: t % 20 === 0 });
    const always = call(settings(1), NO_NOISE, 4, 40, speech, state);
    const perTenth = (pcm: Int16Array, from: number) =>
      Array.from({ length: 30 }, (_, k) =>
        amplitudeAt(pcm.subarray(from + k * 800, from + (k + 1) * 800), 3000, 8000),
      );
    const levels = perTenth(always.pcm, 0);
    expect(db(Math.min(...levels) / Math.max(...levels))).toBeLessThan(-15);
    expect(
      always.ticks
        .filter((t, i) => state(i).speaking)
        .every((t) => t.speechEffects?.dynamic_muffling_enabled),
    ).toBe(true);
    const never = call(settings(0), NO_NOISE, 4, 40, speech, state);
    const flat = perTenth(never.pcm, 0);
    expect(db(Math.min(...flat) / Math.max(...flat))).toBeGreaterThan(-0.5);
    // Over many utterances, the muffled share is the probability.
    const many = call(settings(0.2), NO_NOISE, 4, 20 * 500, speech, state);
    const muffled = many.ticks.filter(
      (t, i) => state(i).utteranceStart && t.speechEffects?.dynamic_muffling_enabled,
    );
    expect(muffled.length / 500).toBeGreaterThan(0.14);
    expect(muffled.length / 500).toBeLessThan(0.26);
  });

  it("gives the same bytes and reports for the same seed, others for another seed", () => {
    const regular = settingsWith((s) => {
      s.telephony_enabled = true;
      Object.assign(s.source_effects_config, {
        enable_background_noise: true,
        noise_snr_drift_db: 3,
        enable_burst_noise: true,
        burst_noise_events_per_minute: 3,
      });
      Object.assign(s.speech_effects_config, { enable_dynamic_muffling: true, muffle_probability: 0.5 });
      Object.assign(s.channel_effects_config, { enable_frame_drops: true, frame_drop_rate: 0.02 });
    });
    const noise: CallerNoise = {
      background: whiteNoise("bg.wav", 5),
      bursts: [whiteNoise("b.wav", 1)],
      substitutions: [],
    };
    const speech = tone(700, 8000, 0.2, 6000);
    const state = (t: number) => ({ speaking: t % 10 < 6, utteranceStart: t % 10 === 0 });
    const first = call(regular, noise, 42, 1500, speech, state);
    const again = call(regular, noise, 42, 1500, speech, state);
    const other = call(regular, noise, 43, 1500, speech, state);
    expect(Buffer.from(again.wire).equals(Buffer.from(first.wire))).toBe(true);
    expect(again.ticks.map((t) => [t.speechEffects, t.sourceEffects, t.channelEffects])).toEqual(
      first.ticks.map((t) => [t.speechEffects, t.sourceEffects, t.channelEffects]),
    );
    expect(Buffer.from(other.wire).equals(Buffer.from(first.wire))).toBe(false);
    // Every effect was exercised.
    expect(first.ticks.some((t) => t.sourceEffects)).toBe(true);
    expect(first.ticks.some((t) => t.channelEffects)).toBe(true);
    expect(first.ticks.some((t) => t.speechEffects?.dynamic_muffling_enabled)).toBe(true);
  });
});

describe("speech inserts", () => {
  const inserts = (rate: number, ticsOn = true, phrasesOn = true) =>
    settingsWith((s) => {
      Object.assign(s.speech_effects_config, {
        enable_vocal_tics: ticsOn,
        enable_non_directed_phrases: phrasesOn,
        speech_insert_events_per_minute: rate,
      });
    }).speech_effects_config;

  it("put a vocal tic between two words of an utterance, at the reference's per-utterance chance", () => {
    const scheduler = new SpeechInsertScheduler(inserts(3), 1); // 3/min over 10 utterances/min: 0.3
    let withTic = 0;
    for (let i = 0; i < 2000; i++) {
      const { text, insert } = scheduler.forUtterance("I would like to change my flight please");
      if (insert === null) {
        expect(text).toBe("I would like to change my flight please");
        continue;
      }
      withTic++;
      expect(insert.type).toBe("vocal_tic");
      const words = text.split(" ");
      expect(words).toHaveLength(9);
      expect(words.indexOf(insert.text)).toBeGreaterThan(0);
      expect(words.filter((w) => w !== insert.text).join(" ")).toBe(
        "I would like to change my flight please",
      );
    }
    expect(withTic / 2000).toBeGreaterThan(0.26);
    expect(withTic / 2000).toBeLessThan(0.34);
    // Too short for a tic, or tics off: never.
    for (let i = 0; i < 200; i++) expect(scheduler.forUtterance("Yes please").insert).toBeNull();
    const off = new SpeechInsertScheduler(inserts(3, false), 1);
    for (let i = 0; i < 200; i++)
      expect(off.forUtterance("I would like to change my flight").insert).toBeNull();
  });

  it("offer inserts during the caller's silences as a Poisson process of `speech_insert_events_per_minute`", () => {
    const scheduler = new SpeechInsertScheduler(inserts(0.7), 2);
    const drawn = Array.from({ length: 5 * 18000 }, () => scheduler.duringSilence(0.2)).filter(
      (x) => x !== null,
    );
    // 5 hours of silence at 0.7/min: 210 expected, sd 14.5.
    expect(drawn.length).toBeGreaterThan(210 - 60);
    expect(drawn.length).toBeLessThan(210 + 60);
    expect(new Set(drawn.map((d) => d.type))).toEqual(new Set(["vocal_tic", "non_directed_phrase"]));
    const phrasesOnly = new SpeechInsertScheduler(inserts(0.7, false, true), 2);
    const phrases = Array.from({ length: 18000 }, () => phrasesOnly.duringSilence(0.2)).filter(
      (x) => x !== null,
    );
    expect(phrases.length).toBeGreaterThan(0);
    expect(phrases.every((p) => p.type === "non_directed_phrase")).toBe(true);
    const none = new SpeechInsertScheduler(inserts(0.7, false, false), 2);
    expect(Array.from({ length: 18000 }, () => none.duringSilence(0.2)).every((x) => x === null)).toBe(true);
  });

  it("are reproducible from the seed", () => {
    const draw = (seed: number) => {
      const s = new SpeechInsertScheduler(inserts(5), seed);
      return Array.from({ length: 300 }, (_, i) =>
        i % 2 ? s.forUtterance("one two three four five").text : (s.duringSilence(1)?.text ?? ""),
      );
    };
    expect(draw(8)).toEqual(draw(8));
    expect(draw(8)).not.toEqual(draw(9));
  });
});

describe("speech said away from the phone", () => {
  it("is low-passed at 1 kHz with its peak kept", () => {
    const low = tone(300, 8000, 1, 6000);
    const high = tone(3000, 8000, 1, 6000);
    const both = Int16Array.from(low, (x, i) => x + high[i]!);
    const away = muffleAwayFromPhone(both, 8000);
    const ratioBefore = amplitudeAt(both, 3000, 8000) / amplitudeAt(both, 300, 8000);
    const ratioAfter = amplitudeAt(away, 3000, 8000) / amplitudeAt(away, 300, 8000);
    expect(db(ratioAfter / ratioBefore)).toBeLessThan(-30);
    const peak = (x: Int16Array) => x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    expect(Math.abs(peak(away) - peak(both))).toBeLessThanOrEqual(1);
  });
});
