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
// alias (stopband about -80 dB) and upsampling leaves no images. The input is read as doubles with
// silence either side, so each output is one dot product without edge tests. An integer downsampling
// ratio (24 kHz speech to the 8 kHz wire) has one phase only, symmetric about its centre: mirrored taps
// share a multiply, and four outputs share each pass over the weights.
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
  /** For integer downsampling (`up` 1): the weights of the offsets 0, ±1, ±2, …; else null. */
  half: Float64Array | null;
  /** Silent samples read before the input's first sample and after its last. */
  pad: number;
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
  const reach = Math.ceil(halfWidth);
  const first = -reach + 1;
  const taps = 2 * reach;
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
  let half: Float64Array | null = null;
  if (up === 1) {
    // The one row spans offsets -(reach - 1) … reach, the last of weight 0; offset 0 is at -first.
    half = new Float64Array(reach);
    for (let t = 0; t < reach; t++) half[t] = (table[-first - t]! + table[-first + t]!) / 2;
  }
  const made = { up, down, first, taps, table, half, pad: reach };
  polyphaseCache.set(key, made);
  return made;
}

/** Σ weights[row + k] · x[start + k] for k < taps. */
function dot(x: Float64Array, start: number, weights: Float64Array, row: number, taps: number): number {
  let acc = 0;
  for (let k = 0; k < taps; k++) acc += x[start + k]! * weights[row + k]!;
  return acc;
}

/** Σ half[|t|] · x[centre + t] for |t| < half.length, the mirrored samples added before the multiply. */
function symmetricDot(x: Float64Array, centre: number, half: Float64Array): number {
  let acc = half[0]! * x[centre]!;
  for (let t = 1; t < half.length; t++) acc += half[t]! * (x[centre - t]! + x[centre + t]!);
  return acc;
}

/**
 * Outputs `n0` … `n0 + out.length - 1` into `out`, reading input sample `i` at `x[zero + i]`. Integer
 * downsampling computes four outputs per pass over the taps (each weight read once for the four);
 * every output is summed in the same order however the outputs are grouped, so a stream's chunks
 * give exactly the whole buffer's samples.
 */
function fill(filter: Polyphase, x: Float64Array, zero: number, n0: number, out: Int16Array): void {
  const { half, down } = filter;
  if (half === null) {
    const { up, first, taps, table } = filter;
    for (let i = 0; i < out.length; i++) {
      const position = (n0 + i) * down;
      const start = zero + Math.floor(position / up) + first;
      out[i] = clip16(dot(x, start, table, (position % up) * taps, taps));
    }
    return;
  }
  const h0 = half[0]!;
  let i = 0;
  for (; i + 3 < out.length; i += 4) {
    const c = zero + (n0 + i) * down;
    let a = h0 * x[c]!;
    let b = h0 * x[c + down]!;
    let d = h0 * x[c + 2 * down]!;
    let e = h0 * x[c + 3 * down]!;
    for (let t = 1; t < half.length; t++) {
      const w = half[t]!;
      const left = c - t;
      const right = c + t;
      a += w * (x[left]! + x[right]!);
      b += w * (x[left + down]! + x[right + down]!);
      d += w * (x[left + 2 * down]! + x[right + 2 * down]!);
      e += w * (x[left + 3 * down]! + x[right + 3 * down]!);
    }
    out[i] = clip16(a);
    out[i + 1] = clip16(b);
    out[i + 2] = clip16(d);
    out[i + 3] = clip16(e);
  }
  for (; i < out.length; i++) out[i] = clip16(symmetricDot(x, zero + (n0 + i) * down, half));
}

/** Index after the last input sample output `n` reads (its taps' end). */
function inputEnd(filter: Polyphase, n: number): number {
  return Math.floor((n * filter.down) / filter.up) + filter.first + filter.taps;
}

/**
 * Samples at `toRate` of samples at `fromRate` (whole buffers; the edges are padded with silence).
 * Output length: round(input length × toRate / fromRate).
 */
export function resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0)
    throw new RangeError(`sample rates must be positive integers (got ${fromRate} → ${toRate})`);
  if (fromRate === toRate) return samples.slice();
  const filter = polyphase(fromRate, toRate);
  const x = new Float64Array(samples.length + 2 * filter.pad);
  for (let i = 0; i < samples.length; i++) x[filter.pad + i] = samples[i]!;
  const out = new Int16Array(Math.round((samples.length * toRate) / fromRate));
  fill(filter, x, filter.pad, 0, out);
  return out;
}

/**
 * The same resampling over a stream of chunks (a provider's audio as it arrives): `push` returns the
 * output samples the chunk completes, `flush` the rest and ends the stream (its end padded with
 * silence). The chunks' outputs together equal `resample` of the whole stream.
 */
export class StreamResampler {
  private readonly filter: Polyphase | null;
  /** Input as doubles: `buffer[i]` is input sample `bufferStart + i` (silence before the stream). */
  private buffer: Float64Array;
  private bufferStart: number;
  private buffered: number;
  private received = 0;
  /** Next output sample's index. */
  private produced = 0;
  private ended = false;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0)
      throw new RangeError(`sample rates must be positive integers (got ${fromRate} → ${toRate})`);
    this.filter = fromRate === toRate ? null : polyphase(fromRate, toRate);
    const pad = this.filter?.pad ?? 0;
    this.buffer = new Float64Array(Math.max(4096, 4 * pad));
    this.bufferStart = -pad;
    this.buffered = pad;
  }

  push(chunk: Int16Array): Int16Array {
    if (this.ended) throw new RangeError("the resampled stream was flushed; start a new one");
    if (this.filter === null) return chunk.slice();
    this.append(chunk, chunk.length);
    this.received += chunk.length;
    return this.emit(false);
  }

  flush(): Int16Array {
    if (this.ended) throw new RangeError("the resampled stream was flushed; start a new one");
    this.ended = true;
    if (this.filter === null) return new Int16Array(0);
    this.append(null, this.filter.pad);
    return this.emit(true);
  }

  /** Add `count` input samples (`chunk`'s, or silence for null) after those buffered. */
  private append(chunk: Int16Array | null, count: number): void {
    if (this.buffered + count > this.buffer.length) {
      const grown = new Float64Array(Math.max(2 * this.buffer.length, this.buffered + count));
      grown.set(this.buffer.subarray(0, this.buffered));
      this.buffer = grown;
    }
    if (chunk === null) this.buffer.fill(0, this.buffered, this.buffered + count);
    else for (let i = 0; i < count; i++) this.buffer[this.buffered + i] = chunk[i]!;
    this.buffered += count;
  }

  private emit(end: boolean): Int16Array {
    const filter = this.filter!;
    const total = end
      ? Math.round((this.received * this.toRate) / this.fromRate)
      : // The outputs whose taps end within what was received.
        Math.max(
          this.produced,
          Math.floor(((this.received - filter.first - filter.taps + 1) * filter.up - 1) / filter.down) + 1,
        );
    const out = new Int16Array(Math.max(0, total - this.produced));
    fill(filter, this.buffer, -this.bufferStart, this.produced, out);
    this.produced += out.length;
    // Keep only what later outputs still read.
    const keepFrom = inputEnd(filter, this.produced) - filter.taps;
    if (keepFrom > this.bufferStart) {
      const drop = Math.min(keepFrom - this.bufferStart, this.buffered);
      this.buffer.copyWithin(0, drop, this.buffered);
      this.buffered -= drop;
      this.bufferStart += drop;
    }
    return out;
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
