import type { AgentView } from "../../src/core/agent.js";
import type { ToolCall, ToolMessage } from "../../src/core/message.js";
import {
  silentTick,
  wireBytesPerTick,
  type CallClock,
  type VoiceAgent,
  type VoiceAgentTickOutput,
} from "../../src/voice/call.js";
import { mulawDecode as decodeWire, mulawEncode as encodeWire } from "../../src/voice/audio.js";
import { TestSpeechListener, speakTestSpeech } from "../../src/testing/speech-codec.js";

// A scripted caller for voice agent tests: speech made with the test speech codec, put on the wire as
// μ-law ticks, and a loop that plays a call tick by tick, answering the agent's tool calls.

export const TICK_SECONDS = 0.2;

/** One step of the caller's side: say something, or stay quiet for a while. */
export type CallerStep = { say: string } | { silence: number };

/** The caller's side of a call as wire ticks. */
export function callerTicks(steps: readonly CallerStep[], tickSeconds = TICK_SECONDS): Uint8Array[] {
  const perTick = wireBytesPerTick(tickSeconds);
  const ticks: Uint8Array[] = [];
  for (const step of steps) {
    if ("silence" in step) {
      for (let i = 0; i < Math.round(step.silence / tickSeconds); i++) ticks.push(silentTick(tickSeconds));
      continue;
    }
    const wire = encodeWire(speakTestSpeech(step.say, 8000));
    for (let at = 0; at < wire.length; at += perTick) {
      const tick = silentTick(tickSeconds);
      tick.set(wire.subarray(at, at + perTick));
      ticks.push(tick);
    }
  }
  return ticks;
}

/** A view for a voice agent: a policy and a tool or two. */
export function voiceView(overrides: Partial<AgentView> = {}): AgentView {
  return {
    policy: "Airline policy: check a reservation before cancelling it.",
    tools: [
      {
        name: "get_reservation_details",
        description: "Look up a reservation by its id.",
        parameters: {
          type: "object",
          properties: { reservation_id: { type: "string" } },
          required: ["reservation_id"],
        },
      },
    ],
    solo: false,
    seed: 1,
    history: [],
    ...overrides,
  };
}

export interface PlayedCall {
  outputs: VoiceAgentTickOutput[];
  /** The agent's side of the call, every tick's wire audio end to end. */
  agentWire: Uint8Array;
  /** The tool calls the agent made, with the tick each came in. */
  toolCalls: Array<{ tick: number; call: ToolCall }>;
}

/**
 * Plays a call: each tick the caller's next audio (silence after the script), the agent's previous
 * tool calls answered by `answer`. Stops after `ticks` ticks, or once `until` holds.
 */
export async function playCall(
  agent: VoiceAgent,
  caller: readonly Uint8Array[],
  options: {
    view?: AgentView;
    clock?: CallClock;
    ticks?: number;
    answer?: (call: ToolCall) => { content: string; error?: boolean };
    until?: (played: PlayedCall) => boolean;
    tickSeconds?: number;
  } = {},
): Promise<PlayedCall> {
  const tickSeconds = options.tickSeconds ?? TICK_SECONDS;
  await agent.start({ view: options.view ?? voiceView(), tickSeconds, clock: options.clock ?? "virtual" });
  const played: PlayedCall = { outputs: [], agentWire: new Uint8Array(0), toolCalls: [] };
  const wire: Uint8Array[] = [];
  let results: ToolMessage[] = [];
  try {
    for (let i = 0; i < (options.ticks ?? caller.length); i++) {
      const output = await agent.tick({ audio: caller[i] ?? silentTick(tickSeconds), toolResults: results });
      played.outputs.push(output);
      wire.push(output.audio);
      results = output.toolCalls.map((call) => {
        played.toolCalls.push({ tick: i, call });
        const answer = options.answer?.(call) ?? { content: "ok" };
        return {
          role: "tool",
          id: call.id,
          content: answer.content,
          requestor: "assistant",
          error: answer.error ?? false,
        };
      });
      played.agentWire = Buffer.concat(wire);
      if (options.until?.(played)) break;
    }
  } finally {
    await agent.stop();
  }
  return played;
}

/** What a listener hears in the agent's side of a call (test speech codec at 8 kHz), tick by tick. */
export function hearAgent(played: PlayedCall): string {
  const listener = new TestSpeechListener(8000);
  const heard = played.outputs.flatMap((output) => listener.push(decodeWire(output.audio)));
  return [...heard, ...listener.flush()].join(" ");
}
