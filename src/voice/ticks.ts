import type { ToolCall, ToolMessage } from "../core/message.js";
import type { TerminationReason } from "../core/simulation.js";
import type { Message } from "../core/message.js";
import type { SessionUsage } from "./voice-cost.js";
import type { ChannelEffectsInTick, SourceEffectsInTick, SpeechEffectsInTick } from "./call.js";

// A full-duplex call's record in the reference's JSON shape (tau2-bench's `Tick` and the full-duplex
// `SimulationRun`): one record per tick, each holding the chunk each side produced in it (audio left
// out: the call hands the wire audio back separately), the tool calls made in the tick and their
// results. Field names are the reference's, so its results model loads what passk writes.

/** The audio format of a chunk (the reference's `AudioFormat`, with its computed fields). */
export interface ChunkAudioFormat {
  encoding: "ulaw";
  sample_rate: number;
  channels: 1;
  sample_width: 1;
  bits_per_sample: 8;
  bytes_per_sample: 1;
}

/** μ-law at 8 kHz, mono: the wire format of every chunk. */
export const WIRE_AUDIO_FORMAT: Readonly<ChunkAudioFormat> = Object.freeze({
  encoding: "ulaw",
  sample_rate: 8000,
  channels: 1,
  sample_width: 1,
  bits_per_sample: 8,
  bytes_per_sample: 1,
});

/** The caller's turn-taking decision in a tick, with the timing of the model calls behind it. */
export interface TurnTakingActionRecord {
  /** `wait`, `keep_talking`, `generate_message`, `stop_talking`, `backchannel`. */
  action: string;
  info: string | null;
  interrupt_check_seconds: number | null;
  interrupt_check_cost: number | null;
  interrupt_check_usage: Record<string, unknown> | null;
  backchannel_check_seconds: number | null;
  backchannel_check_cost: number | null;
  backchannel_check_usage: Record<string, unknown> | null;
  llm_generation_seconds: number | null;
  tts_synthesis_seconds: number | null;
}

/** One side's chunk of one tick (the reference's streaming `AssistantMessage` / `UserMessage`). */
export interface TickChunk {
  role: "assistant" | "user";
  /** The text spoken in this tick (the chunk's share of its utterance's transcript); "" when none. */
  content: string | null;
  /** Always null in a tick: a chunk's tool calls are recorded in the tick's `*_tool_calls`. */
  tool_calls: null;
  is_audio: boolean;
  turn_idx: null;
  timestamp: string;
  cost: number | null;
  usage: Record<string, unknown> | null;
  raw_data: Record<string, unknown> | null;
  generation_time_seconds: number | null;
  audio_format: ChunkAudioFormat | null;
  audio_path: null;
  audio_script_gold: string | null;
  speech_effects: SpeechEffectsInTick | null;
  source_effects: SourceEffectsInTick | null;
  channel_effects: ChannelEffectsInTick | null;
  turn_taking_action: TurnTakingActionRecord | null;
  /** The utterance(s) this chunk belongs to; chunks of one utterance share an id. */
  utterance_ids: string[] | null;
  chunk_id: number | null;
  is_final_chunk: boolean;
  source: string | null;
  contains_speech: boolean;
}

/** Everything that happened in one tick (the reference's `Tick`). */
export interface Tick {
  tick_id: number;
  timestamp: string;
  agent_chunk: TickChunk | null;
  user_chunk: TickChunk | null;
  agent_tool_calls: ToolCall[];
  user_tool_calls: ToolCall[];
  agent_tool_results: ToolMessage[];
  user_tool_results: ToolMessage[];
  user_transcript: string | null;
  tick_duration_seconds: number | null;
  wall_clock_duration_seconds: number | null;
}

/** A finished full-duplex call (the reference's `SimulationRun` with `mode: "full_duplex"`). */
export interface FullDuplexSimulationRun {
  id: string;
  task_id: string;
  timestamp: string;
  start_time: string;
  end_time: string;
  duration: number;
  termination_reason: TerminationReason;
  agent_cost: number | null;
  /** The agent's provider usage over the call, summed per model and priced (the reference's `SessionUsage`). */
  agent_usage: SessionUsage | null;
  user_cost: number | null;
  reward_info: null;
  /**
   * The conversation in order, linearised from the ticks (speech merged per utterance, tool calls
   * with their results), for passk's readers of `messages`; the ticks are the record.
   */
  messages: Message[];
  ticks: Tick[];
  trial: number;
  seed: number;
  mode: "full_duplex";
  /** The reference's responsiveness counts, and why the call failed when it did. */
  info: Record<string, unknown>;
}

/** A chunk with the reference's defaults: no text, no speech, no effects. */
export function emptyChunk(role: "assistant" | "user", timestamp: string): TickChunk {
  return {
    role,
    content: null,
    tool_calls: null,
    is_audio: false,
    turn_idx: null,
    timestamp,
    cost: null,
    usage: null,
    raw_data: null,
    generation_time_seconds: null,
    audio_format: null,
    audio_path: null,
    audio_script_gold: null,
    speech_effects: null,
    source_effects: null,
    channel_effects: null,
    turn_taking_action: null,
    utterance_ids: null,
    chunk_id: null,
    is_final_chunk: true,
    source: null,
    contains_speech: false,
  };
}

/** A turn-taking record with no model timings. */
export function turnTakingAction(action: string, info: string | null = null): TurnTakingActionRecord {
  return {
    action,
    info,
    interrupt_check_seconds: null,
    interrupt_check_cost: null,
    interrupt_check_usage: null,
    backchannel_check_seconds: null,
    backchannel_check_cost: null,
    backchannel_check_usage: null,
    llm_generation_seconds: null,
    tts_synthesis_seconds: null,
  };
}
