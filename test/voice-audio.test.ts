import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import wavefile from "wavefile";
import {
  bytesToPcm16,
  decodeWav,
  mulawDecode,
  mulawEncode,
  pcm16ToBytes,
  readWavFile,
  resample,
  StreamResampler,
  rms,
} from "../src/voice/audio.js";
import { amplitudeAt, db, dominantFrequency, tone } from "./helpers/tones.js";

const { WaveFile } = wavefile;

describe("μ-law", () => {
  it("round-trips every PCM16 value within G.711's quantisation step", () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    const back = mulawDecode(mulawEncode(all));
    let worst = 0;
    for (let i = 0; i < all.length; i++) {
      const x = all[i]!;
      const error = Math.abs(back[i]! - x);
      // The step doubles with each segment: about 1/16 of the magnitude, and a few units near zero;
      // beyond μ-law's largest level (32124) the error is the clipping.
      const bound = Math.abs(x) > 32124 ? Math.abs(x) - 32124 + 1024 : Math.abs(x) / 16 + 8;
      worst = Math.max(worst, error / bound);
      if (error > bound) expect.fail(`sample ${x} came back as ${back[i]}`);
    }
    expect(worst).toBeGreaterThan(0.3); // the bound is tight, not vacuous
    expect(mulawEncode(new Int16Array([0]))[0]).toBe(0xff);
  });

  it("keeps a speech-level tone at G.711's signal-to-quantisation-noise ratio (over 33 dB)", () => {
    const input = tone(1000, 8000, 1, 8000);
    const back = mulawDecode(mulawEncode(input));
    const noise = input.map((x, i) => x - back[i]!);
    expect(db(rms(input) / rms(noise))).toBeGreaterThan(33);
  });
});

describe("PCM16 bytes", () => {
  it("are little-endian and round-trip", () => {
    const samples = new Int16Array([0, 1, -1, 32767, -32768, 258]);
    const bytes = pcm16ToBytes(samples);
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 0xff, 0xff]);
    expect([...bytes.subarray(10)]).toEqual([2, 1]);
    expect([...bytesToPcm16(bytes)]).toEqual([...samples]);
    expect(() => bytesToPcm16(new Uint8Array(3))).toThrow(/odd byte count/);
  });
});

describe("resample", () => {
  it.each([
    [24000, 8000, 1000],
    [16000, 8000, 2500],
    [8000, 24000, 1500],
    [44100, 8000, 700],
    [8000, 16000, 3000],
  ])("%i Hz → %i Hz keeps a %i Hz tone's frequency and level", (from, to, frequency) => {
    const input = tone(frequency, from, 1, 10000);
    const output = resample(input, from, to);
    expect(output.length).toBe(to);
    const middle = output.subarray(to / 10, to - to / 10); // away from the padded edges
    expect(dominantFrequency(middle, to, 100, to / 2 - 100)).toBe(frequency);
    expect(amplitudeAt(middle, frequency, to)).toBeGreaterThan(10000 * 0.97);
    expect(amplitudeAt(middle, frequency, to)).toBeLessThan(10000 * 1.03);
  });

  it("24 kHz → 8 kHz rejects a 5 kHz tone instead of folding it to 3 kHz", () => {
    const output = resample(tone(5000, 24000, 1, 20000), 24000, 8000);
    const middle = output.subarray(800, 7200);
    // Folded, it would sound at 8000 − 5000 = 3000 Hz with its full level.
    expect(db(amplitudeAt(middle, 3000, 8000) / 20000)).toBeLessThan(-60);
    expect(rms(middle)).toBeLessThan(20);
    // A tone inside the band passes at the same time.
    const low = tone(1000, 24000, 1, 10000);
    const mixed = tone(5000, 24000, 1, 10000).map((x, i) => x + low[i]!);
    const both = resample(mixed, 24000, 8000).subarray(800, 7200);
    expect(amplitudeAt(both, 1000, 8000)).toBeGreaterThan(9700);
    expect(amplitudeAt(both, 3000, 8000)).toBeLessThan(10);
  });

  it.each([
    [24000, 8000],
    [16000, 8000],
    [48000, 8000],
  ])(
    "%i Hz → %i Hz keeps time: a click lands on its own output sample, its response symmetric",
    (from, to) => {
      // Clicks on input samples that fall on output samples: near each edge and in the middle.
      const ratio = from / to;
      const at = [3, 500, 996];
      const input = new Int16Array(from / 8);
      for (const n of at) input[n * ratio] = 30000;
      const output = resample(input, from, to);
      expect(output.length).toBe(to / 8);
      for (const n of at) {
        expect(output[n]).toBeGreaterThan((0.8 * 30000) / ratio); // the band kept is most of the output Nyquist band
        for (let k = 1; k <= 3; k++) {
          expect(Math.abs(output[n + k]!)).toBeLessThan(output[n]!);
          expect(output[n - k]).toBe(output[n + k]);
        }
      }
    },
  );

  it("refuses rates that are not positive integers", () => {
    expect(() => resample(new Int16Array(10), 0, 8000)).toThrow(/positive integers/);
    expect(() => resample(new Int16Array(10), 8000.5, 8000)).toThrow(/positive integers/);
  });
});

describe("WAV", () => {
  it("reads a stereo 16 kHz file as mono at the requested rate", () => {
    const left = tone(440, 16000, 0.5, 8000);
    const right = tone(440, 16000, 0.5, 4000);
    const wav = new WaveFile();
    wav.fromScratch(2, 16000, "16", [left, right]);
    const dir = mkdtempSync(path.join(tmpdir(), "passk-wav-"));
    const file = path.join(dir, "stereo.wav");
    writeFileSync(file, wav.toBuffer());
    const mono = readWavFile(file, 8000);
    expect(mono.length).toBe(4000);
    const middle = mono.subarray(400, 3600);
    expect(amplitudeAt(middle, 440, 8000)).toBeGreaterThan(5800);
    expect(amplitudeAt(middle, 440, 8000)).toBeLessThan(6200);
    expect(() => readWavFile(path.join(dir, "none.wav"), 8000)).toThrow(
      /cannot read the WAV file .*none\.wav/,
    );
    expect(() => decodeWav(new Uint8Array([1, 2, 3]), 8000, "junk.wav")).toThrow(
      /junk\.wav is not a readable WAV/,
    );
  });

  it("reads 8-bit and 32-bit float files as PCM16", () => {
    const wav = new WaveFile();
    wav.fromScratch(
      1,
      8000,
      "32f",
      Array.from(tone(500, 8000, 0.25, 16384)).map((x) => x / 32768),
    );
    const pcm = decodeWav(wav.toBuffer(), 8000);
    expect(amplitudeAt(pcm, 500, 8000)).toBeGreaterThan(16000);
    expect(amplitudeAt(pcm, 500, 8000)).toBeLessThan(16800);
  });
});

describe("StreamResampler", () => {
  it.each([
    [24000, 8000],
    [8000, 24000],
    [16000, 8000],
    [44100, 8000],
  ])("%i Hz → %i Hz in uneven chunks gives exactly the whole-buffer result", (from, to) => {
    const input = tone(1234, from, 0.5, 9000);
    const stream = new StreamResampler(from, to);
    const parts: Int16Array[] = [];
    for (let at = 0, size = 1; at < input.length; at += size, size = (size * 7 + 3) % 997) {
      parts.push(stream.push(input.subarray(at, at + size)));
    }
    parts.push(stream.flush());
    const joined = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    expect([...joined]).toEqual([...resample(input, from, to)]);
    // The flush ended the stream.
    expect(() => stream.push(input.subarray(0, 10))).toThrow(/flushed/);
  });
});
