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
  /** Connections this conversation was served on: 1, plus one per resumption after a `goAway`. */
  connections: number;
  /** `goAway` messages sent. */
  goAways: number;
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
  /**
   * Send `goAway` after this many client messages on a connection (counted anew on each), as Gemini
   * does before it ends a session; the connection is closed (1011) at the first message once
   * `goAwaySeconds` of the caller's audio have arrived since. A client that asked for
   * `sessionResumption` gets a handle after each turn and can open a new connection with it: the
   * conversation (what was heard so far, the caller's utterance under way, the call ids) continues there.
   */
  goAwayAfterMessages?: number;
  /** The `timeLeft` a `goAway` announces, in seconds of the caller's audio (default 1). */
  goAwaySeconds?: number;
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
  setup: z
    .looseObject({
      model: z.string(),
      sessionResumption: z.looseObject({ handle: z.string().optional() }).optional(),
    })
    .optional(),
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
  const conversations = new Map<string, Conversation>();
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
    serveSession(socket, options, sessions, conversations);
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

/** A conversation's state, which a resumed session continues. */
interface Conversation {
  session: MockGeminiLiveSession;
  listener: TestSpeechListener | undefined;
  listenerRate: number;
  /** Caller audio received, in seconds: the mock's clock. */
  clock: number;
  /** Until when (on that clock) the last reply is playing. */
  speakingUntil: number;
  callCount: number;
  handles: number;
}

function serveSession(
  socket: WebSocket,
  options: MockGeminiLiveServerOptions,
  sessions: MockGeminiLiveSession[],
  conversations: Map<string, Conversation>,
): void {
  let conversation: Conversation | undefined;
  let session: MockGeminiLiveSession | undefined;
  let resumable = false;
  let messages = 0;
  /** When (on the conversation's audio clock) this connection's goAway was sent. */
  let goAwayAt: number | undefined;
  const goAwaySeconds = options.goAwaySeconds ?? 1;
  let malformedSent = false;
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  /** A new handle to resume the conversation from, after each turn, when the client asked for them. */
  const handOut = () => {
    if (!resumable || !conversation) return;
    const handle = `mock-resume-${sessions.indexOf(conversation.session)}-${++conversation.handles}`;
    conversations.set(handle, conversation);
    send({ sessionResumptionUpdate: { newHandle: handle, resumable: true } });
  };

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
      conversation!.speakingUntil = conversation!.clock + speech.length / OUTPUT_RATE;
    }
    if (reply.toolCalls && reply.toolCalls.length > 0)
      send({
        toolCall: {
          functionCalls: reply.toolCalls.map((call) => ({
            ...(options.omitCallIds ? {} : { id: `function-call-${++conversation!.callCount}` }),
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
    handOut();
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
      const handle = message.setup.sessionResumption?.handle;
      resumable = message.setup.sessionResumption !== undefined;
      if (handle !== undefined) {
        conversation = conversations.get(handle);
        if (!conversation) return socket.close(1007, "Session resumption handle is invalid.");
        conversation.session.connections++;
      } else {
        conversation = {
          session: {
            setup: message.setup,
            heard: [],
            toolResponses: [],
            interruptions: 0,
            secondsHeard: 0,
            audio: [],
            connections: 1,
            goAways: 0,
          },
          listener: undefined,
          listenerRate: 0,
          clock: 0,
          speakingUntil: 0,
          callCount: 0,
          handles: 0,
        };
        sessions.push(conversation.session);
      }
      session = conversation.session;
      send({ setupComplete: {} });
      handOut();
      return;
    }
    messages++;
    if (options.closeAfterMessages !== undefined && messages > options.closeAfterMessages)
      return socket.close(1011, "Internal error encountered.");
    // As Gemini does, the connection keeps serving for the time its goAway announced, then closes.
    if (goAwayAt !== undefined && conversation!.clock > goAwayAt + goAwaySeconds)
      return socket.close(1011, "The session went away (goAway) and was closed.");
    const state = conversation!;
    handle(message, state);
    // After what this message caused, which is still sent on this connection.
    if (
      goAwayAt === undefined &&
      options.goAwayAfterMessages !== undefined &&
      messages >= options.goAwayAfterMessages
    ) {
      goAwayAt = state.clock;
      session.goAways++;
      send({ goAway: { timeLeft: `${goAwaySeconds}s` } });
    }
  });

  function handle(message: z.infer<typeof ClientMessageSchema>, state: Conversation): void {
    if (!session) return;
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
      if (!state.listener || state.listenerRate !== rate)
        [state.listener, state.listenerRate] = [new TestSpeechListener(rate), rate];
      const bytes = Buffer.from(audio.data, "base64");
      if (bytes.length % 2 !== 0) {
        socket.close(1007, "Request contains an invalid argument.");
        return;
      }
      const samples = bytesToPcm16(bytes);
      if (options.recordAudio) session.audio.push(samples);
      state.clock += samples.length / rate;
      session.secondsHeard = state.clock;
      const finished = state.listener.push(samples);
      if (state.listener.hearing && state.clock < state.speakingUntil) {
        state.speakingUntil = state.clock;
        session.interruptions++;
        send({ serverContent: { interrupted: true } });
      }
      for (const text of finished) {
        session.heard.push(text);
        respond(options.brain({ kind: "heard", text }, session));
      }
    }
  }
}

/** `text` cut into `count` pieces of about equal length (the pieces join back into it). */
function splitText(text: string, count: number): string[] {
  const size = Math.ceil(text.length / Math.max(1, count));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
