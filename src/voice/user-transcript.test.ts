import { describe, expect, it } from "vitest";
import { emptyChunk, type Tick } from "./ticks.js";
import { fillUserTranscripts } from "./user-transcript.js";

// The caller's ticks at 0.2 s: "said" where the caller's chunk has text, "." where it has none.
function call(pattern: string): Tick[] {
  return [...pattern].map((c, i) => ({
    tick_id: i,
    timestamp: "2026-01-01T00:00:00.000Z",
    agent_chunk: null,
    user_chunk: { ...emptyChunk("user", ""), content: c === "s" ? "x" : "", contains_speech: c === "s" },
    agent_tool_calls: [],
    user_tool_calls: [],
    agent_tool_results: [],
    user_tool_results: [],
    user_transcript: null,
    tick_duration_seconds: 0.2,
    wall_clock_duration_seconds: null,
  }));
}

const transcripts = (ticks: readonly Tick[]) => ticks.map((t) => t.user_transcript);

describe("user_transcript: the agent's transcription of the caller over the caller's ticks", () => {
  it("spreads a transcription over the ticks of its stretch of audio, in proportion, every character once", () => {
    // Ticks 2–6 carry the caller's speech (400–1400 ms); the agent heard 400–1400 ms as 20 characters.
    const ticks = call("..sssss...");
    fillUserTranscripts(ticks, [{ text: "change flight HAT170", startMs: 400, endMs: 1400 }], 0.2);
    expect(transcripts(ticks)).toEqual([
      null,
      null,
      "chan",
      "ge f",
      "ligh",
      "t HA",
      "T170",
      null,
      null,
      null,
    ]);
  });

  it("the share of a tick is the share of the heard stretch up to the tick's end (rounded up)", () => {
    const ticks = call(".sss.");
    // Heard from 300 to 600 ms: tick 1 (200–400) reaches a third of it, tick 2 (400–600) all.
    fillUserTranscripts(ticks, [{ text: "abcdefg", startMs: 300, endMs: 600 }], 0.2);
    expect(transcripts(ticks)).toEqual([null, "abc", "defg", null, null]);
  });

  it("a transcription of speech before the segment goes on its first tick; one after every segment on the last tick", () => {
    const ticks = call("ss....sss...");
    fillUserTranscripts(
      ticks,
      [
        // Ends before the second segment starts (1200 ms), after the first ended: the second segment's.
        { text: "early", startMs: 500, endMs: 900 },
        // After everything the caller said: the last segment's last tick.
        { text: "late", startMs: 2200, endMs: 2300 },
      ],
      0.2,
    );
    expect(transcripts(ticks)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      "early",
      null,
      "late",
      null,
      null,
      null,
    ]);
  });

  it("transcriptions less than half a second apart read as one; what runs past the segment goes on its last tick", () => {
    const ticks = call("sss..");
    fillUserTranscripts(
      ticks,
      [
        { text: "ab", startMs: 0, endMs: 200 },
        { text: "cd", startMs: 600, endMs: 1000 },
      ],
      0.2,
    );
    // One stretch "ab cd" over 0–1000 ms: ticks 0–2 reach 20%, 40%, 60% of it; the rest on tick 2.
    expect(transcripts(ticks)).toEqual(["a", "b", " cd", null, null]);
  });

  it("nothing heard, or no speech from the caller: every tick's user_transcript stays null", () => {
    const silent = call(".....");
    fillUserTranscripts(silent, [{ text: "hello", startMs: 0, endMs: 400 }], 0.2);
    expect(transcripts(silent)).toEqual(Array(5).fill(null));
    const unheard = call(".sss.");
    fillUserTranscripts(unheard, [], 0.2);
    expect(transcripts(unheard)).toEqual(Array(5).fill(null));
  });
});
