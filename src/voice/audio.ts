import { readFileSync } from "node:fs";
import alawmulaw from "alawmulaw";
import wavefile from "wavefile";
import { ConfigError } from "../core/errors.js";

// PCM16 helpers for the voice track: G.711 μ-law, band-limited resampling, WAV files, little-endian bytes.
// Pure functions over whole buffers (a tick, an utterance, a recording).

// Both packages are CommonJS bundles: Node's ESM loader gives them as a default export only.
const { mulaw } = alawmulaw;
const { WaveFile } = wavefile;

/** μ-law bytes (G.711) of PCM16 samples. */
export function mulawEncode(samples: Int16Array): Uint8Array {
  return mulaw.encode(samples);
}

/** PCM16 samples of μ-law bytes (G.711). */
export function mulawDecode(bytes: Uint8Array): Int16Array {
  return mulaw.decode(bytes);
}

/** PCM16 little-endian bytes of samples (a copy, whatever the platform's byte order). */
export function pcm16ToBytes(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return bytes;
}

/** Samples of PCM16 little-endian bytes; a trailing odd byte is an error. */
export function bytesToPcm16(bytes: Uint8Array): Int16Array {
  if (bytes.length % 2 !== 0) throw new RangeError(`PCM16 audio has an odd byte count (${bytes.length})`);
  const samples = new Int16Array(bytes.length / 2);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
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

/** Mono PCM16 at `sampleRate` of a WAV file's bytes (any channel count, bit depth and rate wavefile reads). */
export function decodeWav(bytes: Uint8Array, sampleRate: number, name = "WAV audio"): Int16Array {
  let wav: InstanceType<typeof WaveFile>;
  try {
    wav = new WaveFile(bytes);
    if (wav.bitDepth !== "16") wav.toBitDepth("16");
  } catch (error) {
    throw new ConfigError(`${name} is not a readable WAV file (${(error as Error).message})`, {
      cause: error,
    });
  }
  const fmt = wav.fmt as { numChannels: number; sampleRate: number };
  const raw = wav.getSamples(false, Int16Array) as unknown as Int16Array | Int16Array[];
  const channels = Array.isArray(raw) ? raw : [raw];
  let mono: Int16Array;
  if (channels.length === 1) mono = channels[0]!;
  else {
    mono = new Int16Array(channels[0]!.length);
    for (let i = 0; i < mono.length; i++) {
      let sum = 0;
      for (const channel of channels) sum += channel[i]!;
      mono[i] = clip16(sum / channels.length);
    }
  }
  return fmt.sampleRate === sampleRate ? mono : resample(mono, fmt.sampleRate, sampleRate);
}

/** Mono PCM16 at `sampleRate` of a WAV file. */
export function readWavFile(file: string, sampleRate: number): Int16Array {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new ConfigError(`cannot read the WAV file ${file} (${(error as NodeJS.ErrnoException).code})`, {
      cause: error,
    });
  }
  return decodeWav(bytes, sampleRate, file);
}

/** Root mean square of samples (0 for none). */
export function rms(samples: ArrayLike<number>): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / samples.length);
}
