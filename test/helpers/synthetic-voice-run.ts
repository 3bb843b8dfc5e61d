import alawmulaw from "alawmulaw";
import { wireBytesPerTick, WIRE_SILENCE } from "../../src/voice/call.js";
import { voiceRunInfo, type VoiceRunInfo } from "../../src/voice/results-dir.js";

// A hand-built full-duplex call: who speaks in which tick, what they say, the agent's tool calls, and
// each side's μ-law wire audio (a tone while speaking, silence otherwise), in the reference's Tick shape.

export const TICK = 0.2;

/** One side's part of a tick: the text spoken in it ("" for none), or null when silent. */
export type Spoken = string | null;

export interface ScriptedTick {
  user: Spoken;
  agent: Spoken;
  backchannel?: boolean;
  toolCall?: { id: string; name: string; arguments: Record<string, unknown> };
  toolResult?: { id: string; content: string };
}

const stamp = (tick: number) =>
  new Date(Date.UTC(2026, 10, 29, 6, 0, 0) + tick * TICK * 1000).toISOString().slice(0, 23);

/** A tone at `frequency` Hz and `amplitude`, one tick long, μ-law encoded. */
export function toneTick(frequency: number, amplitude: number, tickIndex: number): Uint8Array {
  const n = wireBytesPerTick(TICK);
  const samples = new Int16Array(n);
  for (let i = 0; i < n; i++)
    samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * (tickIndex * n + i)) / 8000));
  return alawmulaw.mulaw.encode(samples);
}

export const USER_TONE = { frequency: 440, amplitude: 8000 };
export const AGENT_TONE = { frequency: 1000, amplitude: 4000 };

/** The ticks (reference shape) and both sides' wire audio of a scripted call. */
export function scriptedCall(script: readonly ScriptedTick[]) {
  const silence = () => new Uint8Array(wireBytesPerTick(TICK)).fill(WIRE_SILENCE);
  const ticks = script.map((s, i) => ({
    tick_id: i,
    timestamp: stamp(i),
    agent_chunk: {
      role: "assistant",
      content: s.agent ?? "",
      contains_speech: s.agent !== null,
      turn_taking_action: null,
      speech_effects: null,
      source_effects: null,
      channel_effects: null,
      timestamp: stamp(i),
    },
    user_chunk: {
      role: "user",
      content: s.user ?? "",
      contains_speech: s.user !== null,
      turn_taking_action: {
        action: s.backchannel ? "backchannel" : s.user !== null ? "keep_talking" : "wait",
      },
      speech_effects: null,
      source_effects: null,
      channel_effects: null,
      timestamp: stamp(i),
    },
    agent_tool_calls: s.toolCall ? [{ ...s.toolCall, requestor: "assistant" }] : [],
    user_tool_calls: [],
    agent_tool_results: s.toolResult
      ? [
          {
            id: s.toolResult.id,
            role: "tool",
            content: s.toolResult.content,
            requestor: "assistant",
            error: false,
          },
        ]
      : [],
    user_tool_results: [],
    user_transcript: null,
    tick_duration_seconds: TICK,
    wall_clock_duration_seconds: 0.001,
  }));
  const wire = {
    user: script.map((s, i) =>
      s.user !== null ? toneTick(USER_TONE.frequency, USER_TONE.amplitude, i) : silence(),
    ),
    agent: script.map((s, i) =>
      s.agent !== null ? toneTick(AGENT_TONE.frequency, AGENT_TONE.amplitude, i) : silence(),
    ),
  };
  return { ticks, wire };
}

/** `n` silent ticks. */
export const quiet = (n: number): ScriptedTick[] =>
  Array.from({ length: n }, () => ({ user: null, agent: null }));

/**
 * Call 1: the customer speaks ticks 0–4, the agent answers from tick 7 (0.4 s after), looking the
 * reservation up at tick 8 (result at tick 9).
 * Call 2: the customer speaks ticks 0–2, the agent answers from tick 6 (0.6 s after) until tick 15 and
 * talks through the customer's backchannel at tick 9.
 */
export function twoCalls() {
  const first: ScriptedTick[] = [
    { user: "Hi, ", agent: null },
    { user: "I want ", agent: null },
    { user: "to cancel ", agent: null },
    { user: "reservation ", agent: null },
    { user: "EHGLP3.", agent: null },
    ...quiet(2),
    { user: null, agent: "Sure, " },
    {
      user: null,
      agent: "let me ",
      toolCall: { id: "call_1", name: "get_reservation_details", arguments: { reservation_id: "EHGLP3" } },
    },
    { user: null, agent: "check.", toolResult: { id: "call_1", content: '{"reservation_id": "EHGLP3"}' } },
    ...quiet(2),
  ];
  const second: ScriptedTick[] = [
    { user: "Hello, ", agent: null },
    { user: "my order ", agent: null },
    { user: "W123.", agent: null },
    ...quiet(3),
    { user: null, agent: "I see " },
    { user: null, agent: "your order " },
    { user: null, agent: "W123 " },
    { user: "uh-huh", agent: "was shipped ", backchannel: true },
    { user: null, agent: "yesterday " },
    { user: null, agent: "and " },
    { user: null, agent: "should " },
    { user: null, agent: "arrive " },
    { user: null, agent: "on " },
    { user: null, agent: "Monday." },
    ...quiet(2),
  ];
  return [scriptedCall(first), scriptedCall(second)];
}

export function syntheticInfo(domain = "airline", speechComplexity = "regular"): VoiceRunInfo {
  return voiceRunInfo({
    domain,
    policy: "# Airline policy (synthetic)",
    gitCommit: "passk-test",
    numTrials: 1,
    seed: 300,
    speechComplexity,
    agent: { implementation: "openai-realtime", llm: "openai:gpt-realtime" },
    user: {
      implementation: "voice_streaming_user_simulator",
      llm: "gpt-4.1-2025-04-14",
      llmArgs: { temperature: 0.0 },
      guidelines: "# Voice Call Simulation Guidelines",
      voiceSettings: {
        synthesis_config: { provider: "elevenlabs", provider_config: { model_id: "eleven_v3" } },
        transcription_config: null,
        synthesis_enabled: true,
        transcription_enabled: false,
      },
      personaConfig: { verbosity: "minimal", interrupt_tendency: "interrupts" },
    },
    audioNative: { provider: "openai", model: "gpt-realtime", tick_duration_seconds: TICK },
  });
}

/** A finished simulation record of a scripted call. */
export function simulationRecord(
  id: string,
  taskId: string,
  ticks: readonly unknown[],
  reward: number,
  trial = 0,
): Record<string, unknown> {
  return {
    id,
    task_id: taskId,
    timestamp: "2026-11-29T06:00:10.000000",
    start_time: "2026-11-29T06:00:00.000000",
    end_time: "2026-11-29T06:00:10.000000",
    duration: Math.round(ticks.length * TICK * 1000) / 1000,
    termination_reason: "user_stop",
    agent_cost: 0.01,
    user_cost: 0.002,
    reward_info: { reward, reward_basis: ["DB", "COMMUNICATE"], info: null },
    messages: null,
    ticks,
    trial,
    seed: 1000 + trial,
    mode: "full_duplex",
  };
}
