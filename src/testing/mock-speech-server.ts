import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readWav, wavFile } from "../voice/speech-models.js";
import { hearTestSpeech, speakTestSpeech } from "./speech-codec.js";

/** The rate of the audio the mock speaks (OpenAI's `pcm` rate, and its `wav`). */
export const MOCK_SPEECH_SAMPLE_RATE = 24_000;

/** One request the mock speech server answered. */
export interface MockSpeechRequest {
  /** From 0, over every request received. */
  index: number;
  /** `speech`: text to speech (OpenAI's `/audio/speech`, ElevenLabs' `/text-to-speech/{voice}`); `transcription`: speech to text. */
  kind: "speech" | "transcription";
  path: string;
  model: string;
  /** The voice asked for (speech). */
  voice?: string;
  /** The text to speak (speech), or what the mock heard (transcription). */
  text: string;
  /** The audio format asked for (`pcm`, `wav`, `pcm_24000`, `json`, `verbose_json`, `text`…). */
  format: string;
  /** Seconds of audio spoken or heard. */
  audioSeconds: number;
  status: number;
}

/** A failure to answer with instead of audio or text: an HTTP status with the provider's error JSON. */
export interface MockSpeechFailure {
  kind: "speech" | "transcription";
  status: number;
  message?: string;
  /** How many requests fail (default: all). */
  times?: number;
}

export interface MockSpeechServerOptions {
  failures?: readonly MockSpeechFailure[];
}

export interface MockSpeechServer {
  /** `http://127.0.0.1:<port>`: ElevenLabs' base URL (its paths start with `/v1`). */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`: OpenAI's base URL. */
  readonly baseUrl: string;
  readonly requests: readonly MockSpeechRequest[];
  /** Makes the next requests of a kind fail (see {@link MockSpeechFailure}). */
  fail(failure: MockSpeechFailure): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible (and ElevenLabs-compatible) speech server on 127.0.0.1 whose voice is the test
 * speech codec (`speakTestSpeech`) and whose ears decode it (`hearTestSpeech`): what it hears is exactly
 * what survived the trip through the line, resampling and μ-law. Endpoints:
 *
 * - `POST …/audio/speech` (JSON `model`, `input`, `voice`, `response_format` `pcm` — raw 16-bit
 *   little-endian mono at 24 kHz, as OpenAI's — or `wav`), and ElevenLabs'
 *   `POST …/text-to-speech/{voice}?output_format=pcm_<rate>` (JSON `text`, `model_id`);
 * - `POST …/audio/transcriptions` (multipart `file` — a 16-bit PCM WAV — `model`, `response_format`
 *   `json` with usage seconds, `verbose_json` with `duration` and a segment, or `text`), and ElevenLabs'
 *   `POST …/speech-to-text` (multipart `file`, `model_id`; words with times).
 *
 * A request without a key (`Authorization: Bearer …` or `xi-api-key`) gets a 401; other formats a 400.
 *
 * @example
 * const speech = await startMockSpeechServer();
 * const ears = createTranscriptionModel("openai:whisper-1", { baseUrl: speech.baseUrl, env: { OPENAI_API_KEY: "test" } });
 */
export async function startMockSpeechServer(
  options: MockSpeechServerOptions = {},
): Promise<MockSpeechServer> {
  const requests: MockSpeechRequest[] = [];
  const failures: MockSpeechFailure[] = [...(options.failures ?? [])];
  let received = 0;

  const server = createServer((incoming, response) => {
    const index = received++;
    handle(incoming, response, index).catch((error: unknown) => {
      if (!response.headersSent)
        sendError(
          response,
          500,
          `mock speech server: ${error instanceof Error ? error.message : String(error)}`,
        );
    });
  });

  async function handle(incoming: IncomingMessage, response: ServerResponse, index: number): Promise<void> {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const body = await readBody(incoming);
    const path = url.pathname;
    const elevenVoice = /\/text-to-speech\/([^/]+)$/.exec(path);
    const kind =
      path.endsWith("/audio/speech") || elevenVoice
        ? "speech"
        : path.endsWith("/audio/transcriptions") || path.endsWith("/speech-to-text")
          ? "transcription"
          : undefined;
    if (incoming.method !== "POST" || kind === undefined) {
      sendError(response, 404, `mock speech server: no endpoint ${incoming.method ?? ""} ${path}`);
      return;
    }
    const keyed =
      /^Bearer \S+/.test(incoming.headers.authorization ?? "") ||
      (incoming.headers["xi-api-key"] ?? "") !== "";
    if (!keyed) {
      sendError(response, 401, "mock speech server: no API key in the request");
      return;
    }
    const record = (entry: Omit<MockSpeechRequest, "index" | "kind" | "path">) =>
      requests.push({ index, kind, path, ...entry });

    const failure = failures.find((f) => f.kind === kind && (f.times ?? Infinity) > 0);
    if (failure) {
      if (failure.times !== undefined) failure.times--;
      record({ model: "", text: "", format: "", audioSeconds: 0, status: failure.status });
      sendError(
        response,
        failure.status,
        failure.message ?? `mock speech server: scripted ${failure.status}`,
      );
      return;
    }

    if (kind === "speech") {
      const json = parseJson(body);
      const text = stringField(json, elevenVoice ? "text" : "input");
      const model = stringField(json, elevenVoice ? "model_id" : "model");
      const voice = elevenVoice ? decodeURIComponent(elevenVoice[1]!) : stringField(json, "voice");
      const format = elevenVoice
        ? (url.searchParams.get("output_format") ?? "mp3_44100_128")
        : stringField(json, "response_format") || "mp3";
      const rate = elevenVoice
        ? /^pcm_(\d+)$/.exec(format)?.[1]
        : format === "pcm" || format === "wav"
          ? "24000"
          : undefined;
      if (text === "" || rate === undefined) {
        record({ model, voice, text, format, audioSeconds: 0, status: 400 });
        sendError(
          response,
          400,
          text === ""
            ? "mock speech server: no text to speak"
            : `mock speech server: format "${format}" is not spoken here (${elevenVoice ? "pcm_<rate>" : "pcm, wav"})`,
        );
        return;
      }
      const sampleRate = Number(rate);
      const samples = speakTestSpeech(text, sampleRate);
      record({ model, voice, text, format, audioSeconds: samples.length / sampleRate, status: 200 });
      const audio = format === "wav" ? wavFile({ samples, sampleRate }) : pcmBytes(samples);
      response.writeHead(200, {
        "content-type": format === "wav" ? "audio/wav" : "audio/pcm",
        "content-length": audio.byteLength,
      });
      response.end(audio);
      return;
    }

    const form = await new Request("http://127.0.0.1/", {
      method: "POST",
      headers: { "content-type": incoming.headers["content-type"] ?? "" },
      body,
    }).formData();
    const file = form.get("file");
    const eleven = path.endsWith("/speech-to-text");
    const model = String(form.get(eleven ? "model_id" : "model") ?? "");
    const format = eleven ? "json" : String(form.get("response_format") ?? "json");
    if (!(file instanceof Blob)) {
      record({ model, text: "", format, audioSeconds: 0, status: 400 });
      sendError(response, 400, "mock speech server: no audio file in the upload");
      return;
    }
    let audio;
    try {
      audio = readWav(new Uint8Array(await file.arrayBuffer()));
    } catch (error) {
      record({ model, text: "", format, audioSeconds: 0, status: 400 });
      sendError(
        response,
        400,
        `mock speech server: the upload is not a 16-bit PCM WAV file (${(error as Error).message})`,
      );
      return;
    }
    const duration = audio.samples.length / audio.sampleRate;
    const text = hearTestSpeech(audio.samples, audio.sampleRate);
    record({ model, text, format, audioSeconds: duration, status: 200 });
    if (eleven) {
      const words = text === "" ? [] : text.split(/\s+/);
      const step = duration / Math.max(1, words.length);
      sendJson(response, {
        language_code: "en",
        language_probability: 1,
        text,
        words: words.map((word, i) => ({ text: word, type: "word", start: i * step, end: (i + 1) * step })),
      });
    } else if (format === "text") {
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      response.end(text);
    } else if (format === "verbose_json") {
      sendJson(response, {
        task: "transcribe",
        language: "english",
        duration,
        text,
        segments:
          text === ""
            ? []
            : [
                {
                  id: 0,
                  seek: 0,
                  start: 0,
                  end: duration,
                  text,
                  tokens: [],
                  temperature: 0,
                  avg_logprob: 0,
                  compression_ratio: 1,
                  no_speech_prob: 0,
                },
              ],
      });
    } else {
      sendJson(response, { text, usage: { type: "duration", seconds: Math.ceil(duration) } });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    get requests() {
      return requests;
    },
    fail(failure) {
      failures.push({ ...failure });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

function stringField(value: unknown, key: string): string {
  if (typeof value !== "object" || value === null) return "";
  const field = (value as Record<string, unknown>)[key];
  return typeof field === "string" ? field : "";
}

function pcmBytes(samples: Int16Array): Buffer {
  const bytes = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i]!, i * 2);
  return bytes;
}

function sendJson(response: ServerResponse, value: unknown): void {
  const text = JSON.stringify(value);
  response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

/** An error in OpenAI's shape (`{error: {message, type}}`), which ElevenLabs' SDK reads too (as text). */
function sendError(response: ServerResponse, status: number, message: string): void {
  const text = JSON.stringify({
    error: { message, type: status >= 500 ? "server_error" : "invalid_request_error" },
  });
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}
