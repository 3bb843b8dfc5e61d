import WebSocket from "ws";
import { agentSystemPrompt, type AgentPromptTemplates } from "../../agents/agent-prompt.js";
import { ConfigError } from "../../core/errors.js";
import type { ToolCall, ToolMessage } from "../../core/message.js";
import { SystemFailure } from "../../core/system-failure.js";
import {
  WIRE_SAMPLE_RATE,
  WIRE_SILENCE,
  wireBytesPerTick,
  type CallClock,
  type HeardSpeech,
  type VoiceAgent,
  type VoiceAgentSetup,
  type VoiceAgentTickInput,
  type VoiceAgentTickOutput,
  type VoiceUsageRecord,
} from "../call.js";
import {
  PCMU_FORMAT,
  READ_SERVER_EVENTS,
  RealtimeServerEventSchema,
  type RealtimeServerEvent,
  type RealtimeUsage,
  type TranscriptionUsage,
} from "./openai-realtime-events.js";

/** OpenAI's realtime endpoint. */
export const OPENAI_REALTIME_URL = "wss://api.openai.com/v1/realtime";
export const DEFAULT_OPENAI_REALTIME_MODEL = "gpt-realtime";
/** The model that transcribes the caller's turns for the record, on OpenAI (as the reference's). */
export const DEFAULT_OPENAI_INPUT_TRANSCRIPTION_MODEL = "gpt-4o-transcribe";

/** The provider's server-side voice activity detection (it decides when the caller's turn ends). */
export interface RealtimeServerVad {
  /** Loudness a frame needs to count as speech, 0–1 (default 0.5). */
  threshold?: number;
  /** Audio kept before the detected start of speech (default 300 ms). */
  prefixPaddingMs?: number;
  /** Silence that ends the caller's turn (default 500 ms). */
  silenceDurationMs?: number;
}

/**
 * An OpenAI-compatible realtime endpoint. OpenAI: the defaults and a key. Azure OpenAI:
 * `url: "wss://RESOURCE.openai.azure.com/openai/v1/realtime"`, `auth: "api-key"`, `model`: the
 * deployment. xAI: `url: "wss://api.x.ai/v1/realtime"`, its model and key. A URL that already names the
 * model or deployment (`?model=`, `?deployment=`) is used as it is.
 */
export interface OpenAiRealtimeAgentOptions {
  apiKey: string;
  /** Model (or Azure deployment), default `gpt-realtime`. */
  model?: string;
  /** WebSocket URL of the realtime endpoint (default OpenAI's). */
  url?: string;
  /** How the key travels: `bearer` (`Authorization: Bearer`, OpenAI, xAI) or `api-key` (Azure's header). */
  auth?: "bearer" | "api-key";
  /** Names the provider in results and usage (`openai`, `azure`, `xai`, …), default `openai`. */
  provider?: string;
  /**
   * The session's shape: `openai` (the GA protocol: OpenAI, Azure, most compatible endpoints) or `xai`
   * (voice and turn detection at the session's top level). Default: `xai` for provider `xai`.
   */
  dialect?: "openai" | "xai";
  /**
   * How the provider bills: `tokens` (OpenAI, Azure) or `session-minutes` (xAI: per minute of
   * connection, metered here as the call's time; its token counts are informational). Default:
   * `session-minutes` for provider `xai`.
   */
  billing?: "tokens" | "session-minutes";
  /** The agent's voice (default `alloy`). */
  voice?: string;
  vad?: RealtimeServerVad;
  /** The agent's prompt templates (τ²'s `prompt_templates.json` format); passk's own by default. */
  promptTemplates?: AgentPromptTemplates;
  /** How long to wait for the endpoint: connecting, configuring, answering a tick (default 30 s). */
  timeoutMs?: number;
  /**
   * The model the session transcribes the caller's turns with (`audio.input.transcription`), for the
   * record's `user_transcript`: what the agent made of the caller. Default `gpt-4o-transcribe` on
   * OpenAI (as the reference asks for), none elsewhere; null: none. Billed by the provider, and priced
   * as the agent's (`transcription` usage). Transcriptions an endpoint sends unasked are used too.
   */
  inputTranscription?: string | null;
}

/** Wire bytes per millisecond (μ-law: one byte per sample). */
const BYTES_PER_MS = WIRE_SAMPLE_RATE / 1000;

/** One spoken item of the agent: its audio as it arrives and plays out, and its transcript. */
interface SpokenItem {
  id: string;
  received: number;
  played: number;
  transcript: string;
  shown: number;
  truncated: boolean;
  /** Audio not yet played, oldest first; `offset` bytes of the first chunk are already played. */
  unplayed: Uint8Array[];
  offset: number;
}

interface Waiter {
  check(): void;
}

/**
 * A voice agent over an OpenAI Realtime (GA protocol) WebSocket: μ-law 8 kHz in and out, the agent's
 * policy as instructions, its tools as function tools, server voice activity detection. `realtime`
 * clock: each tick lasts its wall-clock time and the agent plays what the provider sent by then.
 * `virtual` clock (mock servers): after each tick's audio a `session.update` serves as a barrier, so
 * everything the server emitted for that audio is in before the tick ends — deterministic.
 */
export class OpenAiRealtimeAgent implements VoiceAgent {
  readonly name = "openai-realtime";
  readonly model: string;
  private readonly options: OpenAiRealtimeAgentOptions;
  private readonly modelName: string;
  private readonly provider: string;
  private readonly dialect: "openai" | "xai";
  private readonly billing: "tokens" | "session-minutes";
  /** The model the session transcribes the caller with, when passk asks for one. */
  private readonly transcription: string | null;
  private socket?: WebSocket;
  private clock: CallClock = "virtual";
  private tickBytes = 0;
  private tickMs = 0;
  private nextTickAt?: number;
  private failure?: SystemFailure;
  private stopping = false;
  private sessionCreated = false;
  private updatesSent = 0;
  private updatesAnswered = 0;
  private readonly waiters = new Set<Waiter>();
  private readonly items = new Map<string, SpokenItem>();
  private playQueue: SpokenItem[] = [];
  private toolCalls: ToolCall[] = [];
  private usage: VoiceUsageRecord[] = [];
  /** The caller's turns as the server's VAD timed them (ms of the input audio), by input item. */
  private readonly inputTurns = new Map<string, { startMs: number; endMs?: number }>();
  private heard: HeardSpeech[] = [];

  constructor(options: OpenAiRealtimeAgentOptions) {
    this.options = options;
    this.modelName = options.model ?? DEFAULT_OPENAI_REALTIME_MODEL;
    this.provider = options.provider ?? "openai";
    this.dialect = options.dialect ?? (this.provider === "xai" ? "xai" : "openai");
    this.billing = options.billing ?? (this.provider === "xai" ? "session-minutes" : "tokens");
    this.model = `${this.provider}:${this.modelName}`;
    this.transcription =
      options.inputTranscription === undefined
        ? this.provider === "openai" && this.dialect === "openai"
          ? DEFAULT_OPENAI_INPUT_TRANSCRIPTION_MODEL
          : null
        : options.inputTranscription;
  }

  async start(setup: VoiceAgentSetup): Promise<void> {
    if (setup.view.solo)
      throw new ConfigError("a voice agent needs a caller: solo tasks cannot run as calls.");
    this.clock = setup.clock;
    this.tickBytes = wireBytesPerTick(setup.tickSeconds);
    this.tickMs = setup.tickSeconds * 1000;
    await this.connect();
    await this.waitUntil(() => this.sessionCreated, "the session to open");
    const instructions = agentSystemPrompt({
      policy: setup.view.policy,
      templates: this.options.promptTemplates,
    });
    const tools = setup.view.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    }));
    this.update(
      this.dialect === "xai" ? this.xaiSession(instructions, tools) : this.gaSession(instructions, tools),
    );
    for (const message of setup.view.history) {
      if ((message.role !== "user" && message.role !== "assistant") || typeof message.content !== "string")
        continue;
      if (message.content === "") continue;
      const part = message.role === "user" ? "input_text" : "output_text";
      this.send({
        type: "conversation.item.create",
        item: { type: "message", role: message.role, content: [{ type: part, text: message.content }] },
      });
    }
    await this.waitForAnswers("the session's settings to be accepted");
  }

  /** The session in OpenAI's GA shape: audio formats, voice and turn detection under `audio`. */
  private gaSession(instructions: string, tools: readonly object[]): Record<string, unknown> {
    const turnDetection = {
      type: "server_vad",
      threshold: this.options.vad?.threshold ?? 0.5,
      prefix_padding_ms: this.options.vad?.prefixPaddingMs ?? 300,
      silence_duration_ms: this.options.vad?.silenceDurationMs ?? 500,
      create_response: true,
      interrupt_response: true,
    };
    const transcription = this.transcription;
    return {
      type: "realtime",
      instructions,
      output_modalities: ["audio"],
      audio: {
        input: {
          format: PCMU_FORMAT,
          ...(transcription ? { transcription: { model: transcription, language: "en" } } : {}),
          turn_detection: turnDetection,
        },
        output: { format: PCMU_FORMAT, voice: this.options.voice ?? "alloy" },
      },
      tools,
      tool_choice: "auto",
    };
  }

  /** The session in xAI's shape: voice and turn detection at the top, the same audio formats. */
  private xaiSession(instructions: string, tools: readonly object[]): Record<string, unknown> {
    return {
      voice: this.options.voice ?? "ara",
      instructions,
      audio: { input: { format: PCMU_FORMAT }, output: { format: PCMU_FORMAT } },
      turn_detection: { type: "server_vad" },
      tools,
    };
  }

  async tick(input: VoiceAgentTickInput): Promise<VoiceAgentTickOutput> {
    this.throwIfFailed();
    this.sendToolResults(input.toolResults);
    this.send({ type: "input_audio_buffer.append", audio: Buffer.from(input.audio).toString("base64") });
    if (this.clock === "virtual") {
      // A barrier the server answers in order: once it is answered, everything the server emitted for
      // this tick's audio (and the tool results before it) has arrived.
      this.update(this.dialect === "xai" ? {} : { type: "realtime" });
      await this.waitForAnswers("its answer to the caller's audio");
    } else {
      const now = performance.now();
      const due = Math.max(now, (this.nextTickAt ?? now) + this.tickMs);
      this.nextTickAt = due;
      await this.waitUntil(() => false, "", due - now);
    }
    this.throwIfFailed();
    return this.playTick();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 2000);
      socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000);
    });
  }

  // ——— connection ———

  private endpoint(): string {
    const url = new URL(this.options.url ?? OPENAI_REALTIME_URL);
    return `${url.origin}${url.pathname}`;
  }

  private async connect(): Promise<void> {
    const url = new URL(this.options.url ?? OPENAI_REALTIME_URL);
    if (!url.searchParams.has("model") && !url.searchParams.has("deployment"))
      url.searchParams.set("model", this.modelName);
    const headers: Record<string, string> =
      this.options.auth === "api-key"
        ? { "api-key": this.options.apiKey }
        : { Authorization: `Bearer ${this.options.apiKey}` };
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const socket = new WebSocket(url, { headers, handshakeTimeout: timeoutMs });
    this.socket = socket;
    let opened = false;
    // Listeners go on before the handshake ends: the server speaks first (`session.created`).
    socket.on("message", (data) => this.receive(String(data)));
    socket.on("close", (code, reason) => {
      if (opened && !this.stopping) {
        const why = reason.length > 0 ? `: ${reason.toString()}` : "";
        this.fail(
          `${this.who()} closed the call's connection (code ${code}${why}); the call cannot continue, run it again.`,
        );
      }
      this.progress();
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => {
        opened = true;
        resolve();
      });
      socket.once("unexpected-response", (request, response) => {
        request.destroy();
        reject(this.fail(this.httpRefusal(response.statusCode ?? 0)));
      });
      socket.on("error", (error: NodeJS.ErrnoException) => {
        reject(this.fail(this.socketFailure(error)));
      });
    });
  }

  private who(): string {
    return `the ${this.provider} realtime endpoint (${this.endpoint()})`;
  }

  private httpRefusal(status: number): string {
    if (status === 401 || status === 403)
      return `${this.who()} refused the API key (HTTP ${status}): check the key and that it may use ${this.modelName}.`;
    if (status === 404)
      return `${this.who()} has no realtime model or deployment "${this.modelName}" (HTTP 404): check the URL and the model.`;
    if (status === 429)
      return `${this.who()} is rate-limiting or out of quota (HTTP 429): wait, or check the account's limits.`;
    return `${this.who()} answered HTTP ${status} instead of opening the call: check the URL, or try again later.`;
  }

  private socketFailure(error: NodeJS.ErrnoException): string {
    if (error.code === "ECONNREFUSED")
      return `could not reach ${this.who()}: the connection was refused; check the URL and that the service is running.`;
    if (error.code === "ENOTFOUND")
      return `could not reach ${this.who()}: the host name does not resolve; check the URL.`;
    return `the connection to ${this.who()} failed (${error.code ?? error.message}); check the network and try again.`;
  }

  /** Records the first failure (every later wait and tick throws it) and returns it. */
  private fail(message: string): SystemFailure {
    this.failure ??= new SystemFailure(this.redact(message));
    this.progress();
    return this.failure;
  }

  /** The key, and anything shaped like a key (a provider may echo part of it), out of a message. */
  private redact(text: string): string {
    const key = this.options.apiKey;
    const withoutKey = key.length >= 4 ? text.split(key).join("[redacted]") : text;
    return withoutKey.replace(/\b(sk|xai)-[\w*.-]{4,}/g, "[redacted]");
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  private send(event: Record<string, unknown>): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      this.fail(`${this.who()} is not connected; the call cannot continue, run it again.`);
      this.throwIfFailed();
      return;
    }
    socket.send(JSON.stringify(event));
  }

  private update(session: Record<string, unknown>): void {
    this.send({ type: "session.update", session });
    this.updatesSent++;
  }

  private waitForAnswers(what: string): Promise<void> {
    return this.waitUntil(() => this.updatesAnswered >= this.updatesSent, what);
  }

  /**
   * Resolves when `ready()` holds; rejects with the call's failure. After `ms` (default: the timeout)
   * it resolves when `what` is empty (a plain wait), otherwise fails: the endpoint did not answer.
   */
  private waitUntil(ready: () => boolean, what: string, ms?: number): Promise<void> {
    const timeoutMs = ms ?? this.options.timeoutMs ?? 30_000;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        check: () => {
          if (this.failure) finish(() => reject(this.failure));
          else if (ready()) finish(resolve);
        },
      };
      const timer = setTimeout(() => {
        if (what === "") finish(resolve);
        else
          finish(() =>
            reject(
              this.fail(
                `${this.who()} did not answer within ${timeoutMs / 1000} s while waiting for ${what}.`,
              ),
            ),
          );
      }, timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        settle();
      };
      this.waiters.add(waiter);
      waiter.check();
    });
  }

  private progress(): void {
    for (const waiter of [...this.waiters]) waiter.check();
  }

  // ——— server events ———

  private receive(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.fail(`${this.who()} sent a message that is not JSON; the call cannot continue.`);
      return;
    }
    const type = (raw as { type?: unknown } | null)?.type;
    if (typeof type !== "string" || !READ_SERVER_EVENTS.has(type)) return;
    const parsed = RealtimeServerEventSchema.safeParse(raw);
    if (!parsed.success) {
      this.fail(`${this.who()} sent a malformed "${type}" event; the call cannot continue.`);
      return;
    }
    this.handle(parsed.data);
    this.progress();
  }

  private handle(event: RealtimeServerEvent): void {
    switch (event.type) {
      case "session.created":
      case "conversation.created":
        this.sessionCreated = true;
        return;
      case "session.updated":
        this.updatesAnswered++;
        return;
      case "error": {
        const code = event.error.code ? ` (${event.error.code})` : "";
        this.fail(`${this.who()} reported an error${code}: ${event.error.message ?? "no message"}.`);
        return;
      }
      case "input_audio_buffer.speech_started":
        if (event.item_id !== undefined)
          this.inputTurns.set(event.item_id, { startMs: event.audio_start_ms ?? 0 });
        this.bargeIn();
        return;
      case "input_audio_buffer.speech_stopped": {
        const turn = event.item_id === undefined ? undefined : this.inputTurns.get(event.item_id);
        if (turn) turn.endMs = event.audio_end_ms ?? turn.startMs;
        return;
      }
      case "conversation.item.input_audio_transcription.completed": {
        // Priced when passk asked for it (an endpoint that transcribes unasked bills it its own way).
        if (event.usage && this.transcription)
          this.usage.push(this.transcriptionUsage(event.usage, this.transcription));
        // Only a turn the VAD timed can be placed on the caller's ticks.
        const turn = this.inputTurns.get(event.item_id);
        if (turn && event.transcript !== "")
          this.heard.push({
            text: event.transcript,
            startMs: turn.startMs,
            endMs: turn.endMs ?? turn.startMs,
          });
        return;
      }
      case "response.output_audio.delta": {
        const item = this.item(event.item_id);
        if (item.truncated) return;
        const audio = new Uint8Array(Buffer.from(event.delta, "base64"));
        if (audio.length === 0) return;
        item.unplayed.push(audio);
        item.received += audio.length;
        if (!this.playQueue.includes(item)) this.playQueue.push(item);
        return;
      }
      case "response.output_audio_transcript.delta": {
        const item = this.item(event.item_id);
        if (!item.truncated) item.transcript += event.delta;
        return;
      }
      case "response.function_call_arguments.done":
        this.toolCalls.push(toolCall(event.call_id, event.name, event.arguments));
        return;
      case "response.done": {
        const { response } = event;
        if (response.usage) this.usage.push(this.usageRecord(response.usage));
        if (response.status === "failed")
          this.fail(`${this.who()} failed to answer: ${describeStatus(response.status_details)}.`);
        return;
      }
    }
  }

  private item(id: string): SpokenItem {
    let item = this.items.get(id);
    if (!item) {
      item = {
        id,
        received: 0,
        played: 0,
        transcript: "",
        shown: 0,
        truncated: false,
        unplayed: [],
        offset: 0,
      };
      this.items.set(id, item);
    }
    return item;
  }

  /**
   * The caller speaks while the agent's audio is still playing out: the rest is dropped and the server
   * told how much of each item the caller heard, so its conversation holds what was really said.
   */
  private bargeIn(): void {
    for (const item of this.playQueue) {
      item.truncated = true;
      item.unplayed = [];
      item.offset = 0;
      this.send({
        type: "conversation.item.truncate",
        item_id: item.id,
        content_index: 0,
        audio_end_ms: Math.floor(item.played / BYTES_PER_MS),
      });
    }
    this.playQueue = [];
  }

  private sendToolResults(results: readonly ToolMessage[]): void {
    for (const result of results)
      this.send({
        type: "conversation.item.create",
        item: { type: "function_call_output", call_id: result.id, output: result.content ?? "" },
      });
    if (results.length > 0) this.send({ type: "response.create" });
  }

  private usageRecord(usage: RealtimeUsage): VoiceUsageRecord {
    return {
      source: "openai-realtime",
      model: this.model,
      inputAudioTokens: usage.input_token_details?.audio_tokens ?? 0,
      inputTextTokens: usage.input_token_details?.text_tokens ?? 0,
      outputAudioTokens: usage.output_token_details?.audio_tokens ?? 0,
      outputTextTokens: usage.output_token_details?.text_tokens ?? 0,
      ...cachedTokens(usage),
    };
  }

  private transcriptionUsage(usage: TranscriptionUsage, transcription: string): VoiceUsageRecord {
    const model = `${this.provider}:${transcription}`;
    if (usage.type === "duration") return { source: "transcription", model, audioSeconds: usage.seconds };
    const details = usage.input_token_details;
    return {
      source: "transcription",
      model,
      inputAudioTokens: details?.audio_tokens ?? usage.input_tokens ?? 0,
      inputTextTokens: details?.text_tokens ?? 0,
      outputTextTokens: usage.output_tokens ?? 0,
    };
  }

  // ——— playing out ———

  /** One tick of the agent's audio from what arrived, with the part of its transcript it covers. */
  private playTick(): VoiceAgentTickOutput {
    // A session billed by time: each tick is a tick of connection.
    if (this.billing === "session-minutes")
      this.usage.push({ source: "openai-realtime", model: this.model, sessionSeconds: this.tickMs / 1000 });
    const audio = new Uint8Array(this.tickBytes).fill(WIRE_SILENCE);
    let filled = 0;
    const spoken = new Set<SpokenItem>();
    while (filled < audio.length && this.playQueue.length > 0) {
      const item = this.playQueue[0]!;
      const chunk = item.unplayed[0];
      if (!chunk) {
        this.playQueue.shift();
        continue;
      }
      const take = Math.min(chunk.length - item.offset, audio.length - filled);
      audio.set(chunk.subarray(item.offset, item.offset + take), filled);
      filled += take;
      item.played += take;
      item.offset += take;
      spoken.add(item);
      if (item.offset === chunk.length) {
        item.unplayed.shift();
        item.offset = 0;
      }
    }
    let text = "";
    for (const item of this.items.values()) {
      if (item.truncated && !spoken.has(item)) continue;
      text += spokenText(item);
    }
    const output: VoiceAgentTickOutput = {
      audio,
      text,
      containsSpeech: filled > 0,
      toolCalls: this.toolCalls,
      ...(this.usage.length > 0 ? { usage: this.usage } : {}),
      ...(this.heard.length > 0 ? { heard: this.heard } : {}),
    };
    this.toolCalls = [];
    this.usage = [];
    this.heard = [];
    return output;
  }
}

/**
 * The transcript not yet shown of the audio played so far: text in proportion to audio, cut at a word's
 * end; all of it once every byte received has played.
 */
function spokenText(item: SpokenItem): string {
  if (item.received === 0 || item.shown >= item.transcript.length) return "";
  let end = item.transcript.length;
  if (item.played < item.received) {
    end = Math.floor((item.transcript.length * item.played) / item.received);
    while (end < item.transcript.length && !/\s/.test(item.transcript[end]!)) end++;
  }
  if (end <= item.shown) return "";
  const text = item.transcript.slice(item.shown, end);
  item.shown = end;
  return text;
}

function toolCall(id: string, name: string, argumentsText: string): ToolCall {
  let parsed: unknown;
  try {
    parsed = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
    return { id, name, arguments: parsed as Record<string, unknown>, requestor: "assistant" };
  return { id, name, arguments: {}, requestor: "assistant", raw_arguments: argumentsText };
}

function describeStatus(details: unknown): string {
  const error = (details as { error?: { message?: unknown; code?: unknown } } | null | undefined)?.error;
  if (typeof error?.message === "string") return error.message;
  if (typeof error?.code === "string") return error.code;
  return "the response failed without details";
}

/** The cached part of a response's input, by modality (all of it counted as text when not broken down). */
function cachedTokens(
  usage: RealtimeUsage,
): Pick<VoiceUsageRecord, "cachedInputTextTokens" | "cachedInputAudioTokens"> {
  const details = usage.input_token_details;
  const cached = details?.cached_tokens ?? 0;
  if (cached === 0) return {};
  const audio = details?.cached_tokens_details?.audio_tokens;
  const text = details?.cached_tokens_details?.text_tokens;
  if (audio === undefined && text === undefined) return { cachedInputTextTokens: cached };
  return {
    ...(text ? { cachedInputTextTokens: text } : {}),
    ...(audio ? { cachedInputAudioTokens: audio } : {}),
  };
}
