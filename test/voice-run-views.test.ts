import { describe, expect, it } from "vitest";
import { DEFAULT_INTERACTION_METRICS_CONFIG } from "../src/metrics/interaction-metrics.js";
import {
  interactionEventMarks,
  speechSegments,
  toolCallMarks,
  ViewTickSchema,
  type ViewTick,
} from "../src/voice/voice-run-views.js";
import { quiet, scriptedCall, TICK, type ScriptedTick } from "./helpers/synthetic-voice-run.js";

// A call condensed for the explorer: each side's speech as segments, tool calls at their ticks, the
// interaction-metric events labelled where they happened — on a hand-built call with a late answer, an
// interruption the agent talks through, a backchannel, and the agent starting over the caller.

const say = (
  side: "user" | "agent",
  n: number,
  text: string,
  extra: Partial<ScriptedTick> = {},
): ScriptedTick[] =>
  Array.from({ length: n }, (_, i) => ({
    user: side === "user" ? (i === 0 ? text : "") : null,
    agent: side === "agent" ? (i === 0 ? text : "") : null,
    ...extra,
  }));

function script(): ScriptedTick[] {
  const ticks: ScriptedTick[] = [
    ...say("user", 5, "I need to change my flight."), // 0–4
    ...quiet(12), // 5–16: the agent answers 2.4 s after
    ...say("agent", 19, "Sure, let me look that up for you and see what we can do."), // 17–35
    ...quiet(3), // 36–38
    ...say("user", 3, "Okay thanks."), // 39–41
    ...quiet(2), // 42–43
    ...say("agent", 3, "You're welcome."), // 44–46
    ...quiet(3), // 47–49
    ...say("user", 5, "One more thing."), // 50–54
    ...quiet(2),
  ];
  // The caller breaks in at 22–25 (the agent talks on), says "mm-hm" at 28; a lookup at 18, answered at 19;
  // the agent starts at 53 while the caller still talks.
  for (let t = 22; t <= 25; t++) ticks[t] = { ...ticks[t]!, user: t === 22 ? "Wait, wait." : "" };
  ticks[28] = { ...ticks[28]!, user: "mm-hm", backchannel: true };
  ticks[18] = {
    ...ticks[18]!,
    toolCall: { id: "c1", name: "get_reservation_details", arguments: { reservation_id: "EHGLP3" } },
  };
  ticks[19] = { ...ticks[19]!, toolResult: { id: "c1", content: "{}" } };
  for (let t = 53; t <= 56; t++) ticks[t] = { ...ticks[t]!, agent: t === 53 ? "Of course." : "" };
  return ticks;
}

const ticks = (): ViewTick[] => scriptedCall(script()).ticks.map((t) => ViewTickSchema.parse(t));

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
