import { describe, expect, it } from "vitest";
import { DEFAULT_INTERACTION_METRICS_CONFIG } from "../src/metrics/interaction-metrics.js";
import {
  interactionEventMarks,
  speechSegments,
  toolCallMarks,
  ViewTickSchema,
  type ViewTick,
} from "../src/voice/voice-run-views.js";
import { scriptedCall, TICK } from "./helpers/synthetic-voice-run.js";
import { turnTakingScript } from "./helpers/voice-run-dir.js";

// A call condensed for the explorer: each side's speech as segments, tool calls at their ticks, the
// interaction-metric events labelled where they happened — on a hand-built call with a late answer, an
// interruption the agent talks through, a backchannel, and the agent starting over the caller.

const ticks = (): ViewTick[] => scriptedCall(turnTakingScript()).ticks.map((t) => ViewTickSchema.parse(t));

describe("a voice call for the explorer", () => {
  it("condenses ticks to each side's segments, marking the interruption and the backchannel", () => {
    const segments = speechSegments(ticks(), TICK);
    const brief = segments.map((s) => [
      s.side,
      s.startTick,
      s.endTick,
      s.interruption,
      s.backchannel,
      s.text,
    ]);
    expect(brief).toEqual([
      ["customer", 0, 5, false, false, "I need to change my flight."],
      ["agent", 17, 36, false, false, "Sure, let me look that up for you and see what we can do."],
      ["customer", 22, 26, true, false, "Wait, wait."],
      ["customer", 28, 29, false, true, "mm-hm"],
      ["customer", 39, 42, false, false, "Okay thanks."],
      ["agent", 44, 47, false, false, "You're welcome."],
      ["customer", 50, 55, false, false, "One more thing."],
      ["agent", 53, 57, true, false, "Of course."],
    ]);
    expect(segments[1]!.start).toBeCloseTo(17 * TICK, 9);
    expect(segments[1]!.end).toBeCloseTo(36 * TICK, 9);
  });

  it("pins each tool call at the tick it was made and the tick its result came", () => {
    const [mark, ...rest] = toolCallMarks(ticks(), TICK);
    expect(rest).toEqual([]);
    expect(mark).toMatchObject({ name: "get_reservation_details", tick: 18, resultTick: 19, error: false });
    expect(mark!.time).toBeCloseTo(18 * TICK, 9);
  });

  it("labels the interaction events where they happened: a late answer, a failed yield, a backchannel, talking over", () => {
    const all = ticks();
    const events = interactionEventMarks(all, DEFAULT_INTERACTION_METRICS_CONFIG, speechSegments(all, TICK));
    const brief = events.map((e) => [e.tick, e.label, e.error, e.warning]);
    expect(brief).toEqual([
      [5, "late response (2.4 s)", false, true],
      [22, "failed to yield to the caller's interruption", true, false],
      [28, "talked through a backchannel", false, false],
      [42, "response after 0.4 s", false, false],
      [53, "the agent started talking over the caller", true, false],
    ]);
  });
});
