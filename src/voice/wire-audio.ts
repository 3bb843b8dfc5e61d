// The wire's pure audio math, shared by the server and the web app (the browser's microphone path
// imports this very module, so what it sends is what the server-side pipeline makes of the same
// samples): G.711 μ-law, the band-limited resampler (whole buffers and streams), and the microphone
// encoder that turns captured float samples into one tick of 8 kHz μ-law at a time. No Node APIs.

/** μ-law's bias and clip (G.711). */
const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;
const MULAW_EXPONENT_BASE = [0, 132, 396, 924, 1980, 4092, 8316, 16764];

/** The μ-law byte (G.711) of one PCM16 sample. */
export function mulawEncodeSample(sample: number): number {
  let magnitude = sample;
  const sign = (magnitude >> 8) & 0x80;
  if (sign !== 0) magnitude = -magnitude;
  magnitude = Math.min(magnitude + MULAW_BIAS, MULAW_CLIP);
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** The PCM16 sample of one μ-law byte (G.711). */
export function mulawDecodeSample(code: number): number {
  const inverted = ~code & 0xff;
  const exponent = (inverted >> 4) & 0x07;
  const magnitude = MULAW_EXPONENT_BASE[exponent]! + ((inverted & 0x0f) << (exponent + 3));
  return inverted & 0x80 ? -magnitude : magnitude;
}

/** μ-law bytes (G.711) of PCM16 samples. */
export function mulawEncode(samples: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = mulawEncodeSample(samples[i]!);
  return out;
}

/** PCM16 samples of μ-law bytes (G.711). */
export function mulawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = mulawDecodeSample(bytes[i]!);
  return out;
}

/** A sample rounded and clipped to the PCM16 range. */
export function clip16(value: number): number {
  const rounded = Math.round(value);
  return rounded > 32767 ? 32767 : rounded < -32768 ? -32768 : rounded;
}

// The resampler: a Kaiser-windowed sinc, evaluated as a polyphase table for the rational ratio of the
// two rates. Its cutoff sits below the lower Nyquist frequency (ROLLOFF of it), so downsampling does not
// alias (stopband about -80 dB) and upsampling leaves no images.
const ZERO_CROSSINGS = 24;
const ROLLOFF = 0.9;
const KAISER_BETA = 8;

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

interface Polyphase {
  up: number;
  down: number;
  /** First input offset of each output's taps, relative to floor(position). */
  first: number;
  taps: number;
  /** `up` rows of `taps` weights. */
  table: Float64Array;
}

const polyphaseCache = new Map<string, Polyphase>();

function polyphase(fromRate: number, toRate: number): Polyphase {
  const key = `${fromRate}:${toRate}`;
  const cached = polyphaseCache.get(key);
  if (cached) return cached;
  const divisor = gcd(fromRate, toRate);
  const up = toRate / divisor;
  const down = fromRate / divisor;
  const scale = Math.min(1, toRate / fromRate);
  const cutoff = 0.5 * ROLLOFF * scale; // cycles per input sample
  const halfWidth = ZERO_CROSSINGS / (2 * cutoff); // input samples either side
  const first = -Math.ceil(halfWidth) + 1;
  const taps = 2 * Math.ceil(halfWidth);
  const table = new Float64Array(up * taps);
  const i0Beta = besselI0(KAISER_BETA);
  for (let phase = 0; phase < up; phase++) {
    const frac = phase / up;
    let sum = 0;
    for (let k = 0; k < taps; k++) {
      const t = first + k - frac;
      const ratio = t / halfWidth;
      if (Math.abs(ratio) >= 1) continue;
      const x = 2 * cutoff * t;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const window = besselI0(KAISER_BETA * Math.sqrt(1 - ratio * ratio)) / i0Beta;
      const weight = 2 * cutoff * sinc * window;
      table[phase * taps + k] = weight;
      sum += weight;
    }
    for (let k = 0; k < taps; k++) table[phase * taps + k]! /= sum; // unity gain at DC
  }
  const made = { up, down, first, taps, table };
  polyphaseCache.set(key, made);
  return made;
}

/**
 * Samples at `toRate` of samples at `fromRate` (whole buffers; the edges are padded with silence).
 * Output length: round(input length × toRate / fromRate).
 */
export function resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0)
    throw new RangeError(`sample rates must be positive integers (got ${fromRate} → ${toRate})`);
  if (fromRate === toRate) return samples.slice();
  const { up, down, first, taps, table } = polyphase(fromRate, toRate);
  const length = Math.round((samples.length * toRate) / fromRate);
  const out = new Int16Array(length);
  const last = samples.length - 1;
  for (let n = 0; n < length; n++) {
    const position = n * down;
    const base = Math.floor(position / up);
    const row = (position % up) * taps;
    const start = base + first;
    let acc = 0;
    if (start >= 0 && start + taps - 1 <= last) {
      for (let k = 0; k < taps; k++) acc += samples[start + k]! * table[row + k]!;
    } else {
      for (let k = 0; k < taps; k++) {
        const i = start + k;
        if (i >= 0 && i <= last) acc += samples[i]! * table[row + k]!;
      }
    }
    out[n] = clip16(acc);
  }
  return out;
}

/**
 * The same resampling over a stream of chunks (a provider's audio as it arrives): `push` returns the
 * output samples the chunk completes, `flush` the rest (the stream's end padded with silence). The
 * chunks' outputs together equal `resample` of the whole stream.
 */
export class StreamResampler {
  private readonly filter: Polyphase | null;
  /** Input samples from absolute index `offset` on. */
  private pending = new Int16Array(0);
  private offset = 0;
  private received = 0;
  /** Next output sample's index. */
  private produced = 0;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0)
      throw new RangeError(`sample rates must be positive integers (got ${fromRate} → ${toRate})`);
    this.filter = fromRate === toRate ? null : polyphase(fromRate, toRate);
  }

  push(chunk: Int16Array): Int16Array {
    if (this.filter === null) return chunk.slice();
    const joined = new Int16Array(this.pending.length + chunk.length);
    joined.set(this.pending);
    joined.set(chunk, this.pending.length);
    this.pending = joined;
    this.received += chunk.length;
    return this.emit(false);
  }

  flush(): Int16Array {
    if (this.filter === null) return new Int16Array(0);
    return this.emit(true);
  }

  private emit(end: boolean): Int16Array {
    const { up, down, first, taps, table } = this.filter!;
    const total = end ? Math.round((this.received * this.toRate) / this.fromRate) : Infinity;
    const out: number[] = [];
    for (;;) {
      const n = this.produced;
      if (n >= total) break;
      const position = n * down;
      const start = Math.floor(position / up) + first;
      if (!end && start + taps > this.received) break;
      const row = (position % up) * taps;
      let acc = 0;
      for (let k = 0; k < taps; k++) {
        const i = start + k;
        if (i >= 0 && i < this.received) acc += this.pending[i - this.offset]! * table[row + k]!;
      }
      out.push(clip16(acc));
      this.produced++;
    }
    // Keep only what later outputs still read.
    const keepFrom = Math.max(this.offset, Math.floor((this.produced * down) / up) + first);
    if (keepFrom > this.offset) {
      this.pending = this.pending.slice(keepFrom - this.offset);
      this.offset = keepFrom;
    }
    return Int16Array.from(out);
  }
}

/** PCM16 samples of Web Audio float samples (−1…1), scaled and clipped. */
export function floatToPcm16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = clip16(samples[i]! * 32767);
  return out;
}

/**
 * The microphone's path to the wire: captured samples at the device's rate in (PCM16), whole ticks of
 * 8 kHz μ-law out — the stream resampler, then G.711, cut into `bytesPerTick` frames. `encodeCapture`
 * is the same path over a whole recording at once.
 */
export class CallerEncoder {
  private readonly resampler: StreamResampler;
  private pending = new Uint8Array(0);

  constructor(
    readonly captureRate: number,
    readonly wireRate: number,
    readonly bytesPerTick: number,
  ) {
    this.resampler = new StreamResampler(captureRate, wireRate);
  }

  /** The whole ticks the captured samples complete (often none, sometimes several). */
  push(samples: Int16Array): Uint8Array[] {
    const encoded = mulawEncode(this.resampler.push(samples));
    const joined = new Uint8Array(this.pending.length + encoded.length);
    joined.set(this.pending);
    joined.set(encoded, this.pending.length);
    const ticks: Uint8Array[] = [];
    let at = 0;
    for (; at + this.bytesPerTick <= joined.length; at += this.bytesPerTick)
      ticks.push(joined.slice(at, at + this.bytesPerTick));
    this.pending = joined.slice(at);
    return ticks;
  }
}

/** What the wire carries of a whole capture: resampled to `wireRate`, μ-law encoded. */
export function encodeCapture(samples: Int16Array, captureRate: number, wireRate: number): Uint8Array {
  return mulawEncode(resample(samples, captureRate, wireRate));
}
