import {
  GoogleGenAI,
  Modality,
  type FunctionResponse,
  type LiveServerMessage,
  type Session,
} from "@google/genai";
import type WebSocket from "ws";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { InfrastructureError } from "../../core/llm.js";
import type { ToolCall } from "../../core/message.js";
import { redactSecrets } from "../../llm/redact.js";
import {
  WIRE_SAMPLE_RATE,
  wireBytesPerTick,
  type VoiceAgent,
  type VoiceAgentSetup,
  type VoiceAgentTickInput,
  type VoiceAgentTickOutput,
  type VoiceUsageRecord,
} from "../call.js";
import { StreamResampler, bytesToPcm16, mulawDecode, mulawEncode, pcm16ToBytes } from "../audio.js";
import { AgentPlayout } from "./playout.js";

/** The model the reference's voice track uses by default. */
export const DEFAULT_GEMINI_LIVE_MODEL = "gemini-3.1-flash-live-preview";
/** The reference's default Gemini voice. */
export const DEFAULT_GEMINI_LIVE_VOICE = "Zephyr";
/** What Gemini Live hears: PCM16 mono at 16 kHz. */
export const GEMINI_INPUT_SAMPLE_RATE = 16_000;
/** What Gemini Live speaks: PCM16 mono at 24 kHz (unless its messages say otherwise). */
export const GEMINI_OUTPUT_SAMPLE_RATE = 24_000;

export interface GeminiLiveAgentOptions {
  /** Default {@link DEFAULT_GEMINI_LIVE_MODEL}. */
  model?: string;
  /** Default `GEMINI_API_KEY`, else `GOOGLE_GENERATIVE_AI_API_KEY` from `env`. */
  apiKey?: string;
  /**
   * Where the Gemini API is (`http://127.0.0.1:PORT` for a local server such as passk's mock); default
   * `GEMINI_LIVE_BASE_URL` from `env`, else Google's. The Live API is its WebSocket (`ws`/`wss`).
   */
  baseUrl?: string;
  /** Prebuilt voice; default {@link DEFAULT_GEMINI_LIVE_VOICE}. */
  voice?: string;
  /** Where the key and base URL are read. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long opening the session may take (ms); default 30 s. */
  connectTimeoutMs?: number;
  /** Virtual clock: how long the provider may take to answer one tick (ms); default 30 s. */
  tickTimeoutMs?: number;
}

/** How a speech-to-speech agent is told to behave on the phone, before the domain policy. */
const VOICE_INSTRUCTION = [
  "You are a customer service agent on a phone call with a customer. Speak naturally and briefly:",
  "the customer hears you and cannot see text. Help them while following the policy below exactly.",
  "Use the tools when the policy asks for it; say a short sentence while you look something up.",
  "Spell out codes and numbers clearly, and ask the customer to repeat anything you did not catch.",
].join(" ");

/** The system instruction of a speech-to-speech agent: how to speak, then the policy. */
export function voiceAgentInstructions(policy: string): string {
  return `${VOICE_INSTRUCTION}\n\n<policy>\n${policy}\n</policy>`;
}

// The parts of Gemini Live's server messages the adapter reads, checked where they arrive.
const TokenDetailsSchema = z.array(
  z.looseObject({ modality: z.string().optional(), tokenCount: z.number().optional() }),
);
const ServerMessageSchema = z.looseObject({
  serverContent: z
    .looseObject({
      modelTurn: z
        .looseObject({
          parts: z
            .array(
              z.looseObject({
                inlineData: z.looseObject({ data: z.string(), mimeType: z.string().optional() }).optional(),
              }),
            )
            .optional(),
        })
        .optional(),
      outputTranscription: z.looseObject({ text: z.string().optional() }).optional(),
      turnComplete: z.boolean().optional(),
      interrupted: z.boolean().optional(),
    })
    .optional(),
  toolCall: z
    .looseObject({
      functionCalls: z
        .array(
          z.looseObject({
            id: z.string().optional(),
            name: z.string(),
            args: z.record(z.string(), z.unknown()).optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  sessionResumptionUpdate: z
    .looseObject({ newHandle: z.string().optional(), resumable: z.boolean().optional() })
    .optional(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().optional(),
      responseTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
      toolUsePromptTokenCount: z.number().optional(),
      promptTokensDetails: TokenDetailsSchema.optional(),
      responseTokensDetails: TokenDetailsSchema.optional(),
    })
    .optional(),
  goAway: z.looseObject({ timeLeft: z.string().optional() }).optional(),
});
type ServerMessage = z.infer<typeof ServerMessageSchema>;

/**
 * A Gemini Live session (Google's speech-to-speech API, through the official `@google/genai` SDK) as a
 * voice agent. The caller's 8 kHz μ-law goes in as 16 kHz PCM16; the model's 24 kHz PCM16 comes out as
 * 8 kHz μ-law, one tick at a time (speech that arrives faster than it plays waits for later ticks), its
 * output transcription spread over the ticks its audio covers. Its function calls are the tick's tool
 * calls; their results go back in one tool response at the start of the next tick. When Gemini reports
 * that the caller interrupted it, the speech not yet played is dropped.
 *
 * Clock: `realtime` sends each tick's audio and listens for one tick of wall-clock time; `virtual` (a
 * local server such as passk's mock) waits until the server has answered everything sent so far — a
 * WebSocket ping, whose pong comes after every message the server sent before reading it.
 *
 * Failures: no key, a refused key or an unknown model are set-up errors (`ConfigError`); a provider that
 * cannot be reached, closes the session or sends what cannot be read is an `InfrastructureError` — never
 * the agent's score. No message carries the API key.
 *
 * @example
 * const agent = geminiLiveAgent({ model: "gemini-live-2.5-flash-preview" });
 */
export function geminiLiveAgent(options: GeminiLiveAgentOptions = {}): VoiceAgent {
  const env = options.env ?? process.env;
  const model = options.model ?? DEFAULT_GEMINI_LIVE_MODEL;
  const apiKey = options.apiKey ?? env.GEMINI_API_KEY ?? env.GOOGLE_GENERATIVE_AI_API_KEY;
  const baseUrl = options.baseUrl ?? env.GEMINI_LIVE_BASE_URL;
  let call: GeminiLiveCall | undefined;
  return {
    name: "gemini_live_agent",
    model: `gemini-live:${model}`,
    async start(setup) {
      if (apiKey === undefined || apiKey === "")
        throw new ConfigError(
          "Gemini Live needs an API key: set GEMINI_API_KEY (or GOOGLE_GENERATIVE_AI_API_KEY), from https://aistudio.google.com/apikey",
        );
      call = new GeminiLiveCall({
        model,
        apiKey,
        voice: options.voice ?? DEFAULT_GEMINI_LIVE_VOICE,
        connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
        tickTimeoutMs: options.tickTimeoutMs ?? 30_000,
        ...(baseUrl !== undefined ? { baseUrl } : {}),
      });
      await call.open(setup);
    },
    tick(input) {
      if (!call) throw new Error("tick() before start(): the call has not started");
      return call.tick(input);
    },
    async stop() {
      call?.close();
    },
  };
}

interface CallSettings {
  model: string;
  apiKey: string;
  baseUrl?: string;
  voice: string;
  connectTimeoutMs: number;
  tickTimeoutMs: number;
}

class GeminiLiveCall {
  private session: Session | undefined;
  private setup: VoiceAgentSetup | undefined;
  private playout: AgentPlayout = new AgentPlayout(0);
  private readonly input = new StreamResampler(WIRE_SAMPLE_RATE, GEMINI_INPUT_SAMPLE_RATE);
  private output: { rate: number; resampler: StreamResampler } | undefined;
  private utterance = 1;
  private readonly toolCalls: ToolCall[] = [];
  /** Our id of each call → the id and name Gemini must get back with its result. */
  private readonly callIds = new Map<string, { id: string | undefined; name: string }>();
  private readonly usage: VoiceUsageRecord[] = [];
  private failure: Error | undefined;
  private goingAway = false;
  /** The latest handle Gemini gave to resume this conversation in a new session (after its goAway). */
  private resumeHandle: string | undefined;
  /** Which session the callbacks belong to: a replaced session's late events are ignored. */
  private generation = 0;
  /** Sessions opened after a goAway, resuming the conversation. */
  resumptions = 0;
  private closed = false;
  private pings = 0;
  /** Calls Gemini gave no usable id, numbered (a call's ids stay the same from run to run). */
  private unnamedCalls = 0;
  private readonly pongWaiters = new Map<string, () => void>();
  private failureWaiters: Array<(error: Error) => void> = [];

  constructor(private readonly settings: CallSettings) {}

  async open(setup: VoiceAgentSetup): Promise<void> {
    this.setup = setup;
    this.playout = new AgentPlayout(wireBytesPerTick(setup.tickSeconds));
    this.session = await this.connect(setup);
  }

  /**
   * Gemini announced it will close the session (goAway): open a new one that resumes the conversation
   * from its latest handle, then close the old one. The speech still to play, the tool calls awaiting
   * results and the caller's turn under way carry over; nothing is sent on the old session after this.
   */
  private async resume(): Promise<void> {
    const { setup } = this;
    if (!setup) return;
    const old = this.session;
    this.session = await this.connect(setup);
    this.goingAway = false;
    this.resumptions++;
    try {
      old?.close();
    } catch {
      // Already closed by the server.
    }
  }

  /** Open a session (resuming the conversation when Gemini gave a handle) and listen to it. */
  private async connect(setup: VoiceAgentSetup): Promise<Session> {
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    const { settings } = this;
    const ai = new GoogleGenAI({
      apiKey: settings.apiKey,
      httpOptions: { apiVersion: "v1beta", ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}) },
    });
    const tools = setup.view.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parametersJsonSchema: tool.parameters,
    }));
    const connecting = ai.live.connect({
      model: settings.model,
      config: {
        responseModalities: [Modality.AUDIO],
        systemInstruction: voiceAgentInstructions(setup.view.policy),
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: settings.voice } } },
        outputAudioTranscription: {},
        // Ask for resumption handles, so a goAway does not end the call.
        sessionResumption: this.resumeHandle !== undefined ? { handle: this.resumeHandle } : {},
        ...(tools.length > 0 ? { tools: [{ functionDeclarations: tools }] } : {}),
      },
      callbacks: {
        // A session being replaced still delivers what it sends before it closes (the end of a reply).
        onmessage: (message) => this.receive(message),
        onerror: (event) => {
          if (current()) this.fail(this.connectionError(event));
        },
        onclose: (event) => {
          if (!current()) return;
          // Closed after its goAway with a handle to resume from: the next tick opens a new session.
          // Everything it sent came before the close, so a tick waiting for the server is done.
          if (this.goingAway && this.resumeHandle !== undefined) {
            this.releasePongWaiters();
            return;
          }
          this.fail(this.closedError(event.code, event.reason));
        },
      },
    });
    let timer: NodeJS.Timeout | undefined;
    let session: Session;
    try {
      session = await Promise.race([
        connecting,
        this.nextFailure(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new InfrastructureError(
                  `Gemini Live (${this.where()}) did not open a session within ${settings.connectTimeoutMs / 1000} s`,
                  1,
                ),
              ),
            settings.connectTimeoutMs,
          );
        }),
      ]);
    } catch (error) {
      this.closed = true;
      void connecting.then((session) => session.close()).catch(() => undefined);
      throw this.clean(error);
    } finally {
      clearTimeout(timer);
    }
    socketOf(session)?.on("pong", (data: Buffer) => {
      const key = data.toString();
      this.pongWaiters.get(key)?.();
      this.pongWaiters.delete(key);
    });
    return session;
  }

  private releasePongWaiters(): void {
    for (const resolve of this.pongWaiters.values()) resolve();
    this.pongWaiters.clear();
  }

  async tick(input: VoiceAgentTickInput): Promise<VoiceAgentTickOutput> {
    const started = Date.now();
    if (this.failure) throw this.failure;
    if (this.goingAway && this.resumeHandle !== undefined) await this.resume();
    const { session, setup } = this;
    if (!session || !setup) throw new Error("the Gemini Live session is not open");
    const responses: FunctionResponse[] = input.toolResults.map((result) => {
      const call = this.callIds.get(result.id);
      this.callIds.delete(result.id);
      const content = result.content ?? "";
      return {
        // Gemini's own id (empty when it gave none); the SDK requires the field.
        id: call ? (call.id ?? "") : result.id,
        name: call?.name ?? "",
        response: result.error ? { error: content } : { output: content },
      };
    });
    try {
      // All results in one message, so the model sees them together before it goes on.
      if (responses.length > 0) session.sendToolResponse({ functionResponses: responses });
      const pcm = this.input.push(mulawDecode(input.audio));
      session.sendRealtimeInput({
        audio: {
          data: Buffer.from(pcm16ToBytes(pcm)).toString("base64"),
          mimeType: `audio/pcm;rate=${GEMINI_INPUT_SAMPLE_RATE}`,
        },
      });
    } catch (error) {
      throw this.failure ?? this.clean(error);
    }
    if (setup.clock === "virtual") await this.caughtUp();
    else await this.waitUntil(started + setup.tickSeconds * 1000);
    if (this.failure) throw this.failure;
    const played = this.playout.take();
    const toolCalls = this.toolCalls.splice(0);
    const usage = this.usage.splice(0);
    return { ...played, toolCalls, ...(usage.length > 0 ? { usage } : {}) };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.session?.close();
    } catch {
      // Already closed: nothing to release.
    }
  }

  private receive(raw: LiveServerMessage): void {
    const parsed = ServerMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.fail(
        new InfrastructureError(
          `Gemini Live sent a message passk cannot read (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
          1,
        ),
      );
      return;
    }
    const message: ServerMessage = parsed.data;
    const content = message.serverContent;
    if (content?.interrupted) {
      this.playout.interrupt();
      this.output = undefined; // the cut speech's tail is not played
      this.nextUtterance();
    }
    for (const part of content?.modelTurn?.parts ?? []) {
      if (part.inlineData === undefined) continue;
      const rate = Number(
        /rate=(\d+)/.exec(part.inlineData.mimeType ?? "")?.[1] ?? GEMINI_OUTPUT_SAMPLE_RATE,
      );
      const bytes = Buffer.from(part.inlineData.data, "base64");
      if (bytes.length % 2 !== 0) {
        this.fail(
          new InfrastructureError(`Gemini Live sent PCM16 audio of an odd byte count (${bytes.length})`, 1),
        );
        return;
      }
      const resampler = this.outputResampler(rate);
      if (!resampler) return;
      this.playout.addAudio(this.utteranceId(), mulawEncode(resampler.push(bytesToPcm16(bytes))));
    }
    if (content?.outputTranscription?.text)
      this.playout.addText(this.utteranceId(), content.outputTranscription.text);
    if (content?.turnComplete) {
      if (this.output) this.playout.addAudio(this.utteranceId(), mulawEncode(this.output.resampler.flush()));
      this.output = undefined;
      this.nextUtterance();
    }
    for (const call of message.toolCall?.functionCalls ?? []) {
      // Gemini may leave ids out; passk's trajectory needs one per call.
      const id =
        call.id !== undefined && call.id !== "" && !this.callIds.has(call.id)
          ? call.id
          : `gemini_call_${++this.unnamedCalls}`;
      this.callIds.set(id, { id: call.id || undefined, name: call.name });
      this.toolCalls.push({ id, name: call.name, arguments: call.args ?? {}, requestor: "assistant" });
    }
    if (message.usageMetadata) this.usage.push(this.usageRecord(message.usageMetadata));
    const update = message.sessionResumptionUpdate;
    if (update?.resumable !== false && update?.newHandle) this.resumeHandle = update.newHandle;
    if (message.goAway) this.goingAway = true;
  }

  private usageRecord(metadata: NonNullable<ServerMessage["usageMetadata"]>): VoiceUsageRecord {
    const count = (details: z.infer<typeof TokenDetailsSchema> | undefined, modality: string) =>
      (details ?? []).filter((d) => d.modality === modality).reduce((sum, d) => sum + (d.tokenCount ?? 0), 0);
    const record: VoiceUsageRecord = { source: "gemini-live", model: this.settings.model };
    const prompt = metadata.promptTokensDetails;
    const response = metadata.responseTokensDetails;
    const inputAudio = count(prompt, "AUDIO");
    const outputAudio = count(response, "AUDIO");
    // Without a breakdown, every token is counted as text (the cheaper rate is never assumed for audio).
    const inputText = prompt
      ? (metadata.promptTokenCount ?? 0) - inputAudio
      : (metadata.promptTokenCount ?? 0);
    const outputText =
      (response ? (metadata.responseTokenCount ?? 0) - outputAudio : (metadata.responseTokenCount ?? 0)) +
      (metadata.thoughtsTokenCount ?? 0);
    if (inputAudio > 0) record.inputAudioTokens = inputAudio;
    if (outputAudio > 0) record.outputAudioTokens = outputAudio;
    if (inputText > 0) record.inputTextTokens = inputText;
    if (outputText > 0) record.outputTextTokens = outputText;
    return record;
  }

  /** The resampler of the speech under way (a new one per utterance), or undefined for a rate passk cannot take. */
  private outputResampler(rate: number): StreamResampler | undefined {
    if (!Number.isInteger(rate) || rate < 8000 || rate > 192_000) {
      this.fail(
        new InfrastructureError(
          `Gemini Live sent audio at ${rate} Hz, which passk cannot convert to 8 kHz`,
          1,
        ),
      );
      return undefined;
    }
    if (this.output?.rate !== rate)
      this.output = { rate, resampler: new StreamResampler(rate, WIRE_SAMPLE_RATE) };
    return this.output.resampler;
  }

  private utteranceId(): string {
    return `gemini_${this.utterance}`;
  }

  private nextUtterance(): void {
    this.playout.finish(this.utteranceId());
    this.utterance++;
  }

  /** Virtual clock: resolves once every message the server sent before reading our ping has arrived. */
  private caughtUp(): Promise<void> {
    const socket = this.socket();
    if (!socket) return this.waitUntil(Date.now() + (this.setup?.tickSeconds ?? 0) * 1000);
    const key = `passk-${++this.pings}`;
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      new Promise<void>((resolve) => {
        this.pongWaiters.set(key, resolve);
        socket.ping(key);
      }),
      this.nextFailure(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(
            this.fail(
              new InfrastructureError(
                `Gemini Live (${this.where()}) did not answer within ${this.settings.tickTimeoutMs / 1000} s`,
                1,
              ),
            ),
          );
        }, this.settings.tickTimeoutMs);
      }),
    ]).finally(() => {
      clearTimeout(timer);
      this.pongWaiters.delete(key);
    });
  }

  private waitUntil(deadline: number): Promise<void> {
    const wait = deadline - Date.now();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** The current session's WebSocket, for pings. */
  private socket(): WebSocket | undefined {
    return this.session ? socketOf(this.session) : undefined;
  }

  private nextFailure(): Promise<never> {
    return new Promise((_, reject) => {
      if (this.failure) reject(this.failure);
      else this.failureWaiters.push(reject);
    });
  }

  /** Records the session's first failure (later ones follow from it) and returns it. */
  private fail(error: Error): Error {
    if (this.closed && !this.failure) return error;
    this.failure ??= this.clean(error);
    for (const waiter of this.failureWaiters.splice(0)) waiter(this.failure);
    return this.failure;
  }

  private connectionError(event: { message?: unknown; error?: unknown }): Error {
    const text =
      typeof event.message === "string" && event.message !== ""
        ? event.message
        : String(event.error ?? "connection error");
    const status = /Unexpected server response: (\d+)/.exec(text)?.[1];
    if (status === "401" || status === "403")
      return new ConfigError(
        `Gemini Live (${this.where()}) refused the API key (HTTP ${status}): check GEMINI_API_KEY`,
      );
    const code = (event.error as { code?: unknown } | undefined)?.code;
    const reason =
      code === "ECONNREFUSED"
        ? "connection refused (is the server running?)"
        : code === "ENOTFOUND" || code === "EAI_AGAIN"
          ? `the host name does not resolve (${String(code)})`
          : text;
    return new InfrastructureError(`could not reach Gemini Live at ${this.where()}: ${reason}`, 1);
  }

  private closedError(code: number, reason: string): Error {
    const said = reason.trim() === "" ? `code ${code}` : `code ${code}: ${reason.trim()}`;
    if (/api key|unauthenticated|permission|unauthori[sz]ed/i.test(reason))
      return new ConfigError(`Gemini Live refused the API key (${said}): check GEMINI_API_KEY`);
    if (/not found|not supported/i.test(reason))
      return new ConfigError(
        `Gemini Live does not offer model "${this.settings.model}" (${said}); choose another model`,
      );
    const when = this.session
      ? "closed the session mid-call"
      : "closed the connection before the session opened";
    const note = this.goingAway
      ? " after announcing it, without a handle to resume the conversation from"
      : "";
    return new InfrastructureError(`Gemini Live ${when}${note} (${said})`, 1);
  }

  /** The server's origin, as shown in messages (never its query: the SDK puts the key there). */
  private where(): string {
    const base = this.settings.baseUrl ?? "https://generativelanguage.googleapis.com";
    return URL.canParse(base) ? new URL(base).host : "the configured base URL";
  }

  /** Any failure as a passk error whose message carries no API key. */
  private clean(error: unknown): Error {
    const secrets = [this.settings.apiKey];
    if (error instanceof ConfigError) return new ConfigError(redactSecrets(error.message, secrets));
    if (error instanceof InfrastructureError)
      return new InfrastructureError(redactSecrets(error.message, secrets), 1);
    const message = error instanceof Error ? error.message : String(error);
    return new InfrastructureError(`Gemini Live failed: ${redactSecrets(message, secrets)}`, 1);
  }
}

/** The SDK's WebSocket (the `ws` client under its Node transport), for pings; undefined if it moved. */
function socketOf(session: Session): WebSocket | undefined {
  const inner = (session.conn as { ws?: unknown } | undefined)?.ws;
  return inner !== null && typeof inner === "object" && "ping" in inner ? (inner as WebSocket) : undefined;
}
