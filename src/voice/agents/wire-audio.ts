import alawmulaw from "alawmulaw";

// Audio between the telephone wire (G.711 μ-law, 8 kHz) and a provider's PCM16 at another rate. The
// resamplers are streaming (state carries across ticks, so tick edges leave no clicks) and change the
// rate by whole factors with a windowed-sinc low-pass: 8 → 16 kHz into a provider, 24 → 8 kHz out of one.
// (A local converter: the call's shared resampler was not there yet when this was written.)

/** Input samples each side of an output sample the filter looks at. */
const HALF_TAPS = 24;

/**
 * Changes the rate of a PCM16 stream by `up / down` (whole factors), tick by tick. Output is delayed by
 * {@link HALF_TAPS} input samples (a few milliseconds), which {@link flush} gives back at the end.
 */
export class StreamResampler {
  private readonly up: number;
  private readonly down: number;
  /** One kernel per phase: weights of the input samples around an output instant. */
  private readonly kernels: Float64Array[];
  /** Input not yet fully used (starts with HALF_TAPS samples of silence). */
  private history: Float64Array;
  /** Position of the next output sample, in input samples times `up`, relative to history[HALF_TAPS]. */
  private position = 0;

  constructor(fromRate: number, toRate: number) {
    const ratio = toRate / fromRate;
    if (Number.isInteger(ratio)) [this.up, this.down] = [ratio, 1];
    else if (Number.isInteger(1 / ratio)) [this.up, this.down] = [1, 1 / ratio];
    else throw new RangeError(`cannot resample ${fromRate} Hz to ${toRate} Hz (not a whole factor)`);
    // Cut off a little below the lower Nyquist frequency, relative to the input rate.
    const cutoff = (0.45 * Math.min(fromRate, toRate)) / fromRate;
    this.kernels = Array.from({ length: this.up }, (_, phase) => {
      const offset = phase / this.up;
      const kernel = new Float64Array(2 * HALF_TAPS);
      let sum = 0;
      for (let k = 0; k < kernel.length; k++) {
        const t = k - HALF_TAPS + 1 - offset; // distance from the output instant, in input samples
        const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t);
        const window = 0.5 + 0.5 * Math.cos((Math.PI * t) / HALF_TAPS); // Hann over ±HALF_TAPS
        kernel[k] = sinc * Math.max(0, window);
        sum += kernel[k]!;
      }
      for (let k = 0; k < kernel.length; k++) kernel[k]! /= sum;
      return kernel;
    });
    this.history = new Float64Array(HALF_TAPS);
  }

  /** Resamples the next stretch of the stream. */
  push(samples: Int16Array): Int16Array {
    const joined = new Float64Array(this.history.length + samples.length);
    joined.set(this.history);
    for (let i = 0; i < samples.length; i++) joined[this.history.length + i] = samples[i]!;
    const out: number[] = [];
    // Output at input instant HALF_TAPS - 1 + position/up needs input up to HALF_TAPS samples after it.
    for (;;) {
      const base = Math.floor(this.position / this.up);
      const phase = this.position % this.up;
      const last = base + 2 * HALF_TAPS - 1;
      if (last >= joined.length) break;
      const kernel = this.kernels[phase]!;
      let value = 0;
      for (let k = 0; k < kernel.length; k++) value += joined[base + k]! * kernel[k]!;
      out.push(Math.max(-32768, Math.min(32767, Math.round(value))));
      this.position += this.down;
    }
    const consumed = Math.floor(this.position / this.up);
    this.history = joined.slice(consumed);
    this.position -= consumed * this.up;
    return Int16Array.from(out);
  }

  /** The output still held back by the filter (the stream ends: silence after it). */
  flush(): Int16Array {
    return this.push(new Int16Array(HALF_TAPS));
  }

  /** Forgets the stream (a new one starts: after an interruption, the old speech's tail is dropped). */
  reset(): void {
    this.history = new Float64Array(HALF_TAPS);
    this.position = 0;
  }
}

/** μ-law bytes (8 kHz wire) to PCM16 samples. */
export function decodeWire(wire: Uint8Array): Int16Array {
  return alawmulaw.mulaw.decode(wire);
}

/** PCM16 samples (8 kHz) to μ-law bytes for the wire. */
export function encodeWire(samples: Int16Array): Uint8Array {
  return alawmulaw.mulaw.encode(samples);
}

/** PCM16 samples as little-endian bytes (what providers' `audio/pcm` carries). */
export function pcm16Bytes(samples: Int16Array): Buffer {
  const bytes = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i]!, 2 * i);
  return bytes;
}

/** Little-endian PCM16 bytes as samples (an odd trailing byte is ignored). */
export function pcm16Samples(bytes: Uint8Array): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Int16Array(bytes.byteLength >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(2 * i, true);
  return samples;
}
