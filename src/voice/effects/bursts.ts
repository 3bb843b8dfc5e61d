import type { SourceEffectsSettings } from "../voice-settings.js";
import { noiseRmsAt } from "./levels.js";
import type { NoiseClip } from "./noise.js";
import { pick, poissonFires } from "./random.js";

// Sudden sounds of the caller's surroundings (a dog, a phone, a siren): a Poisson process of
// `burst_noise_events_per_minute` over the call, one burst at a time, each a recording from the task's
// burst files played once at an SNR drawn uniformly from `burst_snr_range_db`.

interface Playing {
  clip: NoiseClip;
  gain: number;
  /** Next sample of the clip to play. */
  offset: number;
}

export class BurstNoise {
  private playing: Playing | null = null;
  /** The last burst started: its file, level and first sample in the tick it started. */
  lastStart: { file: string; snrDb: number; sample: number } | null = null;
  /** The sample (in the tick it ended) after the last burst's last one. */
  lastEnd = 0;

  constructor(
    private readonly clips: readonly NoiseClip[],
    private readonly settings: SourceEffectsSettings,
    private readonly sampleRate: number,
    private readonly random: () => number,
  ) {}

  /** Whether a burst is sounding now. */
  get active(): boolean {
    return this.playing !== null;
  }

  /** Add this tick's burst sound to `mix`; returns the file of a burst that started in this tick. */
  addTo(mix: Float64Array): string | null {
    let startedAt = -1;
    let started: string | null = null;
    if (this.playing === null && this.clips.length > 0) {
      const perSecond = this.settings.burst_noise_events_per_minute / 60;
      if (poissonFires(perSecond, mix.length / this.sampleRate, this.random)) {
        const clip = pick(this.clips, this.random);
        const [low, high] = this.settings.burst_snr_range_db;
        const snr = low + (high - low) * this.random();
        startedAt = Math.floor(this.random() * mix.length);
        this.playing = { clip, gain: noiseRmsAt(snr) / clip.rms, offset: 0 };
        started = clip.name;
        this.lastStart = { file: clip.name, snrDb: snr, sample: startedAt };
      }
    }
    const playing = this.playing;
    if (playing === null) return null;
    const { samples } = playing.clip;
    let i = Math.max(0, startedAt);
    for (; i < mix.length && playing.offset < samples.length; i++)
      mix[i]! += samples[playing.offset++]! * playing.gain;
    if (playing.offset >= samples.length) {
      this.playing = null;
      this.lastEnd = i;
    }
    return started;
  }
}
