import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import type * as ElevenLabsPackage from "@ai-sdk/elevenlabs";
import { createOpenAI, type OpenAIProvider } from "@ai-sdk/openai";
import {
  APICallError,
  experimental_generateSpeech as generateSpeech,
  experimental_transcribe as transcribe,
  NoTranscriptGeneratedError,
  RetryError,
} from "ai";
import { ConfigError, UnknownNameError } from "../core/errors.js";
import { InfrastructureError } from "../core/llm.js";
import { httpFetch } from "../llm/http-fetch.js";
import { bytesToPcm16 } from "./audio.js";
import {
  createDefaultProviderRegistry,
  envValue,
  loadProviderPackage,
  type ProviderEnv,
} from "../llm/provider-registry.js";
import { redactSecrets, urlCredentials } from "../llm/redact.js";

// Speech models for both sides of a call: the caller's voice (text → speech) and the cascaded agent's
// ears and voice (speech → text → speech). One spec each, `<provider>:<model>`, read the way
// `createLanguageModel` reads an LLM spec: the key and base URL from the provider's variables, every
// configuration problem raised here, before any call, and no key in any error text.

/** Mono 16-bit PCM at a sample rate. */
export interface SpeechAudio {
  samples: Int16Array;
  sampleRate: number;
}

export interface SpeakOptions {
  /** A voice of the provider (OpenAI: `alloy`, `coral`…; ElevenLabs: a voice id; espeak-ng: `en-us+f3`). */
  voice?: string;
  /** How to speak (OpenAI's gpt-4o-mini-tts takes them; other models ignore them). */
  instructions?: string;
  signal?: AbortSignal;
}

/** Text to speech. A provider failure throws InfrastructureError; refused credentials a ConfigError. */
export interface SpeechModel {
  /** `<provider>:<model>`, e.g. `openai:gpt-4o-mini-tts`. Never contains secrets. */
  readonly spec: string;
  readonly provider: string;
  readonly model: string;
  /** The voice used when `speak` is given none. */
  readonly voice: string;
  speak(text: string, options?: SpeakOptions): Promise<SpeechAudio>;
}

/** What a transcription model heard. */
export interface Transcript {
  text: string;
  /** Seconds of audio transcribed (what the provider bills). */
  audioSeconds: number;
}

/** Speech to text. A provider failure throws InfrastructureError; refused credentials a ConfigError. */
export interface TranscriptionModel {
  /** `<provider>:<model>`, e.g. `openai:gpt-4o-transcribe`. Never contains secrets. */
  readonly spec: string;
  readonly provider: string;
  readonly model: string;
  /** Empty text when nothing intelligible was heard. */
  transcribe(audio: SpeechAudio, options?: { signal?: AbortSignal }): Promise<Transcript>;
}

export interface SpeechModelOptions {
  /** Where keys, base URLs and voice overrides are read from. Defaults to `process.env`. */
  env?: ProviderEnv;
  /** Overrides the provider's base-URL variable (`OPENAI_BASE_URL`, `ELEVENLABS_BASE_URL`). */
  baseUrl?: string;
  /** Retries of a failed call (429, 5xx) inside the AI SDK; default 2. */
  maxRetries?: number;
}

/** Speech providers: `openai` (`/v1/audio/speech`), `elevenlabs`, and `espeak-ng` (offline, no key). */
export const SPEECH_PROVIDERS = ["openai", "elevenlabs", "espeak-ng"] as const;

/** Transcription providers: `openai` (`/v1/audio/transcriptions`) and `elevenlabs` (Scribe). */
export const TRANSCRIPTION_PROVIDERS = ["openai", "elevenlabs"] as const;

/** OpenAI's speech endpoint answers `pcm` as raw 16-bit little-endian mono at this rate. */
export const OPENAI_PCM_SAMPLE_RATE = 24_000;

/** The rate asked of ElevenLabs (`pcm_24000`: raw 16-bit little-endian mono). */
const ELEVENLABS_PCM_SAMPLE_RATE = 24_000;
const ELEVENLABS_DEFAULT_BASE_URL = "https://api.elevenlabs.io";
const DEFAULT_VOICES: Record<(typeof SPEECH_PROVIDERS)[number], string> = {
  openai: "alloy",
  // ElevenLabs' default voice in its SDK ("Rachel").
  elevenlabs: "21m00Tcm4TlvDq8ikWAM",
  "espeak-ng": "en-us",
};

/**
 * The τ-voice personas' ElevenLabs voices (the reference's defaults). `TAU2_VOICE_ID_<PERSONA>` (the
 * reference's variable, e.g. `TAU2_VOICE_ID_MATT_DELANEY`) replaces one; results made so are not
 * comparable with the official leaderboard.
 */
export const PERSONA_VOICE_IDS: Readonly<Record<string, string>> = {
  matt_delaney: "EZfwTIuZL0WWIVnjSgTF",
  lisa_brenner: "avQFHuQU7IjJf0u5MMBq",
  mildred_kaplan: "oNqrZRHHLWtHYsVNkRqe",
  arjun_roy: "m1hMce9ingsjyIjkshRv",
  wei_lin: "GQ2S7ULnVjrOALFRfnsh",
  mamadou_diallo: "ET3963lBcRmodt3ZaTBS",
  priya_patil: "mnHhNJntmsPxJsZvYVM7",
};

/** The variable that overrides a persona's voice: `TAU2_VOICE_ID_<PERSONA IN CAPITALS>`. */
export function personaVoiceVariable(persona: string): string {
  return `TAU2_VOICE_ID_${persona.toUpperCase()}`;
}

/**
 * The voice a persona speaks with on a provider: `TAU2_VOICE_ID_<PERSONA>` when set (`overridden`:
 * not the official voice), else the persona's ElevenLabs voice on `elevenlabs`, else undefined (the
 * speech model's own default voice). Throws UnknownNameError for a persona the reference does not have.
 */
export function personaVoice(
  persona: string,
  provider: string,
  env: ProviderEnv = process.env,
): { voice: string; overridden: boolean } | undefined {
  const official = PERSONA_VOICE_IDS[persona];
  if (official === undefined)
    throw new UnknownNameError("voice persona", persona, Object.keys(PERSONA_VOICE_IDS));
  const override = envValue(env, personaVoiceVariable(persona));
  if (override !== undefined) return { voice: override, overridden: true };
  return provider === "elevenlabs" ? { voice: official, overridden: false } : undefined;
}

/**
 * A speech model from `<provider>:<model>`: `openai:gpt-4o-mini-tts` (or `tts-1`, `tts-1-hd`;
 * `OPENAI_API_KEY`, `OPENAI_BASE_URL`), `elevenlabs:eleven_v3` (or `eleven_flash_v2_5`…;
 * `ELEVENLABS_API_KEY`, `ELEVENLABS_BASE_URL`), `espeak-ng:en-us` (Debian's `espeak-ng` program, the
 * model part its voice; no key, no network). Audio comes back as PCM: the providers are asked for raw
 * 16-bit PCM at 24 kHz, espeak-ng gives 22.05 kHz.
 *
 * @example
 * const voice = createSpeechModel("openai:gpt-4o-mini-tts", { voice: "coral" });
 * const { samples, sampleRate } = await voice.speak("Your flight is confirmed.");
 */
export function createSpeechModel(
  spec: string,
  options: SpeechModelOptions & { voice?: string } = {},
): SpeechModel {
  const { provider, model } = parseSpeechSpec(spec, SPEECH_PROVIDERS, "speech model");
  const label = `${provider}:${model}`;
  if (provider === "espeak-ng") {
    const voice = nonEmpty(options.voice) ?? (model === "default" ? DEFAULT_VOICES["espeak-ng"] : model);
    return {
      spec: label,
      provider,
      model,
      voice,
      speak: (text, speakOptions) => espeakSpeak(text, speakOptions?.voice ?? voice, speakOptions?.signal),
    };
  }
  const env = options.env ?? process.env;
  const voice = nonEmpty(options.voice) ?? DEFAULT_VOICES[provider];
  const maxRetries = options.maxRetries ?? 2;
  const connection = connect(provider, label, options, env);
  const sdkModel =
    provider === "openai"
      ? openAiProvider(connection).speech(model)
      : elevenLabsProvider(connection).speech(model);
  const outputFormat = provider === "openai" ? "pcm" : `pcm_${ELEVENLABS_PCM_SAMPLE_RATE}`;
  const sampleRate = provider === "openai" ? OPENAI_PCM_SAMPLE_RATE : ELEVENLABS_PCM_SAMPLE_RATE;
  return {
    spec: label,
    provider,
    model,
    voice,
    async speak(text, speakOptions = {}) {
      try {
        const result = await generateSpeech({
          model: sdkModel,
          text,
          voice: speakOptions.voice ?? voice,
          outputFormat,
          ...(speakOptions.instructions !== undefined && provider === "openai"
            ? { instructions: speakOptions.instructions }
            : {}),
          maxRetries,
          ...(speakOptions.signal ? { abortSignal: speakOptions.signal } : {}),
        });
        return {
          samples: bytesToPcm16(result.audio.uint8Array.subarray(0, result.audio.uint8Array.length & ~1)),
          sampleRate,
        };
      } catch (error) {
        throw providerFailure(`speech model ${label}`, error, connection.secrets, connection.apiKeyEnv);
      }
    },
  };
}

/**
 * A transcription model from `<provider>:<model>`: `openai:gpt-4o-transcribe`, `openai:whisper-1`,
 * `openai:gpt-4o-mini-transcribe` (`OPENAI_API_KEY`, `OPENAI_BASE_URL`) or `elevenlabs:scribe_v1`
 * (`ELEVENLABS_API_KEY`, `ELEVENLABS_BASE_URL`). Audio is uploaded as a 16-bit PCM WAV file at its own
 * rate.
 *
 * @example
 * const ears = createTranscriptionModel("openai:gpt-4o-transcribe");
 * const { text } = await ears.transcribe({ samples, sampleRate: 8000 });
 */
export function createTranscriptionModel(spec: string, options: SpeechModelOptions = {}): TranscriptionModel {
  const { provider, model } = parseSpeechSpec(spec, TRANSCRIPTION_PROVIDERS, "transcription model");
  const label = `${provider}:${model}`;
  const env = options.env ?? process.env;
  const maxRetries = options.maxRetries ?? 2;
  const connection = connect(provider, label, options, env);
  const sdkModel =
    provider === "openai"
      ? openAiProvider(connection).transcription(model)
      : elevenLabsProvider(connection).transcription(model);
  return {
    spec: label,
    provider,
    model,
    async transcribe(audio, transcribeOptions = {}) {
      const seconds = audio.samples.length / audio.sampleRate;
      try {
        const result = await transcribe({
          model: sdkModel,
          audio: wavFile(audio),
          maxRetries,
          ...(transcribeOptions.signal ? { abortSignal: transcribeOptions.signal } : {}),
        });
        return { text: result.text.trim(), audioSeconds: result.durationInSeconds ?? seconds };
      } catch (error) {
        // The provider heard nothing it could write down: an empty transcript, not a failure.
        if (NoTranscriptGeneratedError.isInstance(error)) return { text: "", audioSeconds: seconds };
        throw providerFailure(
          `transcription model ${label}`,
          error,
          connection.secrets,
          connection.apiKeyEnv,
        );
      }
    },
  };
}

function parseSpeechSpec<P extends string>(
  spec: string,
  known: readonly P[],
  what: string,
): { provider: P; model: string } {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(":");
  const provider = colon < 0 ? trimmed : trimmed.slice(0, colon);
  const model = colon < 0 ? "" : trimmed.slice(colon + 1);
  if (!(known as readonly string[]).includes(provider))
    throw new UnknownNameError(
      `${what} provider`,
      provider,
      known,
      `Write <provider>:<model>, e.g. ${known[0]}:…`,
    );
  if (model === "") {
    if (provider === "espeak-ng") return { provider: provider as P, model: "default" };
    throw new ConfigError(`${what} "${spec}" has no model name; write ${provider}:<model>`);
  }
  return { provider: provider as P, model };
}

interface Connection {
  apiKey: string;
  apiKeyEnv: string;
  baseUrl: string;
  /** Values no error text may carry. */
  secrets: string[];
}

/** The key and base URL of `openai` (as passk's LLM provider reads them) or `elevenlabs`. */
function connect(
  provider: "openai" | "elevenlabs",
  label: string,
  options: SpeechModelOptions,
  env: ProviderEnv,
): Connection {
  let apiKeyEnv: string;
  let baseUrlEnv: string;
  let defaultBaseUrl: string;
  if (provider === "openai") {
    const definition = createDefaultProviderRegistry().get("openai");
    apiKeyEnv = definition.apiKeyEnv;
    baseUrlEnv = definition.baseUrlEnv;
    defaultBaseUrl = typeof definition.defaultBaseUrl === "string" ? definition.defaultBaseUrl : "";
  } else {
    loadProviderPackage("elevenlabs", ELEVENLABS_PACKAGE);
    apiKeyEnv = "ELEVENLABS_API_KEY";
    baseUrlEnv = "ELEVENLABS_BASE_URL";
    defaultBaseUrl = ELEVENLABS_DEFAULT_BASE_URL;
  }
  const apiKey = envValue(env, apiKeyEnv);
  if (apiKey === undefined)
    throw new ConfigError(`${label} needs ${apiKeyEnv}: export it (for a keyless demo use espeak-ng:en-us)`);
  const baseUrl = nonEmpty(options.baseUrl) ?? envValue(env, baseUrlEnv) ?? defaultBaseUrl;
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
    throw new ConfigError(
      `${label}: the base URL "${baseUrl}" is not an http(s) URL; set ${baseUrlEnv} to e.g. http://localhost:8000/v1`,
    );
  return {
    apiKey,
    apiKeyEnv,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    secrets: [apiKey, ...urlCredentials(baseUrl)],
  };
}

const ELEVENLABS_PACKAGE = { name: "@ai-sdk/elevenlabs", major: 2 } as const;

function openAiProvider(connection: Connection): OpenAIProvider {
  return createOpenAI({ apiKey: connection.apiKey, baseURL: connection.baseUrl, fetch: httpFetch });
}

/** ElevenLabs' SDK calls api.elevenlabs.io; another base URL (a proxy, the mock server) is reached by rewriting it. */
function elevenLabsProvider(connection: Connection): ReturnType<typeof ElevenLabsPackage.createElevenLabs> {
  const { createElevenLabs } = requireFromHere(ELEVENLABS_PACKAGE.name) as typeof ElevenLabsPackage;
  const rewrite: typeof fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const target = url.startsWith(ELEVENLABS_DEFAULT_BASE_URL)
      ? connection.baseUrl + url.slice(ELEVENLABS_DEFAULT_BASE_URL.length)
      : url;
    return httpFetch(target, init);
  };
  return createElevenLabs({ apiKey: connection.apiKey, fetch: rewrite });
}

const requireFromHere = createRequire(import.meta.url);

/**
 * A provider's failure in a sentence without its key: refused credentials stop the run (ConfigError),
 * anything else (5xx, 429 after retries, a dropped connection) is the infrastructure's, never the agent's.
 */
function providerFailure(what: string, error: unknown, secrets: readonly string[], apiKeyEnv: string): Error {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const attempts = RetryError.isInstance(error) ? error.errors.length : 1;
  const redact = (text: string) => redactSecrets(text, secrets);
  if (APICallError.isInstance(last) && last.statusCode !== undefined) {
    const detail = redact(`HTTP ${last.statusCode}: ${last.message}`);
    if (last.statusCode === 401 || last.statusCode === 403)
      return new ConfigError(`${what}: the provider refused the credentials (${detail}); check ${apiKeyEnv}`);
    return new InfrastructureError(
      `${what} failed (${detail}) after ${attempts} attempt${attempts === 1 ? "" : "s"}`,
      attempts,
    );
  }
  const message = last instanceof Error ? last.message : String(last);
  return new InfrastructureError(`${what} failed: ${redact(message)}`, attempts);
}

/** A mono 16-bit PCM WAV file of the audio. */
export function wavFile(audio: SpeechAudio): Uint8Array {
  const dataBytes = audio.samples.length * 2;
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i));
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, audio.sampleRate, true);
  view.setUint32(28, audio.sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, dataBytes, true);
  for (let i = 0; i < audio.samples.length; i++) view.setInt16(44 + i * 2, audio.samples[i]!, true);
  return bytes;
}

/**
 * The samples of a mono or multi-channel 16-bit PCM WAV file (the first channel). A streamed file's
 * sizes (espeak-ng's `--stdout` writes 0x7fffffff-ish placeholders) are read as "to the end".
 */
export function readWav(bytes: Uint8Array): SpeechAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.byteLength < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("not a WAV file");
  let offset = 12;
  let format: { channels: number; sampleRate: number; bits: number; code: number } | undefined;
  while (offset + 8 <= bytes.byteLength) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === "fmt ") {
      format = {
        code: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === "data") {
      if (format === undefined) throw new Error("WAV file: data before its format");
      if (format.code !== 1 || format.bits !== 16)
        throw new Error(`WAV file: ${format.bits}-bit format ${format.code}, expected 16-bit PCM`);
      const end = Math.min(bytes.byteLength, body + size);
      const frameBytes = 2 * format.channels;
      const frames = Math.floor((end - body) / frameBytes);
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = view.getInt16(body + i * frameBytes, true);
      return { samples, sampleRate: format.sampleRate };
    }
    offset = body + size + (size % 2);
  }
  throw new Error("WAV file without a data chunk");
}

/** espeak-ng's speech of a text: its `--stdout` WAV, read. Text goes in on stdin (never as an argument). */
function espeakSpeak(text: string, voice: string, signal?: AbortSignal): Promise<SpeechAudio> {
  return new Promise((resolve, reject) => {
    const child = spawn("espeak-ng", ["--stdout", "-v", voice], {
      stdio: ["pipe", "pipe", "pipe"],
      ...(signal ? { signal } : {}),
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new ConfigError(
              "espeak-ng is not installed: install it (Debian/Ubuntu: apt-get install espeak-ng)",
            )
          : new InfrastructureError(`espeak-ng failed: ${error.message}`, 1, { cause: error }),
      ),
    );
    child.on("close", (code) => {
      if (code !== 0) {
        reject(
          new InfrastructureError(`espeak-ng exited with ${code}: ${err.trim().split("\n")[0] ?? ""}`, 1),
        );
        return;
      }
      try {
        resolve(readWav(new Uint8Array(Buffer.concat(out))));
      } catch (error) {
        reject(
          new InfrastructureError(`espeak-ng's output is not readable audio: ${(error as Error).message}`, 1),
        );
      }
    });
    child.stdin.end(text, "utf8");
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
