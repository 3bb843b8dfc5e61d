import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { makeVoiceRuns, type VoiceRunsMade } from "./helpers/voice-run-dir.js";

// Vocal tics and side remarks end to end: `passk run --voice` against the mock realtime agent, `regular`
// (the task's settings enable them) and `control` (they do not), then `passk report --json` on each run.
// The interaction metrics' vocal-tic and non-directed selectivity are scored on `regular`'s calls only.
//
// The mock's calls are short (about 10 s of the caller's silence each), and a run's calls share their
// trial's seed, so at the reference's 0.7 inserts a minute a small run rarely has one: the data dir here
// is the pulled one with `regular`'s rate raised to RATE a minute, everything else as published.

const TASKS = 2;
const TRIALS = 10;
const RATE = 20;

/** The pulled data dir, but for airline's `regular` voice settings with inserts at `rate` a minute. */
function dataDirWithInsertRate(parent: string, rate: number): string {
  const source = tau2DataDir();
  const target = path.join(parent, "data");
  mkdirSync(path.join(target, "airline"), { recursive: true });
  for (const entry of readdirSync(source))
    if (entry !== "airline") symlinkSync(path.join(source, entry), path.join(target, entry));
  for (const entry of readdirSync(path.join(source, "airline")))
    if (entry !== "tasks_voice.json")
      symlinkSync(path.join(source, "airline", entry), path.join(target, "airline", entry));
  type Levels = Record<string, { speech_effects_config: { speech_insert_events_per_minute: number } }>;
  const file = JSON.parse(readFileSync(path.join(source, "airline", "tasks_voice.json"), "utf8")) as {
    configs: Record<string, Levels | { configs: Levels }>;
  };
  for (const task of Object.values(file.configs)) {
    // Levels under the task id, or under its `configs` (both shapes are published).
    const levels = "regular" in task ? (task as Levels) : (task as { configs: Levels }).configs;
    levels.regular!.speech_effects_config.speech_insert_events_per_minute = rate;
  }
  writeFileSync(path.join(target, "airline", "tasks_voice.json"), JSON.stringify(file));
  return target;
}

interface Report {
  interaction_metrics: {
    selectivity_vocal_tic: number | null;
    selectivity_non_directed: number | null;
    counts: { n_simulations: number; vocal_tic_total: number; non_directed_total: number };
  };
}

interface Simulation {
  ticks: {
    user_chunk: {
      contains_speech: boolean;
      speech_effects: { speech_insert: { type: string } | null } | null;
      source_effects: { speech_insert: { type: string } | null } | null;
    } | null;
  }[];
  effect_timeline: { events: { effect_type: string; params: { type?: string } | null }[] };
}

const work = mkdtempSync(path.join(tmpdir(), "passk-voice-inserts-"));
let runs: VoiceRunsMade;

beforeAll(async () => {
  runs = await makeVoiceRuns(work, {
    tasks: TASKS,
    trials: TRIALS,
    complexities: ["control", "regular"],
    env: { PASSK_DATA_DIR: dataDirWithInsertRate(work, RATE) },
  });
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function report(folder: string): Promise<Report> {
  const out = await runCliInProcess(["report", "--json", folder]);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Report;
}

function simulations(folder: string): Simulation[] {
  const dir = path.join(folder, "simulations");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as Simulation);
}

/** The inserts of a run's calls as their records hold them: inside utterances, off-turn, on the timelines. */
function insertsOf(folder: string) {
  const sims = simulations(folder);
  const ticks = sims.flatMap((s) => s.ticks.map((t) => t.user_chunk));
  return {
    calls: sims.length,
    inTurn: ticks.filter((c) => c?.contains_speech && c.speech_effects?.speech_insert).length,
    offTurn: ticks.flatMap((c) =>
      c?.source_effects?.speech_insert ? [c.source_effects.speech_insert.type] : [],
    ),
    timeline: sims.flatMap((s) =>
      s.effect_timeline.events
        .filter((e) => e.effect_type === "out_of_turn_speech")
        .map((e) => e.params?.type),
    ),
  };
}

describe("vocal tics and side remarks in a voice run", () => {
  it("`regular`: the caller's tics and remarks are on the record and scored by `passk report --json`", async () => {
    const folder = runs.folders.regular!;
    const inserts = insertsOf(folder);
    expect(inserts.calls).toBe(TASKS * TRIALS);
    expect(new Set(inserts.offTurn)).toEqual(new Set(["vocal_tic", "non_directed_phrase"]));
    // Each off-turn insert is on its call's timeline.
    expect(inserts.timeline).toEqual(inserts.offTurn);
    const { interaction_metrics: m } = await report(folder);
    expect(m.counts.n_simulations).toBe(TASKS * TRIALS);
    expect(m.counts.vocal_tic_total).toBeGreaterThan(0);
    expect(m.counts.non_directed_total).toBeGreaterThan(0);
    expect(m.selectivity_vocal_tic).not.toBeNull();
    expect(m.selectivity_non_directed).not.toBeNull();
  }, 60_000);

  it("`control`: none on the record, nothing to score", async () => {
    const folder = runs.folders.control!;
    const inserts = insertsOf(folder);
    expect(inserts.calls).toBe(TASKS * TRIALS);
    expect(inserts).toMatchObject({ inTurn: 0, offTurn: [], timeline: [] });
    const { interaction_metrics: m } = await report(folder);
    expect(m.counts.n_simulations).toBe(TASKS * TRIALS);
    expect(m.counts.vocal_tic_total).toBe(0);
    expect(m.counts.non_directed_total).toBe(0);
    expect(m.selectivity_vocal_tic).toBeNull();
    expect(m.selectivity_non_directed).toBeNull();
  }, 60_000);
});
