import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { bytesToPcm16, pcm16ToBytes } from "../voice/audio.js";
import { TestSpeechListener, speakTestSpeech } from "./speech-codec.js";

/** What the mock's brain is told: the caller said something, or the results of its tool calls came back. */
export type MockGeminiLiveEvent =
  | { kind: "heard"; text: string }
  | { kind: "tool_results"; results: Array<{ id: string; name: string; response: Record<string, unknown> }> };

/** What the mock does next: say something (spoken with the test speech codec), call tools, or both. */
export interface MockGeminiLiveReply {
  say?: string;
  /** Raw speech to send instead of the codec's (PCM16 at 24 kHz), with `say` as its transcription. */
  audio?: Int16Array;
  toolCalls?: Array<{ name: string; args: Record<string, unknown> }>;
}

/** Decides the mock's replies; scripted per test. Returning undefined: the mock stays quiet. */
export type MockGeminiLiveBrain = (
  event: MockGeminiLiveEvent,
  session: MockGeminiLiveSession,
) => MockGeminiLiveReply | undefined;

/** One session the mock served, as it saw it. */
export interface MockGeminiLiveSession {
  /** The `setup` message as received (model, system instruction, tools, transcription…). */
  setup: Record<string, unknown>;
  /** The caller's utterances, as the mock heard them. */
  heard: string[];
  /** Every `toolResponse.functionResponses` list received, in order. */
  toolResponses: Array<Array<{ id?: string; name?: string; response?: unknown }>>;
  /** Times the caller cut in while the mock was speaking (each sent `interrupted`). */
  interruptions: number;
  /** Seconds of the caller's audio received. */
  secondsHeard: number;
  /** The caller's audio as received (PCM16 at the rate it named), when `recordAudio` is on. */
  audio: Int16Array[];
}

export interface MockGeminiLiveServerOptions {
  brain: MockGeminiLiveBrain;
  /** The only key accepted (others: the session is closed as Gemini closes it); default `mock-gemini-key`. */
  apiKey?: string;
  /** Leave ids out of function calls, as Gemini sometimes does. */
  omitCallIds?: boolean;
  /** Pieces the output transcription of each reply is sent in (default 3). */
  transcriptionPieces?: number;
  /** Close every session right after `setupComplete` plus this many client messages, with code 1011. */
  closeAfterMessages?: number;
  /** Keep the caller's audio in each session's `audio`. */
  recordAudio?: boolean;
  /** Send this (valid JSON, wrong shape) as the first reply content instead of speech. */
  malformedContent?: unknown;
}

export interface MockGeminiLiveServer {
  /** Give this as the Gemini base URL (`httpOptions.baseUrl`). */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly sessions: readonly MockGeminiLiveSession[];
  close(): Promise<void>;
}

const OUTPUT_RATE = 24_000;
/** Seconds of speech per audio message the mock sends. */
const CHUNK_SECONDS = 0.1;
/** Tokens per second of audio, the rate Gemini meters audio at. */
const AUDIO_TOKENS_PER_SECOND = 25;

const ClientMessageSchema = z.looseObject({
  setup: z.looseObject({ model: z.string() }).optional(),
  realtimeInput: z
    .looseObject({ audio: z.looseObject({ data: z.string(), mimeType: z.string() }).optional() })
    .optional(),
  toolResponse: z
    .looseObject({
      functionResponses: z.array(
        z.looseObject({ id: z.string().optional(), name: z.string().optional(), response: z.unknown() }),
      ),
    })
    .optional(),
});

/**
 * A Gemini Live server on 127.0.0.1 speaking the BidiGenerateContent JSON protocol over WebSocket — as
 * much of it as the `@google/genai` SDK uses: `setup`/`setupComplete`, `realtimeInput.audio` (PCM16 at
 * the rate its MIME type names), `toolResponse`, and `serverContent` (24 kHz audio, output transcription,
 * `turnComplete`, `interrupted`), `toolCall`, `usageMetadata`.
 *
 * It hears the caller with the deterministic test speech codec (an utterance ends after half a second
 * without speech), asks its brain what to do, and speaks with the same codec — so what it hears degrades
 * as honestly as the audio does. When the caller speaks while its last reply is still playing (by the
 * audio it has received since, at 16 kHz), it sends `interrupted`, as Gemini does.
 *
 * @example
 * const server = await startMockGeminiLiveServer({ brain: (e) => (e.kind === "heard" ? { say: `You said ${e.text}` } : undefined) });
 * const agent = geminiLiveAgent({ baseUrl: server.baseUrl, apiKey: server.apiKey });
 */
export async function startMockGeminiLiveServer(
  options: MockGeminiLiveServerOptions,
): Promise<MockGeminiLiveServer> {
  const apiKey = options.apiKey ?? "mock-gemini-key";
  const sessions: MockGeminiLiveSession[] = [];
  const http = createServer((_request, response) => {
    response.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server: http });
  wss.on("connection", (socket, request) => {
    const url = new URL(request.url ?? "/", "http://mock");
    if (!url.pathname.endsWith(".BidiGenerateContent")) {
      socket.close(1008, `Method not found: ${url.pathname}`);
      return;
    }
    if (url.searchParams.get("key") !== apiKey) {
      socket.close(1007, "API key not valid. Please pass a valid API key.");
      return;
    }
    serveSession(socket, options, sessions);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

function serveSession(
  socket: WebSocket,
  options: MockGeminiLiveServerOptions,
  sessions: MockGeminiLiveSession[],
): void {
  let session: MockGeminiLiveSession | undefined;
  let listener: TestSpeechListener | undefined;
  let listenerRate = 0;
  /** Caller audio received, in seconds: the mock's clock. */
  let clock = 0;
  /** Until when (on that clock) the last reply is playing. */
  let speakingUntil = 0;
  let callCount = 0;
  let messages = 0;
  let malformedSent = false;
  const send = (message: unknown) => socket.send(JSON.stringify(message));

  const respond = (reply: MockGeminiLiveReply | undefined) => {
    if (!reply || !session) return;
    if ((reply.say !== undefined && reply.say !== "") || reply.audio !== undefined) {
      if (options.malformedContent !== undefined && !malformedSent) {
        malformedSent = true;
        send({ serverContent: options.malformedContent });
        return;
      }
      const speech = reply.audio ?? speakTestSpeech(reply.say ?? "", OUTPUT_RATE);
      const perChunk = Math.round(CHUNK_SECONDS * OUTPUT_RATE);
      const chunks = Math.max(1, Math.ceil(speech.length / perChunk));
      const pieces = splitText(reply.say ?? "", Math.min(chunks, options.transcriptionPieces ?? 3));
      for (let i = 0; i < chunks; i++) {
        const samples = speech.subarray(i * perChunk, (i + 1) * perChunk);
        const piece = pieces.find((_, p) => Math.floor((p * chunks) / pieces.length) === i);
        send({
          serverContent: {
            modelTurn: {
              parts: [
                {
                  inlineData: {
                    data: Buffer.from(pcm16ToBytes(samples)).toString("base64"),
                    mimeType: `audio/pcm;rate=${OUTPUT_RATE}`,
                  },
                },
              ],
            },
            ...(piece !== undefined ? { outputTranscription: { text: piece } } : {}),
          },
        });
      }
      speakingUntil = clock + speech.length / OUTPUT_RATE;
    }
    if (reply.toolCalls && reply.toolCalls.length > 0)
      send({
        toolCall: {
          functionCalls: reply.toolCalls.map((call) => ({
            ...(options.omitCallIds ? {} : { id: `function-call-${++callCount}` }),
            name: call.name,
            args: call.args,
          })),
        },
      });
    else send({ serverContent: { turnComplete: true } });
    const spoken = reply.audio
      ? reply.audio.length / OUTPUT_RATE
      : reply.say
        ? new TextEncoder().encode(reply.say).length * 0.05
        : 0;
    const heardTokens = Math.round(session.secondsHeard * AUDIO_TOKENS_PER_SECOND);
    const spokenTokens = Math.round(spoken * AUDIO_TOKENS_PER_SECOND);
    const textTokens = 10 + (reply.toolCalls?.length ?? 0) * 20;
    send({
      usageMetadata: {
        promptTokenCount: heardTokens + 100,
        responseTokenCount: spokenTokens + textTokens,
        totalTokenCount: heardTokens + 100 + spokenTokens + textTokens,
        promptTokensDetails: [
          { modality: "AUDIO", tokenCount: heardTokens },
          { modality: "TEXT", tokenCount: 100 },
        ],
        responseTokensDetails: [
          { modality: "AUDIO", tokenCount: spokenTokens },
          { modality: "TEXT", tokenCount: textTokens },
        ],
      },
    });
  };

  socket.on("message", (data, isBinary) => {
    if (isBinary) return socket.close(1007, "Request contains an invalid argument.");
    let parsed;
    try {
      parsed = ClientMessageSchema.safeParse(JSON.parse(String(data)));
    } catch {
      return socket.close(1007, "Invalid JSON payload received.");
    }
    if (!parsed.success) return socket.close(1007, "Request contains an invalid argument.");
    const message = parsed.data;
    if (!session) {
      if (!message.setup) return socket.close(1007, "The first message must be a setup message.");
      session = {
        setup: message.setup,
        heard: [],
        toolResponses: [],
        interruptions: 0,
        secondsHeard: 0,
        audio: [],
      };
      sessions.push(session);
      send({ setupComplete: {} });
      return;
    }
    messages++;
    if (options.closeAfterMessages !== undefined && messages > options.closeAfterMessages)
      return socket.close(1011, "Internal error encountered.");
    if (message.toolResponse) {
      const results = message.toolResponse.functionResponses;
      session.toolResponses.push(results);
      respond(
        options.brain(
          {
            kind: "tool_results",
            results: results.map((r) => ({
              id: r.id ?? "",
              name: r.name ?? "",
              response: z.record(z.string(), z.unknown()).catch({}).parse(r.response),
            })),
          },
          session,
        ),
      );
    }
    const audio = message.realtimeInput?.audio;
    if (audio) {
      const rate = Number(/rate=(\d+)/.exec(audio.mimeType)?.[1] ?? 16_000);
      if (!listener || listenerRate !== rate) [listener, listenerRate] = [new TestSpeechListener(rate), rate];
      const bytes = Buffer.from(audio.data, "base64");
      if (bytes.length % 2 !== 0) return socket.close(1007, "Request contains an invalid argument.");
      const samples = bytesToPcm16(bytes);
      if (options.recordAudio) session.audio.push(samples);
      clock += samples.length / rate;
      session.secondsHeard = clock;
      const finished = listener.push(samples);
      if (listener.hearing && clock < speakingUntil) {
        speakingUntil = clock;
        session.interruptions++;
        send({ serverContent: { interrupted: true } });
      }
      for (const text of finished) {
        session.heard.push(text);
        respond(options.brain({ kind: "heard", text }, session));
      }
    }
  });
}

/** `text` cut into `count` pieces of about equal length (the pieces join back into it). */
function splitText(text: string, count: number): string[] {
  const size = Math.ceil(text.length / Math.max(1, count));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
