import type { HeardSpeech } from "./call.js";
import type { Tick } from "./ticks.js";

// A tick's `user_transcript` (the reference's field of the same name): what the agent made of the
// caller's speech, as its provider transcribed it, laid over the caller's ticks. It is filled once the
// call is over. The caller's speech comes in segments (ticks in a row whose chunk has text); each
// transcription belongs to the first segment that has not ended before it started (else the last one),
// and within its segment its characters are spread over the ticks in proportion to how much of the
// transcribed stretch of audio each tick covers. Transcriptions closer than half a second are read as
// one. Every character lands on exactly one tick; ticks of a segment that get none hold null, as do all
// ticks outside the caller's segments. Set beside the words the caller meant (`user_chunk.content`), it
// shows where the agent misheard.

/** Transcriptions this close (ms) or overlapping are one stretch of heard speech. */
const JOIN_GAP_MS = 500;

/** Heard speech merged into stretches, in time order. */
function stretches(heard: readonly HeardSpeech[]): HeardSpeech[] {
  const sorted = [...heard].sort((a, b) => a.startMs - b.startMs);
  const out: HeardSpeech[] = [];
  for (const item of sorted) {
    const last = out.at(-1);
    if (last && item.startMs <= last.endMs + JOIN_GAP_MS) {
      last.text = `${last.text} ${item.text}`;
      last.endMs = Math.max(last.endMs, item.endMs);
    } else out.push({ ...item });
  }
  return out;
}

/** The caller's segments: runs of consecutive ticks whose chunk carries text, as tick indexes. */
function callerSegments(ticks: readonly Tick[]): number[][] {
  const segments: number[][] = [];
  let current: number[] = [];
  ticks.forEach((tick, i) => {
    if (tick.user_chunk?.content) current.push(i);
    else if (current.length > 0) {
      segments.push(current);
      current = [];
    }
  });
  if (current.length > 0) segments.push(current);
  return segments;
}

/**
 * Sets each tick's `user_transcript` from the agent's transcriptions of the caller (`heard`, timed in
 * the caller's audio from its first tick); `tickSeconds` is the call's tick. Ticks are changed in place.
 */
export function fillUserTranscripts(
  ticks: readonly Tick[],
  heard: readonly HeardSpeech[],
  tickSeconds: number,
): void {
  const merged = stretches(heard.filter((h) => h.text !== ""));
  const segments = callerSegments(ticks);
  if (merged.length === 0 || segments.length === 0) return;
  const tickMs = tickSeconds * 1000;
  const startOf = (i: number) => ticks[i]!.tick_id * tickMs;

  // Each stretch to the first segment still going when it started; later ones to the last segment.
  const bySegment = segments.map(() => [] as HeardSpeech[]);
  for (const stretch of merged) {
    const k = segments.findIndex((seg) => stretch.startMs < startOf(seg.at(-1)!) + tickMs);
    bySegment[k < 0 ? segments.length - 1 : k]!.push(stretch);
  }

  segments.forEach((segment, k) => {
    // Per tick, one piece of text for each stretch that reaches it (pieces of two stretches are two words).
    const pieces = new Map<number, string[]>();
    const segmentStart = startOf(segment[0]!);
    for (const { text, startMs, endMs } of bySegment[k]!) {
      const share = new Map<number, string>();
      const add = (i: number, part: string) => share.set(i, (share.get(i) ?? "") + part);
      if (endMs <= segmentStart) {
        // Heard before the segment began: all of it on the segment's first tick.
        add(segment[0]!, text);
      } else {
        // Each tick shows the share of the text its end reaches in the stretch (all of it in the tick
        // holding a stretch timed as an instant); what no tick covered goes on the segment's last tick.
        let shown = 0;
        for (const i of segment) {
          const from = startOf(i);
          const to = from + tickMs;
          if (to <= startMs || from >= endMs) continue;
          const reached =
            endMs > startMs ? Math.min(1, (Math.min(to, endMs) - startMs) / (endMs - startMs)) : 1;
          const upTo = Math.max(shown, Math.ceil(text.length * reached));
          add(i, text.slice(shown, upTo));
          shown = upTo;
        }
        add(segment.at(-1)!, text.slice(shown));
      }
      for (const [i, part] of share) if (part !== "") pieces.set(i, [...(pieces.get(i) ?? []), part]);
    }
    for (const i of segment) ticks[i]!.user_transcript = pieces.get(i)?.join(" ") ?? null;
  });
}
