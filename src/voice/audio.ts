import { readFileSync } from "node:fs";
import wavefile from "wavefile";
import { ConfigError } from "../core/errors.js";
import { clip16, resample } from "./wire-audio.js";

// PCM16 helpers for the voice track: G.711 μ-law, band-limited resampling, WAV files, little-endian bytes.
// Pure functions over whole buffers (a tick, an utterance, a recording).

// Wavefile is a CommonJS bundle: Node's ESM loader gives it as a default export only.
const { WaveFile } = wavefile;

// The pure wire math lives in wire-audio.ts (the web app imports it too).
export { clip16, mulawDecode, mulawEncode, resample, StreamResampler } from "./wire-audio.js";

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
