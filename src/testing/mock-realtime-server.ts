import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { mulawDecode, mulawEncode } from "../voice/audio.js";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { WIRE_SAMPLE_RATE } from "../voice/call.js";
import type { RealtimeUsage } from "../voice/agents/openai-realtime-events.js";
import { speakTestSpeech, TestSpeechListener } from "./speech-codec.js";

// A local stand-in for an OpenAI Realtime (GA protocol) endpoint, for tests and keyless demos: it takes
// the caller's μ-law audio, decodes it and listens (its server VAD is the listener: a turn starts when it
// makes out speech and ends after the session's silence — noise alone is not speech), asks its brain what
// to do with each turn it heard, and answers with spoken audio (`speak`), transcripts
// and function calls exactly as the real protocol orders them. Everything it emits for an event is sent
// before it reads the next event, so a client that sends a barrier (`session.update`) after each tick's
// audio knows the server's whole answer to it when `session.updated` arrives.

/** What the mock's brain answers with: something to say, tool calls to make, or both. */
export interface MockRealtimeTurn {
  say?: string;
  toolCalls?: ReadonlyArray<{ name: string; arguments: Record<string, unknown> }>;
}

/** One function call's output, as the client sent it (`function_call_output`). */
export interface MockToolOutput {
  callId: string;
  name: string;
  output: string;
}

/** Why the brain is asked to respond: the caller finished a turn, or tool outputs came back. */
export type MockRealtimeTrigger =
  { kind: "heard"; text: string } | { kind: "tool_results"; outputs: readonly MockToolOutput[] };

/** The agent behind one mock call. Returning undefined: no response. */
export interface MockRealtimeBrain {
  respond(trigger: MockRealtimeTrigger): MockRealtimeTurn | undefined;
}

export interface MockRealtimeServerOptions {
  /** A brain for each call (connection). */
  brain: () => MockRealtimeBrain;
  /**
   * How the mock listens, one listener per call: the test speech codec's (`TestSpeechListener`) by
   * default, which mishears what the line damaged.
   */
  listener?: (sampleRate: number, endOfUtteranceSeconds: number) => SpeechListener;
  /** How the mock speaks: the text in, PCM16 mono at `sampleRate` out. Default: `speakTestSpeech`. */
  speak?: (text: string, sampleRate: number) => Int16Array;
  /** The only key accepted (as `Authorization: Bearer` or `api-key`); others get HTTP 401. Absent: any. */
  apiKey?: string;
  /**
   * Bill the input transcriptions a session asks for (`audio.input.transcription`): each
   * `conversation.item.input_audio_transcription.completed` carries token usage, as gpt-4o-transcribe's
   * does (an audio token per 100 ms of the turn, a text token per 4 characters). Default: not billed, so
   * the agent's cost is its responses' alone.
   */
  billTranscription?: boolean;
}

/** Hears a stream of audio: the utterances that ended in each push, and whether one is under way. */
export interface SpeechListener {
  push(samples: Int16Array): string[];
  flush(): string[];
  readonly hearing: boolean;
}

/** What happened on one call, for tests. */
export interface MockRealtimeCall {
  /** Types of the client events received, in order. */
  events: string[];
  /** The query the client connected with (`model`, `deployment`, …). */
  query: Record<string, string>;
  /** The session as the client last configured it. */
  session: Record<string, unknown>;
  /** Each turn of the caller as the mock heard it. */
  heard: string[];
  /** Function outputs the client sent. */
  toolOutputs: MockToolOutput[];
  /** Each truncation the client asked for. */
  truncations: Array<{ itemId: string; audioEndMs: number }>;
  /** Milliseconds of caller audio received. */
  audioMs: number;
  /** The `usage` of each `response.done` sent, as sent. */
  usage: RealtimeUsage[];
}

export interface MockRealtimeServer {
  /** `ws://127.0.0.1:PORT/v1/realtime` */
  readonly url: string;
  readonly calls: readonly MockRealtimeCall[];
  /** Drops every open call without a closing handshake (a provider going away mid-call). */
  dropCalls(): void;
  close(): Promise<void>;
}

const BYTES_PER_MS = WIRE_SAMPLE_RATE / 1000;
/** Audio deltas of 100 ms, as a provider streams them. */
const DELTA_BYTES = 100 * BYTES_PER_MS;

const ClientEventSchema = z.looseObject({ type: z.string(), event_id: z.string().optional() });
const SessionUpdateSchema = z.looseObject({
  session: z.looseObject({
    type: z.literal("realtime").optional(),
    instructions: z.string().optional(),
    tools: z
      .array(z.looseObject({ type: z.literal("function"), name: z.string(), parameters: z.unknown() }))
      .optional(),
    audio: z
      .looseObject({
        input: z
          .looseObject({
            format: z.looseObject({ type: z.literal("audio/pcmu") }).optional(),
            transcription: z.looseObject({ model: z.string() }).nullable().optional(),
            turn_detection: z
              .looseObject({
                type: z.literal("server_vad"),
                prefix_padding_ms: z.number().int().min(0).optional(),
                silence_duration_ms: z.number().int().min(1).optional(),
                create_response: z.boolean().optional(),
              })
              .nullable()
              .optional(),
          })
          .optional(),
        output: z
          .looseObject({ format: z.looseObject({ type: z.literal("audio/pcmu") }).optional() })
          .optional(),
      })
      .optional(),
  }),
});
const AppendSchema = z.looseObject({ audio: z.base64() });
const ItemCreateSchema = z.looseObject({
  item: z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("function_call_output"), call_id: z.string(), output: z.string() }),
    z.looseObject({
      type: z.literal("message"),
      role: z.enum(["user", "assistant", "system"]),
      content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
    }),
  ]),
});
const TruncateSchema = z.looseObject({
  item_id: z.string(),
  content_index: z.number().int().min(0),
  audio_end_ms: z.number().int().min(0),
});

/** Starts a mock realtime server on 127.0.0.1 (a free port). */
export async function startMockRealtimeServer(
  options: MockRealtimeServerOptions,
): Promise<MockRealtimeServer> {
  const calls: MockRealtimeCall[] = [];
  const server = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    verifyClient: (
      info: { req: IncomingMessage },
      done: (ok: boolean, code?: number, message?: string) => void,
    ) =>
      options.apiKey === undefined || presentedKey(info.req) === options.apiKey
        ? done(true)
        : done(false, 401, "Unauthorized"),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  server.on("connection", (socket, request) => {
    const query = Object.fromEntries(new URL(request.url ?? "/", "ws://localhost").searchParams);
    const call: MockRealtimeCall = {
      events: [],
      query,
      session: {},
      heard: [],
      toolOutputs: [],
      truncations: [],
      audioMs: 0,
      usage: [],
    };
    calls.push(call);
    new MockCall(socket, call, options);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/v1/realtime`,
    calls,
    dropCalls: () => {
      for (const client of server.clients) client.terminate();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

function presentedKey(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "");
  if (bearer) return bearer[1];
  const header = request.headers["api-key"];
  return typeof header === "string" ? header : undefined;
}

interface SpokenItem {
  audioMs: number;
}

/** One call: its session, the caller's audio and turns, the conversation's items. */
class MockCall {
  private readonly brain: MockRealtimeBrain;
  private ids = 0;
  private instructions = "";
  private tools = new Set<string>();
  private prefixPaddingMs = 300;
  private silenceMs = 500;
  private createResponse = true;
  private vadOn = true;
  /** The session transcribes the caller's turns (and tells the client what it heard). */
  private transcription: string | null = null;
  private listener: SpeechListener;
  /** Milliseconds of caller audio received, and where the caller's turn under way started. */
  private positionMs = 0;
  private speechStartMs?: number;
  private currentInputItem = "";
  /** Turns the listener finished that no commit took yet (turn detection off). */
  private uncommitted: string[] = [];
  private lastItem: string | null = null;
  private readonly assistantItems = new Map<string, SpokenItem>();
  private readonly pendingCalls = new Map<string, string>();
  private outputs: MockToolOutput[] = [];
  private conversationChars = 0;
  private heardAudioMs = 0;
  private lastInput = { text: 0, audio: 0 };
  private appended = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly call: MockRealtimeCall,
    private readonly options: MockRealtimeServerOptions,
  ) {
    this.brain = options.brain();
    this.listener = this.newListener();
    socket.on("message", (data) => this.receive(String(data)));
    this.emit({
      type: "session.created",
      session: this.sessionView(),
    });
  }

  private newListener(): SpeechListener {
    const make = this.options.listener ?? ((rate, seconds) => new TestSpeechListener(rate, seconds));
    return make(WIRE_SAMPLE_RATE, this.silenceMs / 1000);
  }

  private id(prefix: string): string {
    return `${prefix}_${String(++this.ids).padStart(4, "0")}`;
  }

  private emit(event: Record<string, unknown>): void {
    this.socket.send(JSON.stringify({ event_id: this.id("event"), ...event }));
  }

  private error(message: string, code: string, clientEventId?: string): void {
    this.emit({
      type: "error",
      error: { type: "invalid_request_error", code, message, param: null, event_id: clientEventId ?? null },
    });
  }

  private sessionView(): Record<string, unknown> {
    return {
      id: "sess_mock",
      type: "realtime",
      object: "realtime.session",
      model: this.call.query.model ?? this.call.query.deployment ?? "mock-realtime",
      instructions: this.instructions,
      output_modalities: ["audio"],
      audio: {
        input: {
          format: { type: "audio/pcmu" },
          turn_detection: this.vadOn
            ? {
                type: "server_vad",
                prefix_padding_ms: this.prefixPaddingMs,
                silence_duration_ms: this.silenceMs,
                create_response: this.createResponse,
              }
            : null,
        },
        output: { format: { type: "audio/pcmu" } },
      },
      tools: [...this.tools].map((name) => ({ type: "function", name })),
    };
  }

  private receive(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.error("The message is not valid JSON.", "invalid_json");
      return;
    }
    const envelope = ClientEventSchema.safeParse(raw);
    if (!envelope.success) {
      this.error("Every client event needs a string `type`.", "invalid_event");
      return;
    }
    const event = envelope.data;
    this.call.events.push(event.type);
    switch (event.type) {
      case "session.update":
        return this.sessionUpdate(event);
      case "input_audio_buffer.append":
        return this.append(event);
      case "input_audio_buffer.commit":
        if (!this.appended)
          return this.error(
            "The input audio buffer is empty.",
            "input_audio_buffer_commit_empty",
            event.event_id,
          );
        return this.commit();
      case "input_audio_buffer.clear":
        this.listener = this.newListener();
        this.uncommitted = [];
        this.appended = false;
        this.speechStartMs = undefined;
        return this.emit({ type: "input_audio_buffer.cleared" });
      case "conversation.item.create":
        return this.itemCreate(event);
      case "conversation.item.truncate":
        return this.truncate(event);
      case "response.create": {
        const outputs = this.outputs;
        this.outputs = [];
        return this.respond(
          outputs.length > 0 ? { kind: "tool_results", outputs } : { kind: "heard", text: "" },
        );
      }
      case "response.cancel":
        return this.error(
          "There is no active response to cancel.",
          "response_cancel_not_active",
          event.event_id,
        );
      default:
        return this.error(
          `Invalid value: '${event.type}' is not a client event type.`,
          "invalid_value",
          event.event_id,
        );
    }
  }

  private sessionUpdate(event: z.infer<typeof ClientEventSchema>): void {
    const parsed = SessionUpdateSchema.safeParse(event);
    if (!parsed.success)
      return this.error(
        `Invalid session: ${parsed.error.issues[0]?.message ?? "malformed"}.`,
        "invalid_value",
        event.event_id,
      );
    const { session } = parsed.data;
    if (session.instructions !== undefined) this.instructions = session.instructions;
    if (session.tools !== undefined) this.tools = new Set(session.tools.map((tool) => tool.name));
    const transcription = session.audio?.input?.transcription;
    if (transcription !== undefined) this.transcription = transcription?.model ?? null;
    const vad = session.audio?.input?.turn_detection;
    if (vad === null) this.vadOn = false;
    else if (vad !== undefined) {
      this.vadOn = true;
      this.prefixPaddingMs = vad.prefix_padding_ms ?? this.prefixPaddingMs;
      const silenceMs = vad.silence_duration_ms ?? this.silenceMs;
      if (silenceMs !== this.silenceMs && !this.listener.hearing) {
        this.silenceMs = silenceMs;
        this.listener = this.newListener();
      }
      this.createResponse = vad.create_response ?? true;
    }
    this.call.session = { ...this.call.session, ...session };
    this.emit({ type: "session.updated", session: this.sessionView() });
  }

  // ——— the caller's audio ———

  private append(event: z.infer<typeof ClientEventSchema>): void {
    const parsed = AppendSchema.safeParse(event);
    if (!parsed.success)
      return this.error("`audio` must be base64-encoded audio/pcmu.", "invalid_value", event.event_id);
    const samples = mulawDecode(new Uint8Array(Buffer.from(parsed.data.audio, "base64")));
    const from = this.positionMs;
    this.positionMs += samples.length / BYTES_PER_MS;
    this.call.audioMs += samples.length / BYTES_PER_MS;
    this.appended = true;
    const wasHearing = this.listener.hearing;
    const finished = this.listener.push(samples);
    if (!this.vadOn) {
      this.uncommitted.push(...finished);
      return;
    }
    // A turn that ended without words the listener kept still ends (its start was announced).
    if (finished.length === 0 && wasHearing && !this.listener.hearing) finished.push("");
    for (const text of finished) {
      this.speechStarted(from);
      this.emit({
        type: "input_audio_buffer.speech_stopped",
        audio_end_ms: Math.round(this.positionMs),
        item_id: this.currentInputItem,
      });
      this.commit(text);
    }
    if (this.listener.hearing) this.speechStarted(from);
  }

  private speechStarted(atMs: number): void {
    if (this.speechStartMs !== undefined) return;
    this.speechStartMs = Math.max(0, Math.round(atMs - this.prefixPaddingMs));
    this.currentInputItem = this.id("item");
    this.emit({
      type: "input_audio_buffer.speech_started",
      audio_start_ms: this.speechStartMs,
      item_id: this.currentInputItem,
    });
  }

  /** Commits the caller's turn: a user item holding what was heard, answered when the VAD says so. */
  private commit(heard?: string): void {
    const item = this.currentInputItem || this.id("item");
    this.emit({ type: "input_audio_buffer.committed", item_id: item, previous_item_id: this.lastItem });
    this.emit({
      type: "conversation.item.added",
      previous_item_id: this.lastItem,
      item: {
        id: item,
        type: "message",
        role: "user",
        status: "completed",
        content: [{ type: "input_audio" }],
      },
    });
    this.lastItem = item;
    const text = heard ?? [...this.uncommitted, ...this.listener.flush()].join(" ");
    this.uncommitted = [];
    this.appended = false;
    const turnMs = this.positionMs - (this.speechStartMs ?? this.positionMs);
    this.heardAudioMs += turnMs;
    this.speechStartMs = undefined;
    this.currentInputItem = "";
    this.call.heard.push(text);
    this.conversationChars += text.length;
    // What the mock heard is its transcription of the turn: the same words, misheard where it misheard.
    if (this.transcription !== null)
      this.emit({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: item,
        content_index: 0,
        transcript: text,
        ...(this.options.billTranscription
          ? {
              usage: {
                type: "tokens",
                input_tokens: Math.round(turnMs / 100),
                input_token_details: { text_tokens: 0, audio_tokens: Math.round(turnMs / 100) },
                output_tokens: Math.ceil(text.length / 4),
                total_tokens: Math.round(turnMs / 100) + Math.ceil(text.length / 4),
              },
            }
          : {}),
      });
    if (heard !== undefined && this.createResponse) this.respond({ kind: "heard", text });
  }

  // ——— conversation ———

  private itemCreate(event: z.infer<typeof ClientEventSchema>): void {
    const parsed = ItemCreateSchema.safeParse(event);
    if (!parsed.success)
      return this.error(
        `Invalid item: ${parsed.error.issues[0]?.message ?? "malformed"}.`,
        "invalid_value",
        event.event_id,
      );
    const { item } = parsed.data;
    const id = this.id("item");
    if (item.type === "function_call_output") {
      const name = this.pendingCalls.get(item.call_id);
      if (name === undefined)
        return this.error(
          `Tool call ID '${item.call_id}' not found in conversation.`,
          "invalid_tool_call_id",
          event.event_id,
        );
      this.pendingCalls.delete(item.call_id);
      const output = { callId: item.call_id, name, output: item.output };
      this.outputs.push(output);
      this.call.toolOutputs.push(output);
      this.conversationChars += item.output.length;
    } else {
      for (const part of item.content) this.conversationChars += part.text?.length ?? 0;
    }
    this.emit({ type: "conversation.item.added", previous_item_id: this.lastItem, item: { id, ...item } });
    this.emit({ type: "conversation.item.done", previous_item_id: this.lastItem, item: { id, ...item } });
    this.lastItem = id;
  }

  private truncate(event: z.infer<typeof ClientEventSchema>): void {
    const parsed = TruncateSchema.safeParse(event);
    if (!parsed.success)
      return this.error(
        `Invalid truncation: ${parsed.error.issues[0]?.message ?? "malformed"}.`,
        "invalid_value",
        event.event_id,
      );
    const { item_id: itemId, content_index: contentIndex, audio_end_ms: audioEndMs } = parsed.data;
    const item = this.assistantItems.get(itemId);
    if (!item || contentIndex !== 0)
      return this.error(
        `Item '${itemId}' has no audio content to truncate.`,
        "item_truncate_invalid_item_id",
        event.event_id,
      );
    if (audioEndMs > item.audioMs)
      return this.error(
        `Audio content of ${item.audioMs}ms is already shorter than ${audioEndMs}ms.`,
        "invalid_value",
        event.event_id,
      );
    item.audioMs = audioEndMs;
    this.call.truncations.push({ itemId, audioEndMs });
    this.emit({
      type: "conversation.item.truncated",
      item_id: itemId,
      content_index: 0,
      audio_end_ms: audioEndMs,
    });
  }

  // ——— responses ———

  private respond(trigger: MockRealtimeTrigger): void {
    const turn = this.brain.respond(trigger);
    if (!turn || (!turn.say && (turn.toolCalls ?? []).length === 0)) return;
    const responseId = this.id("resp");
    const output: Array<Record<string, unknown>> = [];
    this.emit({
      type: "response.created",
      response: { id: responseId, object: "realtime.response", status: "in_progress", output: [] },
    });
    let outputAudioMs = 0;
    let outputChars = 0;
    if (turn.say) {
      const itemId = this.id("item");
      const base = {
        response_id: responseId,
        item_id: itemId,
        output_index: output.length,
        content_index: 0,
      };
      const item = { id: itemId, type: "message", role: "assistant", status: "in_progress", content: [] };
      this.emit({
        type: "response.output_item.added",
        response_id: responseId,
        output_index: base.output_index,
        item,
      });
      this.emit({ type: "response.content_part.added", ...base, part: { type: "audio", transcript: "" } });
      const audio = mulawEncode((this.options.speak ?? speakTestSpeech)(turn.say, WIRE_SAMPLE_RATE));
      const pieces = Math.max(1, Math.ceil(audio.length / DELTA_BYTES));
      const transcript = splitProportionally(turn.say, pieces);
      for (let i = 0; i < pieces; i++) {
        if (transcript[i])
          this.emit({ type: "response.output_audio_transcript.delta", ...base, delta: transcript[i] });
        const chunk = audio.subarray(i * DELTA_BYTES, (i + 1) * DELTA_BYTES);
        if (chunk.length > 0)
          this.emit({
            type: "response.output_audio.delta",
            ...base,
            delta: Buffer.from(chunk).toString("base64"),
          });
      }
      const audioMs = audio.length / BYTES_PER_MS;
      this.assistantItems.set(itemId, { audioMs });
      outputAudioMs += audioMs;
      outputChars += turn.say.length;
      this.emit({ type: "response.output_audio.done", ...base });
      this.emit({ type: "response.output_audio_transcript.done", ...base, transcript: turn.say });
      const part = { type: "audio", transcript: turn.say };
      this.emit({ type: "response.content_part.done", ...base, part });
      const done = { ...item, status: "completed", content: [part] };
      this.emit({
        type: "response.output_item.done",
        response_id: responseId,
        output_index: base.output_index,
        item: done,
      });
      output.push(done);
      this.lastItem = itemId;
    }
    for (const toolCall of turn.toolCalls ?? []) {
      const itemId = this.id("item");
      const callId = this.id("call");
      const args = JSON.stringify(toolCall.arguments);
      const outputIndex = output.length;
      const item = {
        id: itemId,
        type: "function_call",
        status: "in_progress",
        call_id: callId,
        name: toolCall.name,
        arguments: "",
      };
      this.emit({
        type: "response.output_item.added",
        response_id: responseId,
        output_index: outputIndex,
        item,
      });
      const base = { response_id: responseId, item_id: itemId, output_index: outputIndex, call_id: callId };
      this.emit({ type: "response.function_call_arguments.delta", ...base, delta: args });
      this.emit({
        type: "response.function_call_arguments.done",
        ...base,
        name: toolCall.name,
        arguments: args,
      });
      const done = { ...item, status: "completed", arguments: args };
      this.emit({
        type: "response.output_item.done",
        response_id: responseId,
        output_index: outputIndex,
        item: done,
      });
      output.push(done);
      this.pendingCalls.set(callId, toolCall.name);
      this.lastItem = itemId;
      outputChars += args.length;
    }
    const inputText = Math.ceil((this.instructions.length + this.conversationChars) / 4);
    const inputAudio = Math.round(this.heardAudioMs / 100);
    const outputText = Math.ceil(outputChars / 4);
    const outputAudio = Math.round(outputAudioMs / 50);
    this.conversationChars += outputChars;
    // Each response reads the whole conversation again; what the previous one read is cached, in
    // blocks of 64 tokens, as OpenAI's prompt cache does.
    const cachedText = Math.floor(Math.min(this.lastInput.text, inputText) / 64) * 64;
    const cachedAudio = Math.floor(Math.min(this.lastInput.audio, inputAudio) / 64) * 64;
    this.lastInput = { text: inputText, audio: inputAudio };
    const usage = {
      total_tokens: inputText + inputAudio + outputText + outputAudio,
      input_tokens: inputText + inputAudio,
      output_tokens: outputText + outputAudio,
      input_token_details: {
        text_tokens: inputText,
        audio_tokens: inputAudio,
        cached_tokens: cachedText + cachedAudio,
        cached_tokens_details: { text_tokens: cachedText, audio_tokens: cachedAudio },
      },
      output_token_details: { text_tokens: outputText, audio_tokens: outputAudio },
    };
    this.call.usage.push(usage);
    this.emit({
      type: "response.done",
      response: {
        id: responseId,
        object: "realtime.response",
        status: "completed",
        output,
        usage,
      },
    });
  }
}

/** `text` in `pieces` consecutive parts of about equal length, cut between words where it can. */
function splitProportionally(text: string, pieces: number): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= pieces; i++) {
    let end = i === pieces ? text.length : Math.round((text.length * i) / pieces);
    while (end < text.length && end > start && !/\s/.test(text[end - 1]!)) end++;
    end = Math.max(end, start);
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}
