import type { InteractionMetricsConfig } from "../metrics/interaction-metrics.js";
import {
  interactionEventMarks,
  speechSegments,
  type InteractionEventMark,
  type ViewTick,
} from "./voice-run-views.js";
import type { Tick } from "./ticks.js";

// The interaction-metric events of a call while it runs (the playground's live timeline), from the same
// code that marks a recorded call (`interactionEventMarks` over src/metrics' `simulationInteractionEvents`).
//
// The metrics read a whole call: on the ticks so far, an event can still change — a caller's stretch
// still open may yet turn out to hold a vocal tic, a yield window may not have passed, a later turn may
// still end over the agent and stop counting — so the events of an arbitrary prefix are not the call's.
// They are computed only at a *settled* prefix instead, one that ends with both sides silent, after
// the caller was silent (with no speech inserted) for longer than the longest response window: every
// speech segment in it is then closed, every window that could reach past its end finds its answer
// inside it (an agent's silence ends a yield window; no caller stretch ends within a response window of
// the cut), so each event of the prefix is an event of the whole call, with the same category, time,
// outcome and latency (test/live-interaction-events.test.ts checks this on random calls). Events not
// yet determined at a settled prefix (the response to the caller's last turn) appear at a later one, and
// the call's end gives every event.

const speaking = (chunk: ViewTick["user_chunk"]) => chunk !== null && chunk.contains_speech;
const inserted = (chunk: ViewTick["user_chunk"]) =>
  chunk !== null &&
  (chunk.speech_effects?.speech_insert != null || chunk.source_effects?.speech_insert != null);

/** Ticks of caller silence (no speech inserted either) a settled prefix ends with. */
export function settledQuietTicks(config: InteractionMetricsConfig): number {
  const longest = Math.max(config.vocal_tic_response_window_sec, config.non_directed_response_window_sec);
  return Math.trunc(longest / config.tick_duration_sec) + 1;
}

/** Whether the call's events on `ticks` (a prefix of the call) are events of the whole call. */
export function isSettledPrefix(ticks: readonly ViewTick[], config: InteractionMetricsConfig): boolean {
  const last = ticks[ticks.length - 1];
  if (!last || speaking(last.agent_chunk)) return false;
  const quiet = settledQuietTicks(config);
  if (ticks.length < quiet) return false;
  for (let i = ticks.length - quiet; i < ticks.length; i++) {
    const chunk = ticks[i]!.user_chunk;
    if (speaking(chunk) || inserted(chunk)) return false;
  }
  return true;
}

/** A call's tick as the views read it (the events read its speech and effects, not its tool calls). */
export function speechTick(tick: Tick): ViewTick {
  return {
    ...tick,
    agent_tool_calls: null,
    agent_tool_results: null,
    user_tool_calls: null,
    user_tool_results: null,
  };
}

const keyOf = (e: InteractionEventMark) => `${e.tick}|${e.category}|${e.error}|${e.latencySec}`;

/** A running call's events: fed each tick, it gives the events each tick settles (once each). */
export class LiveInteractionEvents {
  private readonly ticks: ViewTick[] = [];
  /** How many events of each kind were given (two alike at one tick are two). */
  private readonly given = new Map<string, number>();
  /** Whether a tick since the last settled prefix had speech or an insert (else nothing new can be settled). */
  private moved = false;

  constructor(private readonly config: InteractionMetricsConfig) {}

  /** Adds the call's next tick; returns the events it settled, in time order (most ticks: none). */
  add(callTick: Tick): InteractionEventMark[] {
    const tick = speechTick(callTick);
    this.ticks.push(tick);
    if (speaking(tick.user_chunk) || speaking(tick.agent_chunk) || inserted(tick.user_chunk))
      this.moved = true;
    if (!this.moved || !isSettledPrefix(this.ticks, this.config)) return [];
    this.moved = false;
    const fresh: InteractionEventMark[] = [];
    const seen = new Map<string, number>();
    for (const mark of this.marks()) {
      const key = keyOf(mark);
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      if (n > (this.given.get(key) ?? 0)) {
        this.given.set(key, n);
        fresh.push(mark);
      }
    }
    return fresh;
  }

  /** Every event of the call (at its end: the marks a recorded call shows). */
  marks(): InteractionEventMark[] {
    if (this.ticks.length === 0) return [];
    const segments = speechSegments(this.ticks, this.config.tick_duration_sec);
    return interactionEventMarks(this.ticks, this.config, segments);
  }
}
