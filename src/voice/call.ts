import type { AgentView } from "../core/agent.js";
import type { ToolCall, ToolMessage } from "../core/message.js";

// The contracts of a full-duplex voice call. A call advances in ticks (`tickSeconds`, default 0.2 s);
// in each tick both sides hand over one tick of audio on the telephone wire: G.711 μ-law at 8 kHz, mono,
// exactly `wireBytesPerTick(tickSeconds)` bytes (silence is 0xFF). Tool calls made in a tick run inside
// it; their results reach the caller of the tool at the next tick.

/** The telephone line's sample rate (Hz): the caller's audio reaches the agent as 8 kHz μ-law. */
export const WIRE_SAMPLE_RATE = 8000;

/** The τ-voice default tick length (seconds). */
export const DEFAULT_TICK_SECONDS = 0.2;

/** μ-law's code for a zero sample (digital silence on the wire). */
export const WIRE_SILENCE = 0xff;

/** Bytes of wire audio in one tick. */
export function wireBytesPerTick(tickSeconds: number): number {
  return Math.round(tickSeconds * WIRE_SAMPLE_RATE);
}

/** One tick of silence on the wire. */
export function silentTick(tickSeconds: number): Uint8Array {
  return new Uint8Array(wireBytesPerTick(tickSeconds)).fill(WIRE_SILENCE);
}

/**
 * How the call keeps time. `virtual`: a tick takes as long as its computation (mock providers, tests,
 * replays): a 10-minute call simulates in well under a second, and an adapter waits for its provider's
 * whole answer before the next tick. `realtime`: each tick lasts `tickSeconds` of wall-clock time, as a
 * real speech-to-speech provider needs.
 */
export type CallClock = "virtual" | "realtime";

/** What a voice agent is given when the call opens: the same view a text agent gets, and the clock. */
export interface VoiceAgentSetup {
  view: AgentView;
  tickSeconds: number;
  clock: CallClock;
}

/** Provider usage of a voice agent: tokens or minutes, per modality, as the provider metered them. */
export interface VoiceUsageRecord {
  /** `openai-realtime`, `gemini-live`, `transcription`, `speech`, `llm`, … */
  source: string;
  model: string;
  inputAudioTokens?: number;
  outputAudioTokens?: number;
  inputTextTokens?: number;
  outputTextTokens?: number;
  /** Of the input tokens above, those read from the provider's cache (text, audio). */
  cachedInputTextTokens?: number;
  cachedInputAudioTokens?: number;
  /** Audio seconds billed (transcription and speech models bill by time or characters). */
  audioSeconds?: number;
  /**
   * Seconds of a realtime session billed by time (xAI's voice agent bills per minute of connection):
   * present, it is the record's billing basis and its tokens are informational.
   */
  sessionSeconds?: number;
  characters?: number;
  /** USD, when passk's LLM layer already priced the use (the cascade's text agent); null: no price. */
  cost?: number | null;
}

/** What the agent hears and receives in one tick. */
export interface VoiceAgentTickInput {
  /** The caller's audio of this tick, as it arrived over the line (after every effect). */
  audio: Uint8Array;
  /** Results of the tool calls the agent made in the previous tick (empty when none). */
  toolResults: readonly ToolMessage[];
}

/** What the agent produces in one tick. */
export interface VoiceAgentTickOutput {
  /** The agent's audio of this tick (`wireBytesPerTick` bytes; silence when it does not speak). */
  audio: Uint8Array;
  /** The part of the agent's transcript spoken in this tick ("" when it says nothing). */
  text: string;
  /** Whether the agent is speaking in this tick. */
  containsSpeech: boolean;
  /** Tool calls the agent made in this tick (requestor "assistant"). */
  toolCalls: readonly ToolCall[];
  /** Usage metered in this tick. */
  usage?: readonly VoiceUsageRecord[];
  /**
   * What the agent made of the caller's speech, as its provider transcribed it (OpenAI Realtime's input
   * transcription), for each transcription that completed in this tick. Absent: none (or the agent does
   * not transcribe what it hears). The call spreads them over the caller's ticks as `user_transcript`.
   */
  heard?: readonly HeardSpeech[];
}

/**
 * One stretch of the caller's speech as the agent transcribed it, and where it lies in the caller's audio
 * as the agent received it: milliseconds from the first tick of that audio (the caller's tick k covers
 * `[k × tick, (k + 1) × tick)`).
 */
export interface HeardSpeech {
  text: string;
  startMs: number;
  endMs: number;
}

/**
 * A voice agent under test: a speech-to-speech provider session (OpenAI Realtime, Gemini Live), a
 * cascade (transcription → text agent → speech), or a team's own agent over WebSocket. One instance per
 * call. A provider failure throws `SystemFailure` (never scored as the agent's); the agent's own crash
 * throws anything else.
 */
export interface VoiceAgent {
  /** Shown in results (`agent_info.implementation`). */
  readonly name: string;
  /** Provider and model (`agent_info.llm`, e.g. `openai:gpt-realtime`). */
  readonly model?: string;
  start(setup: VoiceAgentSetup): Promise<void>;
  tick(input: VoiceAgentTickInput): Promise<VoiceAgentTickOutput>;
  /** Close the session, however the call ended. A failure here changes nothing in the result. */
  stop(): Promise<void>;
}

/** A vocal tic or a phrase not meant for the agent, put into the caller's speech (reference names). */
export interface SpeechInsert {
  text: string;
  type: "vocal_tic" | "non_directed_phrase";
}

/** Effects on the caller's voice in a tick (the reference's `speech_effects`). */
export interface SpeechEffectsInTick {
  dynamic_muffling_enabled: boolean;
  speech_insert: SpeechInsert | null;
}

/**
 * Effects of the caller's surroundings in a tick (the reference's `source_effects`): a burst, or an
 * off-turn insert, that started in it.
 */
export interface SourceEffectsInTick {
  burst_noise_file: string | null;
  speech_insert: SpeechInsert | null;
}

/** Effects of the line in a tick (the reference's `channel_effects`): frames lost. */
export interface ChannelEffectsInTick {
  frame_drops_enabled: boolean;
  /** Milliseconds of this tick's audio lost on the line. */
  frame_drop_ms: number;
}

/** Where the caller is in their speech at a tick, for the line's effects. */
export interface CallerSpeechState {
  /** The caller is mid-utterance in this tick. */
  speaking: boolean;
  /** This tick is the first of a new utterance (effects drawn per utterance are drawn now). */
  utteranceStart: boolean;
  /**
   * Something the caller says off-turn, starting in this tick while they are silent (a cough, a remark
   * away from the phone): its audio, PCM16 mono at 8 kHz as it should sound, played over this and the
   * following ticks for as long as the caller stays silent, cut off when they start speaking. It replaces
   * one still playing. Absent: nothing starts.
   */
  outOfTurn?: { insert: SpeechInsert; audio: Int16Array };
}

/** One tick of the caller's audio as it leaves the line, and the effects applied to it. */
export interface CallerLineTick {
  /** What the agent hears: μ-law at 8 kHz, `wireBytesPerTick` bytes. */
  wire: Uint8Array;
  /**
   * For `--audio-taps`, when the line has these stages: the caller's audio after the effects of their
   * surroundings and voice (PCM16, 8 kHz), and what went onto the line before frames were lost (μ-law).
   */
  stages?: { postNoise: Int16Array; sent: Uint8Array };
  speechEffects: SpeechEffectsInTick | null;
  sourceEffects: SourceEffectsInTick | null;
  channelEffects: ChannelEffectsInTick | null;
}

/**
 * The caller's side of the line: their clean voice of one tick in, what reaches the agent out —
 * background noise and bursts of their surroundings, muffling of their voice, the telephone band and
 * μ-law, frames lost on the way. One instance per call; seeded, so a call's effects are reproducible.
 */
export interface CallerLine {
  /** `speech`: the caller's clean voice in this tick, PCM16 mono at 8 kHz (zeros when silent). */
  tick(speech: Int16Array, state: CallerSpeechState): CallerLineTick;
  /** The effects that fired on the line so far (bursts, off-turn speech, frame drops), timed from the call's start. */
  effectTimeline?(): EffectTimeline;
}

/** One effect that fired during a call (the reference's `EffectEvent`, with its computed duration). */
export interface EffectEvent {
  effect_type: "background_noise" | "burst_noise" | "out_of_turn_speech" | "telephony" | "frame_drop";
  start_ms: number;
  end_ms: number | null;
  participant: "user" | "agent";
  params: Record<string, unknown> | null;
  duration_ms: number | null;
}

/** The effects of a call in order (the reference's `EffectTimeline`). */
export interface EffectTimeline {
  events: EffectEvent[];
}
