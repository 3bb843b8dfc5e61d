import { mulaw } from "alawmulaw";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../src/core/seeded-random.js";
import {
  hearTestSpeech,
  speakTestSpeech,
  SYMBOL_SECONDS,
  TestSpeechListener,
  testSpeechSeconds,
} from "../src/testing/speech-codec.js";

const SAID = "My user id is mia_li_3668, reservation 4WQ150.";

function withSilence(seconds: number, rate: number, audio: Int16Array, after = 0.6): Int16Array {
  const lead = Math.round(seconds * rate);
  const out = new Int16Array(lead + audio.length + Math.round(after * rate));
  out.set(audio, lead);
  return out;
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

describe("the test speech codec", () => {
  it("speaks 50 ms per byte and is heard exactly at the rate it was made, from any starting sample", () => {
    for (const rate of [8000, 16000, 24000]) {
      const audio = speakTestSpeech(SAID, rate);
      expect(audio.length).toBe(Math.round(SYMBOL_SECONDS * rate) * SAID.length);
      expect(testSpeechSeconds(SAID)).toBeCloseTo(SAID.length * SYMBOL_SECONDS);
      expect(hearTestSpeech(withSilence(0.0371, rate, audio), rate)).toBe(SAID);
    }
  });

  it("survives the telephone line's μ-law and broadband noise 15 dB below the voice", () => {
    const audio = withSilence(0.3, 8000, speakTestSpeech(SAID, 8000));
    const random = seededRandom(7);
    const noiseLevel = rms(speakTestSpeech(SAID, 8000)) / 10 ** (15 / 20);
    const noisy = audio.map((s) => {
      const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      return Math.max(-32768, Math.min(32767, Math.round(s + noiseLevel * gaussian)));
    });
    const overTheLine = mulaw.decode(mulaw.encode(noisy));
    expect(hearTestSpeech(overTheLine, 8000)).toBe(SAID);
  });

  it("loses the bytes of frames dropped on the line, and only those", () => {
    const rate = 8000;
    const audio = speakTestSpeech(SAID, rate);
    const idAt = SAID.indexOf("3668");
    const perSymbol = SYMBOL_SECONDS * rate;
    // A 60 ms frame drop (silence) over the id's digits.
    audio.fill(0, idAt * perSymbol + 100, idAt * perSymbol + 100 + 0.06 * rate);
    const heard = hearTestSpeech(withSilence(0.2, rate, audio), rate);
    expect(heard).not.toBe(SAID);
    expect(heard.startsWith(SAID.slice(0, idAt))).toBe(true);
    expect(heard.endsWith(SAID.slice(idAt + 3))).toBe(true);
    expect(heard.length).toBeLessThan(SAID.length);
  });

  it("splits a stream fed tick by tick into utterances at half a second of silence", () => {
    const rate = 8000;
    const first = "Hello, I need help.";
    const second = "My order is #W2378156.";
    const stream = withSilence(
      0.25,
      rate,
      Int16Array.from([
        ...withSilence(0, rate, speakTestSpeech(first, rate), 0.8),
        ...speakTestSpeech(second, rate),
      ]),
      0.7,
    );
    const listener = new TestSpeechListener(rate);
    const heard: string[] = [];
    const hearingAt: boolean[] = [];
    for (let at = 0; at < stream.length; at += 1600) {
      heard.push(...listener.push(stream.slice(at, at + 1600)));
      hearingAt.push(listener.hearing);
    }
    expect(heard).toEqual([first, second]);
    expect(hearingAt).toContain(true);
    expect(listener.hearing).toBe(false);
    expect(listener.flush()).toEqual([]);
  });

  it("hears nothing in silence or in noise without tones", () => {
    const random = seededRandom(3);
    const noise = Int16Array.from({ length: 16000 }, () => Math.round((random() - 0.5) * 8000));
    expect(hearTestSpeech(new Int16Array(16000), 8000)).toBe("");
    expect(hearTestSpeech(noise, 8000)).toBe("");
  });
});
