import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError } from "../core/llm.js";
import { createSpeechModel, createTranscriptionModel, readWav, wavFile } from "../voice/speech-models.js";
import { startMockSpeechServer, type MockSpeechServer } from "./mock-speech-server.js";
import { hearTestSpeech, speakTestSpeech } from "./speech-codec.js";

const env = { OPENAI_API_KEY: "sk-mock-speech-key-000", ELEVENLABS_API_KEY: "xi-mock-speech-key-000" };
const TEXT = "my reservation id is 4owz5y.";

let server: MockSpeechServer;
beforeAll(async () => {
  server = await startMockSpeechServer();
});
afterAll(() => server.close());

async function post(
  path: string,
  body: RequestInit["body"],
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${env.OPENAI_API_KEY}`, ...headers },
  });
}

describe("mock speech server, OpenAI's endpoints", () => {
  it("speaks the text in the codec's voice: pcm at 24 kHz through the AI SDK, wav on request", async () => {
    const voice = createSpeechModel("openai:gpt-4o-mini-tts", {
      env,
      baseUrl: server.baseUrl,
      voice: "coral",
    });
    const audio = await voice.speak(TEXT);
    expect(audio.sampleRate).toBe(24_000);
    expect(hearTestSpeech(audio.samples, audio.sampleRate)).toBe(TEXT);
    expect(server.requests.at(-1)).toMatchObject({
      kind: "speech",
      model: "gpt-4o-mini-tts",
      voice: "coral",
      text: TEXT,
      format: "pcm",
      status: 200,
    });

    const wav = await post(
      "/v1/audio/speech",
      JSON.stringify({ model: "tts-1", input: TEXT, voice: "alloy", response_format: "wav" }),
      { "content-type": "application/json" },
    );
    expect(wav.headers.get("content-type")).toBe("audio/wav");
    const decoded = readWav(new Uint8Array(await wav.arrayBuffer()));
    expect(decoded.sampleRate).toBe(24_000);
    expect(decoded.samples).toEqual(speakTestSpeech(TEXT, 24_000));
  });

  it("transcribes an uploaded WAV through the AI SDK (json, billed whole seconds); verbose_json and text on request", async () => {
    const samples = speakTestSpeech(TEXT, 8000);
    const seconds = samples.length / 8000;
    for (const model of ["whisper-1", "gpt-4o-transcribe"]) {
      const ears = createTranscriptionModel(`openai:${model}`, { env, baseUrl: server.baseUrl });
      expect(await ears.transcribe({ samples, sampleRate: 8000 })).toEqual({
        text: TEXT,
        audioSeconds: Math.ceil(seconds),
      });
      expect(server.requests.at(-1)).toMatchObject({
        kind: "transcription",
        model,
        format: "json",
        text: TEXT,
      });
    }
    const upload = (format: string) => {
      const form = new FormData();
      form.append("model", "whisper-1");
      form.append("response_format", format);
      form.append("file", new Blob([wavFile({ samples, sampleRate: 8000 })], { type: "audio/wav" }), "a.wav");
      return post("/v1/audio/transcriptions", form);
    };
    expect(await (await upload("verbose_json")).json()).toMatchObject({
      text: TEXT,
      duration: seconds,
      segments: [{ start: 0, end: seconds, text: TEXT }],
    });
    expect(await (await upload("text")).text()).toBe(TEXT);
    // Silence is heard as nothing: an empty transcript, not a failure.
    const whisper = createTranscriptionModel("openai:whisper-1", { env, baseUrl: server.baseUrl });
    expect(await whisper.transcribe({ samples: new Int16Array(8000), sampleRate: 8000 })).toEqual({
      text: "",
      audioSeconds: 1,
    });
  });

  it("refuses a request without a key (401), a format it cannot speak and an upload that is not WAV (400)", async () => {
    const json = { "content-type": "application/json" };
    const keyless = await fetch(`${server.baseUrl}/audio/speech`, {
      method: "POST",
      body: JSON.stringify({ model: "tts-1", input: "hi" }),
      headers: json,
    });
    expect(keyless.status).toBe(401);
    const mp3 = await post(
      "/v1/audio/speech",
      JSON.stringify({ model: "tts-1", input: "hi", response_format: "mp3" }),
      json,
    );
    expect(mp3.status).toBe(400);
    expect(((await mp3.json()) as { error: { message: string } }).error.message).toMatch(
      /format "mp3" is not spoken here/,
    );
    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("file", new Blob([new Uint8Array([1, 2, 3])]), "a.mp3");
    const notWav = await post("/v1/audio/transcriptions", form);
    expect(notWav.status).toBe(400);
    expect(await notWav.text()).toMatch(/not a 16-bit PCM WAV file/);
  });
});

describe("mock speech server, ElevenLabs' endpoints", () => {
  it("speaks with the persona's voice id and transcribes with Scribe, through the AI SDK's ElevenLabs provider", async () => {
    const voice = createSpeechModel("elevenlabs:eleven_v3", {
      env,
      baseUrl: server.url,
      voice: "EZfwTIuZL0WWIVnjSgTF",
    });
    const audio = await voice.speak(TEXT);
    expect(audio.sampleRate).toBe(24_000);
    expect(hearTestSpeech(audio.samples, audio.sampleRate)).toBe(TEXT);
    expect(server.requests.at(-1)).toMatchObject({
      kind: "speech",
      path: "/v1/text-to-speech/EZfwTIuZL0WWIVnjSgTF",
      model: "eleven_v3",
      format: "pcm_24000",
    });
    const scribe = createTranscriptionModel("elevenlabs:scribe_v1", { env, baseUrl: server.url });
    const heard = await scribe.transcribe({ samples: speakTestSpeech(TEXT, 16_000), sampleRate: 16_000 });
    expect(heard.text).toBe(TEXT);
    expect(heard.audioSeconds).toBeCloseTo(speakTestSpeech(TEXT, 16_000).length / 16_000, 6);
    expect(server.requests.at(-1)).toMatchObject({
      kind: "transcription",
      path: "/v1/speech-to-text",
      model: "scribe_v1",
    });
  });
});

describe("provider failures through the factory's models", () => {
  it("refused credentials are a ConfigError naming the variable; a 503 is retried, then an infrastructure failure; no key in either", async () => {
    const voice = createSpeechModel("openai:tts-1", { env, baseUrl: server.baseUrl, maxRetries: 1 });
    server.fail({ kind: "speech", status: 401, message: `bad key ${env.OPENAI_API_KEY}`, times: 1 });
    const refused = await voice.speak("hi").catch((error: unknown) => error);
    expect(ConfigError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(
      /^speech model openai:tts-1: the provider refused the credentials \(HTTP 401: .*\); check OPENAI_API_KEY$/,
    );
    expect((refused as Error).message).not.toContain(env.OPENAI_API_KEY);

    const before = server.requests.length;
    server.fail({
      kind: "transcription",
      status: 503,
      message: `overloaded ${env.OPENAI_API_KEY}`,
      times: 2,
    });
    const ears = createTranscriptionModel("openai:whisper-1", {
      env,
      baseUrl: server.baseUrl,
      maxRetries: 1,
    });
    const failed = await ears
      .transcribe({ samples: speakTestSpeech("hi", 8000), sampleRate: 8000 })
      .catch((error: unknown) => error);
    expect(InfrastructureError.isInstance(failed)).toBe(true);
    expect((failed as Error).message).toMatch(
      /^transcription model openai:whisper-1 failed \(HTTP 503: overloaded \[redacted\]\) after 2 attempts$/,
    );
    expect(server.requests.slice(before).map((r) => r.status)).toEqual([503, 503]);
  });
});
