import type { SpeechEffectsSettings } from "../voice-settings.js";
import { lowpass, type Filter } from "./filters.js";

// The caller turning away from the phone or covering it: per utterance, with `muffle_probability`, up to
// `muffle_segment_count` stretches of `muffle_segment_duration_ms` low-passed at `muffle_cutoff_freq`,
// faded in and out over `muffle_transition_ms`. The stretches start at random moments of the utterance
// (its length is not known while it streams), so a short utterance may end before one begins; the whole
// utterance is reported muffled, as the reference reports it.

/** The first stretch starts within this long of the utterance's start, later ones within this of the last. */
const MAX_GAP_SECONDS = 1.5;

interface Stretch {
  /** Utterance-relative sample where the fade-in starts. */
  start: number;
}

export class DynamicMuffling {
  private readonly filter: Filter;
  private muffled = false;
  private stretches: Stretch[] = [];
  /** Samples of the current utterance so far. */
  private elapsed = 0;
  private readonly hold: number;
  private readonly fade: number;

  constructor(
    private readonly settings: SpeechEffectsSettings,
    private readonly sampleRate: number,
    private readonly random: () => number,
  ) {
    const cutoff = Math.min(settings.muffle_cutoff_freq, 0.45 * sampleRate);
    this.filter = lowpass(4, cutoff, sampleRate);
    this.hold = Math.round((settings.muffle_segment_duration_ms * sampleRate) / 1000);
    this.fade = Math.round((settings.muffle_transition_ms * sampleRate) / 1000);
  }

  /** A new utterance starts: draw whether it is muffled, and where. */
  startUtterance(): void {
    this.elapsed = 0;
    this.stretches = [];
    this.muffled = this.settings.enable_dynamic_muffling && this.random() < this.settings.muffle_probability;
    if (!this.muffled) return;
    let at = 0;
    for (let i = 0; i < this.settings.muffle_segment_count; i++) {
      at += Math.floor(this.random() * MAX_GAP_SECONDS * this.sampleRate);
      this.stretches.push({ start: at });
      at += 2 * this.fade + this.hold;
    }
  }

  /** Whether the current utterance is muffled. */
  get enabled(): boolean {
    return this.muffled;
  }

  /** How muffled (0–1) the utterance-relative sample `n` is. */
  private depth(n: number): number {
    for (const { start } of this.stretches) {
      const t = n - start;
      if (t < 0) return 0;
      if (t < this.fade) return t / this.fade;
      if (t < this.fade + this.hold) return 1;
      if (t < 2 * this.fade + this.hold) return (2 * this.fade + this.hold - t) / this.fade;
    }
    return 0;
  }

  /** Muffle the speech of a speaking tick in place (the filter runs only through muffled utterances). */
  apply(speech: Float64Array): void {
    if (this.muffled) {
      const wet = this.filter.process(speech.slice());
      for (let i = 0; i < speech.length; i++) {
        const depth = this.depth(this.elapsed + i);
        if (depth > 0) speech[i] = depth * wet[i]! + (1 - depth) * speech[i]!;
      }
    }
    this.elapsed += speech.length;
  }
}

/** The cutoff (Hz) of speech said away from the phone (the reference's constant muffling). */
export const AWAY_FROM_PHONE_CUTOFF_HZ = 1000;

/**
 * Speech said away from the phone (a non-directed phrase, "Hold on a second."): the whole clip
 * low-passed at `cutoffHz`, its peak restored so that it is as loud, only duller.
 */
export function muffleAwayFromPhone(
  speech: Int16Array,
  sampleRate: number,
  cutoffHz = AWAY_FROM_PHONE_CUTOFF_HZ,
): Int16Array {
  const wet = lowpass(4, Math.min(cutoffHz, 0.45 * sampleRate), sampleRate).process(
    Float64Array.from(speech),
  );
  let peakIn = 0;
  let peakOut = 0;
  for (let i = 0; i < speech.length; i++) {
    peakIn = Math.max(peakIn, Math.abs(speech[i]!));
    peakOut = Math.max(peakOut, Math.abs(wet[i]!));
  }
  const gain = peakOut > 0 ? peakIn / peakOut : 0;
  return Int16Array.from(wet, (x) => Math.max(-32768, Math.min(32767, Math.round(x * gain))));
}
