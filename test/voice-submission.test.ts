import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { voiceRunInteractionMetrics } from "../src/runner/voice-interaction-metrics.js";
import { validateAnySubmission } from "../src/runner/voice-submission.js";
import { simulationAudioDir, writeSimulationAudio } from "../src/voice/audio-artifacts.js";
import { VoiceResultsWriter } from "../src/voice/results-dir.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { simulationRecord, syntheticInfo, TICK, twoCalls } from "./helpers/synthetic-voice-run.js";

// Voice runs of the two scripted calls (airline and retail at `regular`, one at `control`), submitted to
// the voice track with `passk submit prepare --voice`, then validated, then tampered with.

const root = mkdtempSync(path.join(tmpdir(), "passk-voice-submit-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writeRun(folder: string, domain: string, complexity = "regular") {
  const writer = VoiceResultsWriter.create(folder, { info: syntheticInfo(domain, complexity), tasks: [] });
  twoCalls().forEach((call, i) => {
    writer.append(simulationRecord(`sim-${i}`, String(i), call.ticks, i === 0 ? 1 : 0));
    writeSimulationAudio(simulationAudioDir(folder, String(i), `sim-${i}`), {
      ticks: call.ticks,
      tickSeconds: TICK,
      wire: call.wire,
    });
  });
}

const airline = path.join(root, "airline-voice");
const retail = path.join(root, "retail-voice");
const control = path.join(root, "airline-control");
const output = path.join(root, "submission");
let prepare: Awaited<ReturnType<typeof runCliInProcess>>;

beforeAll(async () => {
  writeRun(airline, "airline");
  writeRun(retail, "retail");
  writeRun(control, "airline", "control");
  prepare = await runCliInProcess([
    "submit",
    "prepare",
    "--voice",
    airline,
    retail,
    control,
    "-o",
    output,
    "--model-name",
    "gpt-realtime",
    "--model-organization",
    "OpenAI",
    "--contact-email",
    "voice@example.com",
    "--submission-date",
    "2026-11-29",
  ]);
}, 120_000);

const submissionOf = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, "submission.json"), "utf8")) as Record<string, unknown>;

/** A copy of the prepared submission with `edit` applied, for tampering. */
function tampered(name: string, edit: (dir: string) => void): string {
  const dir = path.join(root, name);
  cpSync(output, dir, { recursive: true });
  edit(dir);
  return dir;
}

describe("passk submit prepare --voice", () => {
  it("writes submission.json with voice_config and interaction_metrics as the reference does, and it validates", () => {
    expect(prepare.code, prepare.stderr + prepare.stdout).toBe(0);
    expect(prepare.stdout).toContain(`left out ${control}: speech complexity control`);
    expect(prepare.stdout).toMatch(/\nvalid \(\d+ warnings?\)/);
    const text = readFileSync(path.join(output, "submission.json"), "utf8");
    const submission = submissionOf(output);
    expect(Object.keys(submission)).toEqual([
      "model_name",
      "model_organization",
      "submitting_organization",
      "submission_date",
      "submission_type",
      "modality",
      "contact_info",
      "results",
      "is_new",
      "trajectories_available",
      "trajectory_files",
      "methodology",
      "voice_config",
      "interaction_metrics",
    ]);
    expect(submission.modality).toBe("voice");
    expect(submission.trajectory_files).toEqual({ airline: "airline-voice", retail: "retail-voice" });
    expect(submission.voice_config).toEqual({
      provider: "openai",
      model: "gpt-realtime",
      tick_duration_seconds: 0.2,
      max_steps_seconds: 1200,
      user_tts_provider: "elevenlabs/eleven_v3",
    });
    // Floats as pydantic dumps them.
    expect(text).toContain('"max_steps_seconds": 1200.0');
    // One of the two tasks succeeded.
    // pass^k as pydantic writes them: floats, and the ones one trial cannot give left out.
    expect((submission.results as Record<string, unknown>).airline).toEqual({ pass_1: 50, cost: 0.01 });
    expect(text).toContain('"pass_1": 50.0,');
    expect((submission.methodology as { user_simulator: string }).user_simulator).toBe("v1.0");

    const im = submission.interaction_metrics as {
      version: string;
      config: Record<string, number>;
      domains: Record<string, Record<string, unknown>>;
      overall: Record<string, unknown>;
    };
    const computed = voiceRunInteractionMetrics(airline);
    expect(im.version).toBe(computed.version);
    expect(im.config).toEqual(computed.config);
    expect(Object.keys(im.domains)).toEqual(["airline", "retail"]);
    // The panel: every metric the events back (nulls left out), then the counts.
    const m = computed.interaction_metrics;
    const expectedPanel = Object.fromEntries(
      Object.entries(m).filter(([key, value]) => key !== "counts" && value !== null),
    );
    expect(im.domains.airline).toEqual({ ...expectedPanel, counts: m.counts });
    expect(im.domains.airline!.yield_latency_mean).toBeUndefined();
    expect(im.domains.airline!.response_latency_mean).toBeCloseTo(0.5, 9);
    expect(im.overall.response_latency_mean).toBeCloseTo(0.5, 9);
    expect((im.overall.counts as { response_total: number }).response_total).toBe(4);
    expect(text).toContain('"response_rate": 1.0');

    // The run folders, with the audio of each task's simulation.
    const copied = path.join(output, "trajectories", "airline-voice");
    for (const file of [
      "results.json",
      "simulations/sim-0.json",
      "simulations/sim-1.json",
      "artifacts/task_0/sim_sim-0/audio/both.wav",
      "artifacts/task_1/sim_sim-1/audio/user_labels.txt",
    ])
      expect(existsSync(path.join(copied, file)), file).toBe(true);
    expect(existsSync(path.join(output, "trajectories", "airline-control"))).toBe(false);
  });

  it("`passk submit validate` accepts it", async () => {
    const out = await runCliInProcess(["submit", "validate", output]);
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(out.stdout).toContain(`${output}: valid (0 errors`);
  }, 60_000);

  it("a tampered interaction metric fails validation with a sentence naming it", async () => {
    const dir = tampered("tampered-metric", (d) => {
      const submission = submissionOf(d);
      const im = submission.interaction_metrics as { domains: Record<string, Record<string, unknown>> };
      im.domains.airline!.response_latency_mean = 0.1;
      writeFileSync(path.join(d, "submission.json"), JSON.stringify(submission, null, 2));
    });
    const out = await runCliInProcess(["submit", "validate", dir]);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      "error: submission.json interaction_metrics.domains.airline.response_latency_mean is 0.1 but trajectories/airline-voice gives 0.5",
    );
    expect(out.stdout).toMatch(/not valid \(\d+ errors?/);
  }, 60_000);

  it("ticks changed after the metrics were computed, a changed voice_config and pass^1 are each caught", () => {
    const dir = tampered("tampered-ticks", (d) => {
      const file = path.join(d, "trajectories", "retail-voice", "simulations", "sim-0.json");
      const simulation = JSON.parse(readFileSync(file, "utf8")) as {
        ticks: Array<{ agent_chunk: { contains_speech: boolean } }>;
      };
      // The agent now answers one tick sooner (tick 6): 0.2 s instead of 0.4 s.
      simulation.ticks[6]!.agent_chunk.contains_speech = true;
      writeFileSync(file, JSON.stringify(simulation));
      const submission = submissionOf(d);
      (submission.voice_config as { model: string }).model = "gpt-realtime-2";
      (submission.results as Record<string, { pass_1: number }>).airline.pass_1 = 100;
      writeFileSync(path.join(d, "submission.json"), JSON.stringify(submission, null, 2));
    });
    const problems = validateAnySubmission(dir);
    expect(problems.errors).toContain(
      'submission.json voice_config.model is "gpt-realtime-2" but trajectories/airline-voice ran with "gpt-realtime" (info.audio_native_config / user_info.voice_settings); fix it (or prepare the submission again).',
    );
    expect(problems.errors).toContain(
      "submission.json results.airline.pass_1 is 100 but trajectories/airline-voice gives 50.00; fix the value (or prepare the submission again).",
    );
    // Metrics are recomputed once the rest is right.
    const metricsOnly = tampered("tampered-ticks-only", (d) => {
      const file = path.join(d, "trajectories", "retail-voice", "simulations", "sim-0.json");
      const simulation = JSON.parse(readFileSync(file, "utf8")) as {
        ticks: Array<{ agent_chunk: { contains_speech: boolean } }>;
      };
      simulation.ticks[6]!.agent_chunk.contains_speech = true;
      writeFileSync(file, JSON.stringify(simulation));
    });
    const errors = validateAnySubmission(metricsOnly).errors;
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^submission\.json interaction_metrics\.domains\.retail\.response_latency_mean is 0\.5\d* but trajectories\/retail-voice gives 0\.4\d*; the leaderboard recomputes it from the ticks/,
    );
    expect(errors[1]).toMatch(
      /^submission\.json interaction_metrics\.overall\.response_latency_mean is 0\.5\d* but trajectories\/ \(every run\) gives 0\.45/,
    );
  });

  it("a simulation file removed from a run folder fails validation (its index lists it)", () => {
    const dir = tampered("tampered-missing", (d) =>
      rmSync(path.join(d, "trajectories", "airline-voice", "simulations", "sim-1.json")),
    );
    const errors = validateAnySubmission(dir).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^trajectories\/airline-voice is not a valid voice run directory \(.*sim-1\.json is missing/,
    );
  });

  it("refuses runs of no regular speech complexity, and a mix of voice and text runs", async () => {
    const out = await runCliInProcess([
      "submit",
      "prepare",
      "--voice",
      control,
      "-o",
      path.join(root, "none"),
      "--model-name",
      "m",
      "--model-organization",
      "o",
      "--contact-email",
      "a@example.com",
    ]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('none of the runs has speech complexity "regular"');
    const mixed = await runCliInProcess([
      "submit",
      "prepare",
      airline,
      path.join(root, "text-results.json"),
      "-o",
      path.join(root, "mixed"),
      "--model-name",
      "m",
      "--model-organization",
      "o",
      "--contact-email",
      "a@example.com",
    ]);
    expect(mixed.code).not.toBe(0);
    expect(mixed.stderr).toContain(`${airline} is a voice run but other runs are text runs`);
  }, 120_000);
});
