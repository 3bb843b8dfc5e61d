import { clip16, mulawEncode } from "../audio.js";
import {
  WIRE_SAMPLE_RATE,
  WIRE_SILENCE,
  type CallerLine,
  type CallerLineTick,
  type CallerSpeechState,
  type EffectEvent,
  type EffectTimeline,
  type SpeechInsert,
} from "../call.js";
import type { VoiceSettings } from "../voice-settings.js";
import { BackgroundNoise } from "./background.js";
import { BurstNoise } from "./bursts.js";
import { bandpass, type Filter } from "./filters.js";
import { FrameDrops } from "./frame-drops.js";
import { DynamicMuffling } from "./muffling.js";
import type { CallerNoise } from "./noise.js";
import { randomStream } from "./random.js";

// The caller's line, tick by tick at 8 kHz, in the reference's order: the voice (muffled), the
// surroundings (background noise, bursts), the telephone channel (300–3400 Hz band, headroom, G.711
// μ-law), then frames lost on the way.

/** The telephone band (Hz) and the headroom applied after it, as in the reference. */
export const TELEPHONE_BAND = { low: 300, high: 3400 } as const;
export const TELEPHONE_HEADROOM = 0.9;

/**
 * A caller's line for a task's frozen voice settings. `noise` holds the recordings the settings name
 * (`loadCallerNoise`); `seed` fixes every random draw, so the same seed and input give the same bytes.
 * Each tick's `speech` is the caller's clean voice at 8 kHz, any length (the tick's).
 *
 * What each tick reports, as the reference's ticks do: `speechEffects` on ticks where the caller speaks
 * (`speech_insert` is null here: the voice customer knows the tics it put in its words and fills it);
 * `sourceEffects` on the tick a burst or an off-turn insert (`state.outOfTurn`) starts; `channelEffects`
 * on ticks that lost audio. An off-turn insert plays on while the caller is silent and is cut off when
 * they speak; the timeline holds it as `out_of_turn_speech` from its start to its end or cut.
 */
export function createCallerLine(settings: VoiceSettings, noise: CallerNoise, seed: number): CallerLine {
  const rate = WIRE_SAMPLE_RATE;
  const source = settings.source_effects_config;
  const background =
    noise.background !== null && source.enable_background_noise
      ? new BackgroundNoise(noise.background, source, rate, randomStream(seed, 1))
      : null;
  const bursts =
    source.enable_burst_noise && noise.bursts.length > 0 && source.burst_noise_events_per_minute > 0
      ? new BurstNoise(noise.bursts, source, rate, randomStream(seed, 2))
      : null;
  const muffling = new DynamicMuffling(settings.speech_effects_config, rate, randomStream(seed, 3));
  const drops = new FrameDrops(settings.channel_effects_config, rate, randomStream(seed, 4));
  const band: Filter | null = settings.telephony_enabled
    ? bandpass(4, TELEPHONE_BAND.low, TELEPHONE_BAND.high, rate)
    : null;
  const gain = settings.telephony_enabled ? TELEPHONE_HEADROOM : 1;
  let elapsed = 0;
  let wasSpeaking = false;
  const events: EffectEvent[] = [];
  const ms = (sample: number) => Math.round((sample * 1000) / rate);
  /** The off-turn insert playing, its timeline event, and how much of it has played. */
  let pending: { audio: Int16Array; played: number; event: EffectEvent } | null = null;
  const endInsert = (at: number) => {
    if (!pending) return;
    pending.event.end_ms = ms(at);
    pending.event.duration_ms = pending.event.end_ms - pending.event.start_ms;
    pending = null;
  };

  return {
    effectTimeline(): EffectTimeline {
      // Open events (a burst still sounding) end with the call.
      return {
        events: events.map((event) =>
          event.end_ms === null
            ? { ...event, end_ms: ms(elapsed), duration_ms: ms(elapsed) - event.start_ms }
            : { ...event },
        ),
      };
    },
    tick(speech: Int16Array, state: CallerSpeechState): CallerLineTick {
      const start = elapsed;
      elapsed += speech.length;
      const mix = new Float64Array(speech.length);
      mix.set(speech);
      if (state.speaking) {
        if (state.utteranceStart || !wasSpeaking) muffling.startUtterance();
        muffling.apply(mix);
      }
      wasSpeaking = state.speaking;
      // Off-turn speech: only while the caller is silent; their own speech cuts it off.
      if (state.speaking) endInsert(start);
      let started: SpeechInsert | null = null;
      if (!state.speaking && state.outOfTurn && state.outOfTurn.audio.length > 0) {
        endInsert(start);
        started = state.outOfTurn.insert;
        const event: EffectEvent = {
          effect_type: "out_of_turn_speech",
          start_ms: ms(start),
          end_ms: null,
          participant: "user",
          params: { type: started.type, text: started.text },
          duration_ms: null,
        };
        events.push(event);
        pending = { audio: state.outOfTurn.audio, played: 0, event };
      }
      if (pending && !state.speaking) {
        const part = pending.audio.subarray(pending.played, pending.played + mix.length);
        for (let i = 0; i < part.length; i++) mix[i] = mix[i]! + part[i]!;
        pending.played += part.length;
        if (pending.played >= pending.audio.length) endInsert(start + part.length);
      }
      background?.addTo(mix, start);
      const sounding = bursts?.active ?? false;
      const burst = bursts?.addTo(mix) ?? null;
      if (bursts && burst !== null && bursts.lastStart) {
        const at = start + bursts.lastStart.sample;
        events.push({
          effect_type: "burst_noise",
          start_ms: ms(at),
          end_ms: null,
          participant: "user",
          params: { file: burst, snr_db: bursts.lastStart.snrDb },
          duration_ms: null,
        });
      }
      if (bursts && (sounding || burst !== null) && !bursts.active) {
        const open = events.findLast((e) => e.effect_type === "burst_noise" && e.end_ms === null);
        if (open) {
          open.end_ms = ms(start + bursts.lastEnd);
          open.duration_ms = open.end_ms - open.start_ms;
        }
      }
      const postNoise = Int16Array.from(mix, clip16);
      band?.process(mix);
      const pcm = new Int16Array(mix.length);
      for (let i = 0; i < mix.length; i++) pcm[i] = clip16(mix[i]! * gain);
      const wire = mulawEncode(pcm);
      const sent = wire.slice();
      const lost = new Uint8Array(wire.length);
      const lostSamples = drops.lose(lost, start);
      if (lostSamples > 0) for (let i = 0; i < wire.length; i++) if (lost[i]) wire[i] = WIRE_SILENCE;
      // Each run of lost samples is one frame drop on the timeline.
      for (let i = 0; i < lost.length;) {
        if (!lost[i]) {
          i++;
          continue;
        }
        let j = i;
        while (j < lost.length && lost[j]) j++;
        events.push({
          effect_type: "frame_drop",
          start_ms: ms(start + i),
          end_ms: ms(start + j),
          participant: "user",
          params: { duration_ms: ms(j - i) },
          duration_ms: ms(start + j) - ms(start + i),
        });
        i = j;
      }
      return {
        wire,
        stages: { postNoise, sent },
        speechEffects: state.speaking
          ? { dynamic_muffling_enabled: muffling.enabled, speech_insert: null }
          : null,
        sourceEffects:
          burst !== null || started !== null ? { burst_noise_file: burst, speech_insert: started } : null,
        channelEffects:
          lostSamples > 0
            ? { frame_drops_enabled: true, frame_drop_ms: Math.round((lostSamples * 1000) / rate) }
            : null,
      };
    },
  };
}
