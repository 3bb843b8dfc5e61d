import { describe, expect, it } from "vitest";
import { AgentPlayout } from "../src/voice/agents/playout.js";
import {
  StreamResampler,
  decodeWire,
  encodeWire,
  pcm16Bytes,
  pcm16Samples,
} from "../src/voice/agents/wire-audio.js";

const tone = (hz: number, rate: number, seconds: number, amplitude = 8000) =>
  Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)),
  );

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const value of samples) sum += value * value;
  return Math.sqrt(sum / samples.length);
}

function frequency(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings++;
  return (crossings * rate) / samples.length;
}

describe("wire audio: μ-law and streaming resampling", () => {
  it("resampling tick by tick gives exactly what resampling the whole stream gives", () => {
    const input = tone(700, 24000, 1);
    const whole = new StreamResampler(24000, 8000).push(input);
    const streamed = new StreamResampler(24000, 8000);
    const parts: number[] = [];
    for (let at = 0; at < input.length; at += 1237)
      parts.push(...streamed.push(input.subarray(at, at + 1237)));
    expect(Int16Array.from(parts)).toEqual(whole);
  });

  it("keeps a tone in the band and removes one above the new Nyquist frequency (no aliasing)", () => {
    const kept = new StreamResampler(24000, 8000).push(tone(1000, 24000, 1)).subarray(100);
    expect(Math.abs(frequency(kept, 8000) - 1000)).toBeLessThan(5);
    expect(rms(kept) / (8000 / Math.SQRT2)).toBeGreaterThan(0.97);
    // 6 kHz would fold to 2 kHz at 8 kHz: the low-pass takes it out.
    const removed = new StreamResampler(24000, 8000).push(tone(6000, 24000, 1)).subarray(100);
    expect(rms(removed)).toBeLessThan(8000 * 0.01);
    const up = new StreamResampler(8000, 16000)
      .push(decodeWire(encodeWire(tone(3000, 8000, 1))))
      .subarray(100);
    expect(Math.abs(frequency(up, 16000) - 3000)).toBeLessThan(10);
  });

  it("PCM16 bytes are little-endian, both ways; rates that are not whole factors are refused", () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768]);
    expect([...pcm16Bytes(samples)]).toEqual([0, 0, 1, 0, 255, 255, 255, 127, 0, 128]);
    expect(pcm16Samples(pcm16Bytes(samples))).toEqual(samples);
    expect(() => new StreamResampler(44100, 8000)).toThrow(/not a whole factor/);
  });
});

describe("agent playout", () => {
  it("plays a tick at a time and spreads an utterance's text over its ticks", () => {
    const playout = new AgentPlayout(4);
    playout.addAudio("a", new Uint8Array(10).fill(1));
    playout.addText("a", "abcdefghij");
    playout.finish("a");
    const ticks = [playout.take(), playout.take(), playout.take(), playout.take()];
    expect(ticks.map((t) => t.text)).toEqual(["abcd", "efgh", "ij", ""]);
    expect(ticks.map((t) => t.containsSpeech)).toEqual([true, true, true, false]);
    expect([...ticks[2]!.audio]).toEqual([1, 1, 0xff, 0xff]);
  });

  it("text that arrives after its audio has played is shown once the utterance is over", () => {
    const playout = new AgentPlayout(4);
    playout.addAudio("a", new Uint8Array(4).fill(1));
    expect(playout.take().text).toBe("");
    playout.addText("a", "late");
    playout.finish("a");
    expect(playout.take()).toMatchObject({ text: "late", containsSpeech: false });
  });

  it("an interruption drops the audio not played and the text it covered", () => {
    const playout = new AgentPlayout(4);
    playout.addAudio("a", new Uint8Array(12).fill(1));
    playout.addText("a", "abcdefghijkl");
    expect(playout.take().text).toBe("abcd");
    expect(playout.interrupt()).toBe(8);
    expect(playout.take()).toMatchObject({ text: "", containsSpeech: false });
    playout.addAudio("b", new Uint8Array(4).fill(2));
    playout.addText("b", "new");
    expect(playout.take()).toMatchObject({ text: "new", containsSpeech: true });
  });
});
