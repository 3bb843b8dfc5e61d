import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TickSchema, readVoiceResultsDir } from "../src/formats/tau2/voice-results.js";
import {
  computeInteractionMetrics,
  NoVoiceTicksError,
  simulationInteractionEvents,
  type InteractionChunk,
  type InteractionTick,
} from "../src/metrics/interaction-metrics.js";
import { voiceRunInteractionMetrics } from "../src/runner/voice-interaction-metrics.js";
import { tau2VoiceGoldenDir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// The reference's golden set, where `passk data pull` put it: three full-duplex simulations and the
// metrics the reference's own code gives on them.
const golden = tau2VoiceGoldenDir();
const experiment = path.join(golden, "experiment");
const expected = JSON.parse(readFileSync(path.join(golden, "expected_metrics.json"), "utf8")) as Record<
  string,
  unknown
>;

describe("interaction metrics on the reference's golden experiment", () => {
  it("equal expected_metrics.json: every value, bit for bit, and every count", () => {
    const result = voiceRunInteractionMetrics(experiment);
    expect(result.domain).toBe("retail");
    expect(result.config.tick_duration_sec).toBe(0.2);
    expect(result.interaction_metrics).toStrictEqual(expected);
  });

  it("`passk report --json DIR` prints them as the reference writes them; the table shows them", async () => {
    const json = await runCliInProcess(["report", "--json", experiment]);
    expect(json.code, json.stderr).toBe(0);
    const printed = JSON.parse(json.stdout) as { interaction_metrics: unknown; domain: string };
    expect(printed.interaction_metrics).toStrictEqual(expected);
    // Floats keep their point, as in the reference's file.
    expect(json.stdout).toContain('"yield_rate": 1.0,');
    // Spawned: the `report` family's end-to-end run of the binary.
    const table = await runCli(["report", experiment]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /retail\s+1\.46s\s+0\.67s\s+97\.1%\s+100\.0%\s+22\.9%\s+33\.3%\s+14\.3%\s+16\.7%/,
    );
    expect(table.stdout).toContain("35 caller turns, 23 interruptions, 3 backchannels");
  });

  it("refuses a run directory whose simulation files disagree with its index", () => {
    const copy = mkdtempSync(path.join(tmpdir(), "passk-voice-"));
    try {
      cpSync(experiment, copy, { recursive: true });
      const meta = JSON.parse(readFileSync(path.join(copy, "results.json"), "utf8")) as Record<
        string,
        unknown
      >;
      meta.simulation_index = [{ id: "49b22f0c-4a56-41c5-922f-bc2a56e53a23" }, { id: "not-there" }];
      writeFileSync(path.join(copy, "results.json"), JSON.stringify(meta));
      expect(() => readVoiceResultsDir(copy)).toThrow(/not-there\.json is missing/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

// Hand-built conversations: `U` the caller speaks, `A` the agent, `B` both, `.` neither.
function ticks(
  pattern: string,
  userChunk: (i: number) => Partial<InteractionChunk> = () => ({}),
): InteractionTick[] {
  return [...pattern].map((c, i) => ({
    agent_chunk: { contains_speech: c === "A" || c === "B" },
    user_chunk: { contains_speech: c === "U" || c === "B", ...userChunk(i) },
  }));
}
const tic = {
  speech_effects: { dynamic_muffling_enabled: false, speech_insert: { text: "um", type: "vocal_tic" } },
};

describe("interaction events on hand-built ticks", () => {
  it("a response: latency from the end of the caller's turn to the agent's first tick", () => {
    const events = simulationInteractionEvents(ticks("UUU..AAA.UU.A"));
    const responses = events.filter((e) => e.category === "response");
    expect(responses.map((e) => e.isError)).toEqual([false, false]);
    expect(responses[0]!.latencySec).toBeCloseTo(0.4, 12);
    expect(responses[1]!.latencySec).toBeCloseTo(0.2, 12);
  });

  it("no response when the caller has to speak again first", () => {
    const metrics = computeInteractionMetrics([{ ticks: ticks("UU...UU..AA") }]);
    expect(metrics.response_rate).toBe(0.5);
    expect(metrics.counts.response_total).toBe(2);
  });

  it("an interruption the agent yields to within 2 s, and one it talks through", () => {
    const yielded = computeInteractionMetrics([{ ticks: ticks("AAABBBUUU...") }]);
    expect(yielded.yield_rate).toBe(1);
    expect(yielded.yield_latency_mean).toBeCloseTo(0.6, 12);
    const talkedThrough = computeInteractionMetrics([{ ticks: ticks(`AA${"B".repeat(11)}A...`) }]);
    expect(talkedThrough.yield_rate).toBe(0);
    expect(talkedThrough.yield_latency_mean).toBeNull();
  });

  it("a backchannel the agent stops for within 1 s is an error; one it talks through is right", () => {
    const backchannel = (i: number) => (i === 2 ? { turn_taking_action: { action: "backchannel" } } : {});
    const stopped = computeInteractionMetrics([{ ticks: ticks("AABB..UU..A", backchannel) }]);
    expect(stopped.selectivity_backchannel).toBe(0);
    const through = computeInteractionMetrics([{ ticks: ticks("AABBAAAAAA..U.A", backchannel) }]);
    expect(through.selectivity_backchannel).toBe(1);
    expect(through.counts.backchannel_total).toBe(1);
  });

  it("a vocal tic in silence the agent answers within 2 s is an error, one it lets pass is right", () => {
    const answered = computeInteractionMetrics([
      { ticks: ticks("AA..U..AA..", (i) => (i === 4 ? tic : {})) },
    ]);
    expect(answered.selectivity_vocal_tic).toBe(0);
    const ignored = computeInteractionMetrics([
      { ticks: ticks(`AA..U${".".repeat(12)}AA`, (i) => (i === 4 ? tic : {})) },
    ]);
    expect(ignored.selectivity_vocal_tic).toBe(1);
    // A tic between turns (the caller silent, the effect on): scored too.
    const outOfTurn = computeInteractionMetrics([
      { ticks: ticks(`UU..${".".repeat(12)}AA`, (i) => (i === 3 ? tic : {})) },
    ]);
    expect(outOfTurn.counts.vocal_tic_total).toBe(1);
    expect(outOfTurn.selectivity_vocal_tic).toBe(1);
  });

  it("the agent starting over the caller counts as an agent interruption per caller turn", () => {
    const metrics = computeInteractionMetrics([{ ticks: ticks("UUUBBAA..UU..AA") }]);
    expect(metrics.counts.agent_interrupts_count).toBe(1);
    expect(metrics.agent_interruption_rate).toBe(1 / metrics.counts.response_total);
  });

  it("the one-tick caller segment `###STOP###` leaves at the end is not an interruption", () => {
    const metrics = computeInteractionMetrics([{ ticks: ticks("UU..AAAAB") }]);
    expect(metrics.counts.yield_total).toBe(0);
    expect(computeInteractionMetrics([{ ticks: ticks("UU..AAABB") }]).counts.yield_total).toBe(1);
  });

  it("text runs (no ticks) have no interaction metrics", () => {
    expect(() => computeInteractionMetrics([{ ticks: null }, { ticks: [] }])).toThrow(NoVoiceTicksError);
  });

  it("a chunk that does not say whether it holds speech holds speech, as in the reference's messages", () => {
    const tick = TickSchema.parse({
      tick_id: 0,
      timestamp: "t",
      agent_chunk: { role: "assistant" },
      user_chunk: null,
    });
    expect(tick.agent_chunk?.contains_speech).toBe(true);
    expect(tick.user_chunk).toBeNull();
  });
});
