import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import alawmulaw from "alawmulaw";
import wavefile from "wavefile";
import { afterEach, describe, expect, it } from "vitest";
import { readVoiceResultsDir } from "../src/formats/tau2/voice-results.js";
import { voiceRunInteractionMetrics } from "../src/runner/voice-interaction-metrics.js";
import {
  AUDIO_TAPS,
  AudioTapRecorder,
  simulationAudioDir,
  simulationTapsDir,
  writeSimulationAudio,
} from "../src/voice/audio-artifacts.js";
import { wireBytesPerTick } from "../src/voice/call.js";
import { repairVoiceResultsDir, VoiceResultsWriter } from "../src/voice/results-dir.js";
import { REPO_ROOT, runCli } from "./helpers/run-cli.js";
import {
  AGENT_TONE,
  simulationRecord,
  syntheticInfo,
  TICK,
  twoCalls,
  USER_TONE,
} from "./helpers/synthetic-voice-run.js";

const folders: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "passk-voice-run-"));
  folders.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A run of the two scripted calls, written one simulation at a time. */
function writeRun(folder: string) {
  const calls = twoCalls();
  const writer = VoiceResultsWriter.create(folder, {
    info: syntheticInfo(),
    tasks: [{ id: "0" }, { id: "1" }],
  });
  calls.forEach((call, i) => {
    // The first with its audio through the writer, the second written on its own.
    if (i === 0) writer.append(simulationRecord(`sim-${i}`, String(i), call.ticks, 1), { wire: call.wire });
    else {
      writer.append(simulationRecord(`sim-${i}`, String(i), call.ticks, 0));
      writeSimulationAudio(simulationAudioDir(folder, String(i), `sim-${i}`), {
        ticks: call.ticks,
        tickSeconds: TICK,
        wire: call.wire,
      });
    }
  });
  return { writer, calls };
}

describe("a voice run in the reference's directory format", () => {
  it("reads back with readVoiceResultsDir and gives the interaction metrics of its ticks", () => {
    const folder = path.join(scratch(), "run");
    writeRun(folder);
    const meta = JSON.parse(readFileSync(path.join(folder, "results.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(Object.keys(meta)).toEqual(["timestamp", "info", "tasks", "simulation_index"]);
    const info = meta.info as Record<string, Record<string, unknown>>;
    expect(Object.keys(info.audio_native_config!)).toContain("tick_duration_seconds");
    expect(info.user_info!.persona_config).toEqual({
      verbosity: "minimal",
      interrupt_tendency: "interrupts",
    });
    expect(info.max_steps).toBe(6000);
    // Floats as the reference writes them.
    expect(readFileSync(path.join(folder, "results.json"), "utf8")).toContain(
      '"yield_threshold_when_interrupted_seconds": 1.0',
    );
    expect(meta.simulation_index).toEqual([
      {
        id: "sim-0",
        task_id: "0",
        trial: 0,
        reward: 1,
        termination_reason: "user_stop",
        agent_cost: 0.01,
        duration: 2.4,
      },
      {
        id: "sim-1",
        task_id: "1",
        trial: 0,
        reward: 0,
        termination_reason: "user_stop",
        agent_cost: 0.01,
        duration: 3.6,
      },
    ]);

    const run = readVoiceResultsDir(folder);
    expect(run.simulations.map((s) => s.id)).toEqual(["sim-0", "sim-1"]);
    expect(run.simulations[0]!.ticks).toHaveLength(12);

    const metrics = voiceRunInteractionMetrics(folder);
    expect(metrics.domain).toBe("airline");
    expect(metrics.speech_complexity).toBe("regular");
    const m = metrics.interaction_metrics;
    // Two caller turns, answered 0.4 s and 0.6 s after they ended; one backchannel the agent talked through.
    expect(m.counts.n_simulations).toBe(2);
    expect(m.counts.response_total).toBe(2);
    expect(m.response_rate).toBe(1);
    expect(m.response_latency_mean).toBeCloseTo(0.5, 9);
    expect(m.counts.backchannel_total).toBe(1);
    expect(m.selectivity_backchannel).toBe(1);
    expect(m.counts.yield_total).toBe(0);
  });

  it("`passk report --json` on the written directory prints its interaction metrics", async () => {
    const folder = path.join(scratch(), "run");
    writeRun(folder);
    const out = await runCli(["report", "--json", folder]);
    expect(out.code, out.stderr).toBe(0);
    const printed = JSON.parse(out.stdout) as {
      domain: string;
      interaction_metrics: { counts: { response_total: number } };
    };
    expect(printed.domain).toBe("airline");
    expect(printed.interaction_metrics.counts.response_total).toBe(2);
  });

  it("a run stopped after its first simulation keeps it, and results.json stays valid", () => {
    const folder = path.join(scratch(), "run");
    const [call] = twoCalls();
    const writer = VoiceResultsWriter.create(folder, { info: syntheticInfo(), tasks: [] });
    expect(readVoiceResultsDir(folder).simulations).toEqual([]);
    writer.append(simulationRecord("sim-0", "0", call!.ticks, 1));
    // Nothing closes the run: what is on disk is a valid run of one simulation.
    const run = readVoiceResultsDir(folder);
    expect(run.meta.simulation_index?.map((e) => e.id)).toEqual(["sim-0"]);
    expect(run.simulations).toHaveLength(1);
    // Continuing it adds the rest; a task and trial written again replaces the earlier one.
    const resumed = VoiceResultsWriter.open(folder);
    expect(resumed.has("0", 0)).toBe(true);
    resumed.append(simulationRecord("sim-1", "1", call!.ticks, 0));
    resumed.append(simulationRecord("sim-0b", "0", call!.ticks, 0));
    expect(readVoiceResultsDir(folder).simulations.map((s) => s.id)).toEqual(["sim-0b", "sim-1"]);
  });

  it("a kill between a simulation's file and the index is repaired when the run is opened again", () => {
    const folder = path.join(scratch(), "run");
    const [call] = twoCalls();
    const writer = VoiceResultsWriter.create(folder, { info: syntheticInfo(), tasks: [] });
    writer.append(simulationRecord("sim-0", "0", call!.ticks, 1));
    // What a kill leaves: the next simulation's file, not yet indexed, and a temporary file.
    writeFileSync(
      path.join(folder, "simulations", "sim-1.json"),
      JSON.stringify(simulationRecord("sim-1", "1", call!.ticks, 1)),
    );
    writeFileSync(path.join(folder, "simulations", ".sim-2.json.123.456.tmp"), '{"id": "sim-');
    expect(() => readVoiceResultsDir(folder)).toThrow(/sim-1\.json is not in the index/);
    const repair = repairVoiceResultsDir(folder);
    expect(repair).toEqual({
      added: ["sim-1"],
      dropped: [],
      removedTemporaries: [path.join("simulations", ".sim-2.json.123.456.tmp")],
    });
    expect(readVoiceResultsDir(folder).simulations.map((s) => s.id)).toEqual(["sim-0", "sim-1"]);
  });

  it("kill -9 while simulations are being appended: nothing written is lost", async () => {
    const folder = path.join(scratch(), "run");
    const child = spawn(
      process.execPath,
      // One process (node with tsx's loader), so the kill reaches the writer itself: tsx's CLI would
      // run the script in a child of its own that a SIGKILL to the CLI leaves writing.
      ["--import", "tsx", "test/fixtures/voice-writer-child.ts", folder],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const appended = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const count = (out.match(/appended/g) ?? []).length;
        if (count >= 5) {
          child.kill("SIGKILL");
          resolve(count);
        }
      });
      child.on(
        "exit",
        (code) => code !== null && reject(new Error(`the writer exited (${code}): ${stderr}`)),
      );
    });
    await new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.on("exit", resolve),
    );
    VoiceResultsWriter.open(folder);
    const run = readVoiceResultsDir(folder);
    expect(run.simulations.length).toBeGreaterThanOrEqual(appended);
    const onDisk = readdirSync(path.join(folder, "simulations"));
    expect(onDisk.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(run.meta.simulation_index).toHaveLength(run.simulations.length);
  }, 120_000);

  it("a reward breakdown with NL assertions not judged is written as the reference types it: floats only", () => {
    const folder = path.join(scratch(), "run");
    const [call] = twoCalls();
    const writer = VoiceResultsWriter.create(folder, { info: syntheticInfo(), tasks: [{ id: "3" }] });
    const record = simulationRecord("sim-nl", "3", call!.ticks, 1);
    const rewardInfo = {
      reward: 1,
      reward_basis: ["DB", "NL_ASSERTION"],
      reward_breakdown: { DB: 1, NL_ASSERTION: null },
      info: { nl_assertions_needing_llm_judge: 2 },
    };
    writer.append({ ...record, reward_info: rewardInfo });
    const text = readFileSync(path.join(folder, "simulations", "sim-nl.json"), "utf8");
    const onDisk = JSON.parse(text) as { reward_info: Record<string, unknown> };
    // The reference's model refuses null here (`dict[RewardType, float]`): the unjudged component is
    // left out, and the info still says how many assertions wait for a judge.
    expect(onDisk.reward_info.reward_breakdown).toEqual({ DB: 1 });
    expect(onDisk.reward_info.info).toEqual({ nl_assertions_needing_llm_judge: 2 });
    expect(onDisk.reward_info.reward_basis).toEqual(["DB", "NL_ASSERTION"]);
    expect(text).not.toMatch(/"NL_ASSERTION": null/);
    // The caller's record is left as it was; a judged breakdown is written whole.
    expect(rewardInfo.reward_breakdown).toEqual({ DB: 1, NL_ASSERTION: null });
    writer.append({
      ...simulationRecord("sim-judged", "3", call!.ticks, 0, 1),
      reward_info: { reward: 0, reward_breakdown: { DB: 1, NL_ASSERTION: 0 } },
    });
    const judged = JSON.parse(readFileSync(path.join(folder, "simulations", "sim-judged.json"), "utf8")) as {
      reward_info: Record<string, unknown>;
    };
    expect(judged.reward_info.reward_breakdown).toEqual({ DB: 1, NL_ASSERTION: 0 });
    expect(readVoiceResultsDir(folder).simulations).toHaveLength(2);
  });

  it("refuses a simulation that is not a full-duplex one, naming the field", () => {
    const writer = VoiceResultsWriter.create(path.join(scratch(), "run"), {
      info: syntheticInfo(),
      tasks: [],
    });
    const record = { ...simulationRecord("sim-0", "0", [], 1), mode: "half_duplex" };
    expect(() => writer.append(record)).toThrow(/\$\.mode/);
    expect(() => writer.append({ ...simulationRecord("../x", "0", [], 1) })).toThrow(/\$\.id/);
  });
});

function readWav(file: string) {
  const wav = new wavefile.WaveFile(readFileSync(file));
  const fmt = wav.fmt as {
    numChannels: number;
    sampleRate: number;
    bitsPerSample: number;
    audioFormat: number;
  };
  const samples = wav.getSamples(false, Int16Array) as unknown as Int16Array[];
  return { fmt, samples };
}

const rms = (samples: Int16Array) =>
  Math.sqrt(samples.reduce((s, x) => s + x * x, 0) / Math.max(1, samples.length));

describe("a voice simulation's audio", () => {
  it("both.wav: 8 kHz PCM16 stereo, one tick of audio per tick, the customer left and the agent right", () => {
    const folder = path.join(scratch(), "run");
    const { calls } = writeRun(folder);
    const call = calls[1]!;
    const file = path.join(folder, "artifacts", "task_1", "sim_sim-1", "audio", "both.wav");
    const { fmt, samples } = readWav(file);
    expect(fmt).toMatchObject({ numChannels: 2, sampleRate: 8000, bitsPerSample: 16, audioFormat: 1 });
    const perTick = wireBytesPerTick(TICK);
    const [left, right] = samples as [Int16Array, Int16Array];
    expect(left.length).toBe(call.ticks.length * perTick);
    expect(left.length / 8000).toBeCloseTo(call.ticks.length * TICK, 9);
    const tickOf = (channel: Int16Array, i: number) => channel.subarray(i * perTick, (i + 1) * perTick);
    call.ticks.forEach((tick, i) => {
      // Each channel carries its own side's tone exactly where that side speaks, and silence elsewhere.
      const expectedLeft = alawmulaw.mulaw.decode(call.wire.user[i]!);
      const expectedRight = alawmulaw.mulaw.decode(call.wire.agent[i]!);
      expect(tickOf(left, i)).toEqual(expectedLeft);
      expect(tickOf(right, i)).toEqual(expectedRight);
      expect(rms(tickOf(left, i)) > USER_TONE.amplitude / 2).toBe(tick.user_chunk.contains_speech);
      expect(rms(tickOf(right, i)) > AGENT_TONE.amplitude / 2).toBe(tick.agent_chunk.contains_speech);
    });
  });

  it("label tracks: each side's speech with its text, and the agent's tool call, at the ticks' times", () => {
    const folder = path.join(scratch(), "run");
    writeRun(folder);
    const audio = (sim: number) => path.join(folder, "artifacts", `task_${sim}`, `sim_sim-${sim}`, "audio");
    expect(readdirSync(audio(0)).sort()).toEqual([
      "assistant_labels.txt",
      "assistant_tool_calls_labels.txt",
      "both.wav",
      "user_labels.txt",
    ]);
    expect(readFileSync(path.join(audio(0), "user_labels.txt"), "utf8")).toBe(
      "0.000\t1.000\tHi, I want to cancel reservation EHGLP3.",
    );
    expect(readFileSync(path.join(audio(0), "assistant_labels.txt"), "utf8")).toBe(
      "1.400\t2.000\tSure, let me check.",
    );
    // Called in tick 8, answered in tick 9.
    expect(readFileSync(path.join(audio(0), "assistant_tool_calls_labels.txt"), "utf8")).toBe(
      "1.600\t2.000\tget_reservation_details",
    );
    expect(readFileSync(path.join(audio(1), "user_labels.txt"), "utf8")).toBe(
      "0.000\t0.600\tHello, my order W123.\n1.800\t2.000\tuh-huh",
    );
    expect(readFileSync(path.join(audio(1), "assistant_labels.txt"), "utf8")).toBe(
      "1.200\t3.200\tI see your order W123 was shipped yesterday and should arrive on Monday.",
    );
    expect(existsSync(path.join(audio(1), "assistant_tool_calls_labels.txt"))).toBe(false);
  });

  it("--audio-taps: each recorded stage as a mono PCM16 file at its own rate", () => {
    const dir = path.join(scratch(), "taps");
    const [call] = twoCalls();
    const taps = new AudioTapRecorder();
    call!.wire.user.forEach((tick, i) => {
      taps.recordPcm16(AUDIO_TAPS.userSpeech, new Int16Array(3200).fill(i), 16000);
      taps.recordWire(AUDIO_TAPS.userWire, tick);
      taps.recordWire(AUDIO_TAPS.agentWire, call!.wire.agent[i]!);
    });
    const written = taps
      .save(dir)
      .map((f) => path.basename(f))
      .sort();
    expect(written).toEqual(["agent_output.wav", "user_output.wav", "user_speech-only.wav"]);
    const speech = readWav(path.join(dir, "user_speech-only.wav"));
    expect(speech.fmt).toMatchObject({ numChannels: 1, sampleRate: 16000, bitsPerSample: 16 });
    const wire = readWav(path.join(dir, "user_output.wav"));
    expect(wire.fmt).toMatchObject({ numChannels: 1, sampleRate: 8000 });
    const flat = wire.samples as unknown as Int16Array;
    expect(flat.length).toBe(call!.ticks.length * wireBytesPerTick(TICK));
    expect(() => taps.recordPcm16(AUDIO_TAPS.userSpeech, new Int16Array(1), 8000)).toThrow(/16000 Hz/);
    // Through the run's writer, beside the simulation's audio.
    const folder = path.join(scratch(), "run");
    VoiceResultsWriter.create(folder, { info: syntheticInfo(), tasks: [] }).append(
      simulationRecord("sim-0", "0", call!.ticks, 1),
      { wire: call!.wire, taps },
    );
    expect(readdirSync(simulationTapsDir(folder, "0", "sim-0")).sort()).toEqual([
      "agent_output.wav",
      "user_output.wav",
      "user_speech-only.wav",
    ]);
  });
});
