import type { SourceEffectsSettings } from "../voice-settings.js";
import { noiseRmsAt } from "./levels.js";
import type { NoiseClip } from "./noise.js";

// The caller's surroundings: a background recording looped under the call, its level wandering slowly
// around `noise_snr_db` by up to `noise_snr_drift_db` (a sum of three slow sines, normalised to ±1, at
// multiples of `noise_variation_speed`, phases drawn from the seed).

const COMPONENTS = [
  { amplitude: 1, frequency: 1 },
  { amplitude: 0.35, frequency: 2.3 },
  { amplitude: 0.25, frequency: 0.37 },
];
const TOTAL_AMPLITUDE = COMPONENTS.reduce((sum, c) => sum + c.amplitude, 0);
/** The level is computed every STEP samples and interpolated between. */
const STEP = 160;

export class BackgroundNoise {
  private position: number;
  private readonly phases: number[];
  private readonly gainPerRms: number;

  constructor(
    private readonly clip: NoiseClip,
    private readonly settings: SourceEffectsSettings,
    private readonly sampleRate: number,
    random: () => number,
  ) {
    this.position = Math.floor(random() * clip.samples.length);
    this.phases = COMPONENTS.map(() => random() * 2 * Math.PI);
    this.gainPerRms = 1 / clip.rms;
  }

  /** The noise's SNR (dB under the nominal speech level) at `seconds` into the call. */
  snrAt(seconds: number): number {
    const speed = this.settings.noise_variation_speed;
    let wander = 0;
    for (let i = 0; i < COMPONENTS.length; i++) {
      const c = COMPONENTS[i]!;
      wander += c.amplitude * Math.sin(2 * Math.PI * speed * c.frequency * seconds + this.phases[i]!);
    }
    return this.settings.noise_snr_db + (this.settings.noise_snr_drift_db * wander) / TOTAL_AMPLITUDE;
  }

  private gainAt(sample: number): number {
    return noiseRmsAt(this.snrAt(sample / this.sampleRate)) * this.gainPerRms;
  }

  /** Add the next `mix.length` samples of noise to `mix`; `start` is the call's sample index of mix[0]. */
  addTo(mix: Float64Array, start: number): void {
    const samples = this.clip.samples;
    let position = this.position;
    for (let offset = 0; offset < mix.length; offset += STEP) {
      const end = Math.min(mix.length, offset + STEP);
      const from = this.gainAt(start + offset);
      const slope = (this.gainAt(start + offset + STEP) - from) / STEP;
      for (let i = offset; i < end; i++) {
        mix[i]! += samples[position]! * (from + slope * (i - offset));
        if (++position === samples.length) position = 0;
      }
    }
    this.position = position;
  }
}
