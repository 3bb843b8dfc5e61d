/** A sine tone as PCM16: `amplitude` peak, `frequency` Hz, `seconds` long at `sampleRate`. */
export function tone(frequency: number, sampleRate: number, seconds: number, amplitude = 10000): Int16Array {
  const samples = new Int16Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate));
  return samples;
}

/** The amplitude (peak) of the `frequency` component of `samples` (Goertzel over a whole buffer). */
export function amplitudeAt(samples: ArrayLike<number>, frequency: number, sampleRate: number): number {
  const w = (2 * Math.PI * frequency) / sampleRate;
  const coefficient = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const s0 = samples[i]! + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return (2 * Math.sqrt(Math.max(0, power))) / samples.length;
}

/** The frequency (Hz, to `step`) with the largest component between `low` and `high`. */
export function dominantFrequency(
  samples: ArrayLike<number>,
  sampleRate: number,
  low: number,
  high: number,
  step = 5,
): number {
  let best = low;
  let bestAmplitude = -1;
  for (let f = low; f <= high; f += step) {
    const a = amplitudeAt(samples, f, sampleRate);
    if (a > bestAmplitude) [best, bestAmplitude] = [f, a];
  }
  return best;
}

export const db = (ratio: number): number => 20 * Math.log10(ratio);
