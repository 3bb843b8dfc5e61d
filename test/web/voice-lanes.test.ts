import { describe, expect, it } from "vitest";
import type { VoiceTickMessage } from "../../src/server/voice-call-protocol.js";
import { effectsOf, timelineOf } from "../../web/src/playground/voice/voice-lanes.js";

// The voice playground's lanes from streamed ticks: runs of speech per side, who started over whom,
// tool calls at their tick, the caller's line effects counted.

function tick(
  i: number,
  user: boolean,
  agent: boolean,
  extra: Partial<VoiceTickMessage> = {},
): VoiceTickMessage {
  return {
    type: "tick",
    tick: i,
    user: "",
    agent: "",
    userText: user ? "u" : "",
    agentText: agent ? "a" : "",
    userSpeech: user,
    agentSpeech: agent,
    agentToolCalls: [],
    userToolCalls: [],
    effects: [],
    worldChanges: [],
    worldCurrent: [],
    events: [],
    ...extra,
  };
}

describe("voice playground lanes", () => {
  it("joins runs of speech, marks an interruption and a backchannel, pins tool calls", () => {
    // customer 0–1.0 s; agent 0.8–3.0 s (over the customer: an interruption); customer "mm" 1.6–2.0 s
    // over the agent (short: a backchannel); customer 2.4–3.6 s over the agent (an interruption).
    const pattern = [
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 1],
      [0, 1],
      [0, 1],
      [0, 1],
      [1, 1],
      [1, 1],
      [0, 1],
      [0, 1],
      [1, 1],
      [1, 1],
      [1, 1],
      [1, 0],
      [1, 0],
      [1, 0],
      [0, 0],
    ] as const;
    const ticks = pattern.map(([u, a], i) =>
      tick(
        i,
        u === 1,
        a === 1,
        i === 6
          ? {
              agentToolCalls: [
                {
                  id: "c1",
                  name: "get_user_details",
                  arguments: {},
                  result: "{}",
                  error: false,
                  records: [],
                },
              ],
            }
          : {},
      ),
    );
    const { segments, toolCalls } = timelineOf(ticks, 0.2);
    const round = (x: number) => Math.round(x * 10) / 10;
    expect(
      segments.map((s) => [
        s.side,
        round(s.start),
        round(s.end),
        s.interruption ?? false,
        s.backchannel ?? false,
      ]),
    ).toEqual([
      ["customer", 0, 1, false, false],
      ["agent", 0.8, 3, true, false],
      ["customer", 1.6, 2, false, true],
      ["customer", 2.4, 3.6, true, false],
    ]);
    expect(segments[0]!.text).toBe("uuuuu");
    expect(toolCalls.map((c) => [c.name, round(c.time), round(c.endTime ?? -1), c.error])).toEqual([
      ["get_user_details", 1.2, 1.4, false],
    ]);
  });

  it("names the caller's line effects with counts and totals", () => {
    const ticks = [
      tick(0, true, false, { effects: ["muffled", "burst: dog_bark.wav"] }),
      tick(1, true, false, { effects: ["muffled", "frames lost: 40 ms"] }),
      tick(2, false, false, { effects: ["burst: dog_bark.wav", "frames lost: 20 ms"] }),
    ];
    expect(effectsOf(ticks)).toEqual([
      "burst: dog_bark.wav ×2",
      "muffled speech: 2 ticks",
      "frames lost on the line: 60 ms",
    ]);
  });
});
