import { describe, expect, it } from "vitest";
import { DEFAULT_INTERACTION_METRICS_CONFIG } from "../src/metrics/interaction-metrics.js";
import { isSettledPrefix, LiveInteractionEvents, speechTick } from "../src/voice/live-interaction-events.js";
import { emptyChunk, turnTakingAction, type Tick } from "../src/voice/ticks.js";
import {
  interactionEventMarks,
  speechSegments,
  type InteractionEventMark,
} from "../src/voice/voice-run-views.js";

// The playground's live interaction events: at each settled prefix of a call, the events of the
// prefix are events of the whole call (same tick, category, outcome, latency); at its end the live
// events and the whole call's are the same. Random calls — runs of speech on both sides, caller
// backchannels, vocal tics and side remarks inserted in and between the caller's turns — check it;
// the same calls show that an unsettled prefix's events are not always the call's (why the cut).

const config = DEFAULT_INTERACTION_METRICS_CONFIG;
const TICK = config.tick_duration_sec;

/** Mulberry32: a small seeded generator. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random call of `n` ticks: each side speaks in runs; the caller sometimes backchannels or is overheard. */
function randomCall(seed: number, n: number): Tick[] {
  const next = random(seed);
  let user = false;
  let agent = false;
  const ticks: Tick[] = [];
  for (let i = 0; i < n; i++) {
    const userBefore = user;
    // Runs: a side keeps its state most ticks, so segments last a few ticks to a few seconds.
    if (next() < (user ? 0.15 : 0.08)) user = !user;
    if (next() < (agent ? 0.1 : 0.08)) agent = !agent;
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i * TICK)).toISOString();
    const userChunk = { ...emptyChunk("user", at), contains_speech: user };
    const agentChunk = { ...emptyChunk("assistant", at), contains_speech: agent };
    if (user && !userBefore && agent && next() < 0.3)
      userChunk.turn_taking_action = turnTakingAction("backchannel");
    const insert = next();
    if (insert < 0.03)
      userChunk.speech_effects = {
        dynamic_muffling_enabled: false,
        speech_insert: { text: "um", type: "vocal_tic" },
      };
    else if (insert < 0.05)
      userChunk.source_effects = {
        burst_noise_file: null,
        speech_insert: { text: "hold on, honey", type: "non_directed_phrase" },
      };
    ticks.push({
      tick_id: i,
      timestamp: at,
      agent_chunk: agentChunk,
      user_chunk: userChunk,
      agent_tool_calls: [],
      user_tool_calls: [],
      agent_tool_results: [],
      user_tool_results: [],
      user_transcript: null,
      tick_duration_seconds: TICK,
      wall_clock_duration_seconds: null,
    });
  }
  return ticks;
}

const marksOf = (call: readonly Tick[]) => {
  const ticks = call.map(speechTick);
  return interactionEventMarks(ticks, config, speechSegments(ticks, TICK)).map(strip);
};
const strip = (m: InteractionEventMark) => ({
  tick: m.tick,
  category: m.category,
  error: m.error,
  latencySec: m.latencySec,
  label: m.label,
});

/** Whether every mark of `part` is a mark of `whole` (as a multiset). */
function within(part: readonly ReturnType<typeof strip>[], whole: readonly ReturnType<typeof strip>[]) {
  const left = whole.map((m) => JSON.stringify(m));
  for (const mark of part) {
    const i = left.indexOf(JSON.stringify(mark));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

describe("live interaction events", () => {
  it("at every settled prefix of 80 random calls, the prefix's events are the whole call's", () => {
    let settled = 0;
    // Unsettled cuts whose events are not all the whole call's (why the live events wait for a settled one).
    let unsettledDiffer = 0;
    for (let seed = 1; seed <= 80; seed++) {
      const call = randomCall(seed, 250);
      const whole = marksOf(call);
      for (let c = 1; c <= call.length; c++) {
        const prefix = call.slice(0, c);
        if (isSettledPrefix(prefix.map(speechTick), config)) {
          settled++;
          expect(within(marksOf(prefix), whole), `seed ${seed}, cut ${c}`).toBe(true);
        } else if (c % 10 === 0 && !within(marksOf(prefix), whole)) unsettledDiffer++;
      }
    }
    // The property is exercised, and it is not trivially true of any prefix.
    expect(settled).toBeGreaterThan(300);
    expect(unsettledDiffer).toBeGreaterThan(0);
  }, 120_000);

  it("gives each event once, only events of the call, and all of them by the call's end", () => {
    let live = 0;
    for (let seed = 1000; seed < 1100; seed++) {
      const call = randomCall(seed, 500);
      const events = new LiveInteractionEvents(config);
      const given = call.flatMap((tick) => events.add(tick)).map(strip);
      const whole = marksOf(call);
      expect(within(given, whole), `seed ${seed}`).toBe(true);
      expect(events.marks().map(strip)).toEqual(whole);
      live += given.length;
    }
    // Most events are given while the call runs, not only at its end.
    expect(live).toBeGreaterThan(100);
  }, 120_000);

  it("settles nothing while the caller speaks or the agent talks", () => {
    const call = randomCall(7, 200);
    for (let c = 1; c <= call.length; c++) {
      const last = call[c - 1]!;
      if (last.agent_chunk!.contains_speech || last.user_chunk!.contains_speech)
        expect(isSettledPrefix(call.slice(0, c).map(speechTick), config)).toBe(false);
    }
  });
});
