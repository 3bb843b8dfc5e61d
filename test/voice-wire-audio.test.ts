import alawmulaw from "alawmulaw";
import { describe, expect, it } from "vitest";
import {
  CallerEncoder,
  encodeCapture,
  floatToPcm16,
  mulawDecode,
  mulawEncode,
} from "../src/voice/wire-audio.js";

// The wire math the browser and the server share: μ-law as the G.711 reference package computes it,
// and the microphone encoder's ticks equal to the whole-buffer path.

const { mulaw } = alawmulaw;

describe("wire audio shared with the web app", () => {
  it("μ-law encodes every PCM16 value and decodes every code as alawmulaw does", () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    expect(Buffer.from(mulawEncode(all)).equals(Buffer.from(mulaw.encode(all)))).toBe(true);
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect([...mulawDecode(codes)]).toEqual([...mulaw.decode(codes)]);
  });

  it("the microphone encoder's ticks are the whole capture resampled and encoded, cut into ticks", () => {
    const rate = 48_000;
    const seconds = 1.3;
    const floats = new Float32Array(Math.round(rate * seconds));
    for (let i = 0; i < floats.length; i++)
      floats[i] =
        0.4 * Math.sin((2 * Math.PI * 700 * i) / rate) + 0.2 * Math.sin((2 * Math.PI * 2300 * i) / rate);
    const pcm = floatToPcm16(floats);
    const encoder = new CallerEncoder(rate, 8000, 1600);
    const ticks: Uint8Array[] = [];
    // Chunks of 128 samples, as an AudioWorklet delivers them.
    for (let at = 0; at < pcm.length; at += 128) ticks.push(...encoder.push(pcm.subarray(at, at + 128)));
    const sent = Buffer.concat(ticks);
    const whole = encodeCapture(pcm, rate, 8000);
    expect(ticks.every((tick) => tick.length === 1600)).toBe(true);
    expect(sent.length).toBe(9600); // 1.3 s of 8 kHz less the filter's look-ahead: six whole ticks
    expect(sent.equals(Buffer.from(whole.subarray(0, sent.length)))).toBe(true);
  });
});
