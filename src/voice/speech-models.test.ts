import { describe, expect, it } from "vitest";
import { ConfigError, UnknownNameError } from "../core/errors.js";
import {
  createSpeechModel,
  createTranscriptionModel,
  personaVoice,
  readWav,
  wavFile,
} from "./speech-models.js";

const env = { OPENAI_API_KEY: "sk-test-abcdefghijkl", ELEVENLABS_API_KEY: "el-test-key-123456" };

describe("speech model specs", () => {
  it("reads a provider and a model, with the provider's default voice unless one is given", () => {
    const tts = createSpeechModel("openai:gpt-4o-mini-tts", { env });
    expect([tts.spec, tts.provider, tts.model, tts.voice]).toEqual([
      "openai:gpt-4o-mini-tts",
      "openai",
      "gpt-4o-mini-tts",
      "alloy",
    ]);
    expect(createSpeechModel("openai:tts-1", { env, voice: "coral" }).voice).toBe("coral");
    const eleven = createSpeechModel("elevenlabs:eleven_v3", { env });
    expect([eleven.provider, eleven.model]).toEqual(["elevenlabs", "eleven_v3"]);
    expect(createSpeechModel("espeak-ng:en-gb").voice).toBe("en-gb");
    expect(createSpeechModel("espeak-ng").voice).toBe("en-us");
    expect(createTranscriptionModel("openai:whisper-1", { env }).spec).toBe("openai:whisper-1");
    expect(createTranscriptionModel("openai:gpt-4o-transcribe", { env }).model).toBe("gpt-4o-transcribe");
    expect(createTranscriptionModel("elevenlabs:scribe_v1", { env }).provider).toBe("elevenlabs");
  });

  it("an unknown provider is a sentence listing the known ones", () => {
    const speech = (() => {
      try {
        createSpeechModel("azure:tts", { env });
      } catch (error) {
        return error;
      }
    })();
    expect(UnknownNameError.isInstance(speech)).toBe(true);
    expect((speech as Error).message).toMatch(/speech model provider "azure" is not known/);
    expect((speech as Error).message).toMatch(/openai, elevenlabs, espeak-ng/);
    // espeak-ng speaks but does not listen.
    expect(() => createTranscriptionModel("espeak-ng:en-us", { env })).toThrow(
      /transcription model provider "espeak-ng" is not known \(known: openai, elevenlabs\)/,
    );
  });

  it("a missing key, model or a bad base URL is a ConfigError before any call, naming what to set", () => {
    expect(() => createSpeechModel("openai:gpt-4o-mini-tts", { env: {} })).toThrow(ConfigError);
    expect(() => createSpeechModel("openai:gpt-4o-mini-tts", { env: {} })).toThrow(/OPENAI_API_KEY/);
    expect(() => createTranscriptionModel("elevenlabs:scribe_v1", { env: {} })).toThrow(/ELEVENLABS_API_KEY/);
    expect(() => createSpeechModel("openai:", { env })).toThrow(/has no model name; write openai:<model>/);
    expect(() => createSpeechModel("openai:tts-1", { env, baseUrl: "ftp://x" })).toThrow(
      /not an http\(s\) URL; set OPENAI_BASE_URL/,
    );
  });

  it("a persona's voice: the reference's ElevenLabs voice, replaced by TAU2_VOICE_ID_<PERSONA>", () => {
    expect(personaVoice("matt_delaney", "elevenlabs", {})).toEqual({
      voice: "EZfwTIuZL0WWIVnjSgTF",
      overridden: false,
    });
    expect(personaVoice("matt_delaney", "openai", {})).toBeUndefined();
    expect(personaVoice("wei_lin", "openai", { TAU2_VOICE_ID_WEI_LIN: "nova" })).toEqual({
      voice: "nova",
      overridden: true,
    });
    expect(() => personaVoice("nobody", "elevenlabs", {})).toThrow(/voice persona "nobody" is not known/);
  });
});

describe("WAV files", () => {
  it("round-trips mono 16-bit PCM, and reads a streamed file whose sizes are placeholders", () => {
    const samples = Int16Array.from([0, 1000, -1000, 32767, -32768]);
    const bytes = wavFile({ samples, sampleRate: 8000 });
    expect(readWav(bytes)).toEqual({ samples, sampleRate: 8000 });
    // As `espeak-ng --stdout` writes it: RIFF and data sizes unknown (0x7fffffff-ish).
    const streamed = bytes.slice();
    new DataView(streamed.buffer).setUint32(40, 0x7ffff000, true);
    expect(readWav(streamed).samples).toEqual(samples);
    expect(() => readWav(new Uint8Array(10))).toThrow(/not a WAV file/);
  });
});

describe("espeak-ng (offline speech)", () => {
  it("speaks a text as PCM whose length grows with the text", async () => {
    const espeak = createSpeechModel("espeak-ng:en-us");
    const short = await espeak.speak("Hello.");
    const long = await espeak.speak(
      "Hello, I would like to change my flight to Boston next Tuesday, please.",
    );
    expect(short.sampleRate).toBe(22050);
    expect(short.samples.length).toBeGreaterThan(0.3 * 22050);
    expect(long.samples.length).toBeGreaterThan(2 * short.samples.length);
    const peak = long.samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0);
    expect(peak).toBeGreaterThan(3000);
  });

  it("an unknown espeak-ng voice is an infrastructure failure naming espeak-ng's complaint", async () => {
    await expect(createSpeechModel("espeak-ng:bogus").speak("Hi")).rejects.toThrow(
      /espeak-ng exited with 1: Error: The specified espeak-ng voice does not exist/,
    );
  });
});
