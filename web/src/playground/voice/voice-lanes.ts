import type { VoiceTickMessage } from "../../../../src/server/voice-call-protocol.js";

// A call's ticks as the timeline draws them: each side's runs of speech (its text joined), who started
// over whom (an interruption, or a caller's short "mm-hm" over the agent: a backchannel), the agent's
// tool calls at their tick, and the effects the caller's audio went through, counted.

/** A stretch of one side's speech (the timeline's `TimelineSegment`; kept here so Node tests need no JSX). */
export interface LaneSegment {
  side: "customer" | "agent";
  start: number;
  end: number;
  text: string;
  interruption?: boolean;
  backchannel?: boolean;
}

/** An agent's tool call at its tick (the timeline's `TimelineToolCall`). */
export interface LaneToolCall {
  id: string;
  name: string;
  time: number;
  endTime?: number;
  error?: boolean;
}

/** A caller's stretch over the agent shorter than this is a backchannel, not an interruption. */
const BACKCHANNEL_SECONDS = 1.0;

export function timelineOf(
  ticks: readonly VoiceTickMessage[],
  tickSeconds: number,
): { segments: LaneSegment[]; toolCalls: LaneToolCall[] } {
  const segments: LaneSegment[] = [];
  const open: Partial<Record<"customer" | "agent", LaneSegment>> = {};
  const toolCalls: LaneToolCall[] = [];
  ticks.forEach((tick, i) => {
    const time = i * tickSeconds;
    const sides = [
      ["customer", tick.userSpeech || tick.userText.trim() !== "", tick.userText],
      ["agent", tick.agentSpeech || tick.agentText.trim() !== "", tick.agentText],
    ] as const;
    for (const [side, speaking, text] of sides) {
      const current = open[side];
      if (speaking && current) {
        current.end = time + tickSeconds;
        current.text += text;
      } else if (speaking) {
        const other = open[side === "customer" ? "agent" : "customer"];
        const segment: LaneSegment = {
          side,
          start: time,
          end: time + tickSeconds,
          text,
          ...(other ? { interruption: true } : {}),
        };
        segments.push(segment);
        open[side] = segment;
      } else if (current) {
        delete open[side];
      }
    }
    for (const call of tick.agentToolCalls)
      toolCalls.push({ id: call.id, name: call.name, time, endTime: time + tickSeconds, error: call.error });
  });
  // A caller's short stretch started over the agent is a backchannel.
  for (const segment of segments)
    if (
      segment.side === "customer" &&
      segment.interruption &&
      segment.end - segment.start < BACKCHANNEL_SECONDS
    ) {
      delete segment.interruption;
      segment.backchannel = true;
    }
  for (const segment of segments) segment.text = segment.text.replace(/\s+/g, " ").trim();
  return { segments, toolCalls };
}

/** The effects the caller's audio went through so far, named with how often (or how much). */
export function effectsOf(ticks: readonly VoiceTickMessage[]): string[] {
  const counts = new Map<string, number>();
  let lostMs = 0;
  let muffledTicks = 0;
  for (const tick of ticks)
    for (const effect of tick.effects) {
      const lost = /^frames lost: (\d+) ms$/.exec(effect);
      if (lost) lostMs += Number(lost[1]);
      else if (effect === "muffled") muffledTicks++;
      else counts.set(effect, (counts.get(effect) ?? 0) + 1);
    }
  return [
    ...[...counts].map(([effect, n]) => (n > 1 ? `${effect} ×${n}` : effect)),
    ...(muffledTicks > 0 ? [`muffled speech: ${muffledTicks} ticks`] : []),
    ...(lostMs > 0 ? [`frames lost on the line: ${lostMs} ms`] : []),
  ];
}
