import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mulawDecode, rms } from "../src/voice/audio.js";
import { createCallerLine } from "../src/voice/effects/caller-line.js";
import { loadCallerNoise, loadNoiseClip, noisePath } from "../src/voice/effects/noise.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import {
  loadTasksVoice,
  parseTasksVoice,
  SPEECH_COMPLEXITIES,
  voiceSettingsFor,
  type VoiceSettings,
} from "../src/voice/voice-settings.js";
import { db } from "./helpers/tones.js";

const dataDir = tau2DataDir();

describe("tasks_voice.json", () => {
  it.each([
    ["mock", 9, ["control", "regular"]],
    ["airline", 50, SPEECH_COMPLEXITIES],
    ["retail", 114, SPEECH_COMPLEXITIES],
    ["banking_knowledge", 97, SPEECH_COMPLEXITIES],
  ])("reads %s's: %i tasks, each at its complexity levels", (domain, tasks, levels) => {
    const file = loadTasksVoice(dataDir, domain);
    expect(file.base_seed).toBe(42);
    expect(Object.keys(file.configs)).toHaveLength(tasks);
    for (const [taskId, byLevel] of Object.entries(file.configs)) {
      expect(Object.keys(byLevel).sort()).toEqual([...levels].sort());
      for (const level of levels) expect(voiceSettingsFor(file, taskId, level).complexity).toBe(level);
    }
  });

  it("gives mock's older entries (levels directly under the task, fewer fields) the reference's defaults", () => {
    const settings = voiceSettingsFor(loadTasksVoice(dataDir, "mock"), "create_task_1", "regular");
    expect(settings.telephony_enabled).toBe(true);
    expect(settings.use_llm_backchannel).toBe(true);
    expect(settings.background_noise_file).toBe("people_talking.wav");
    const airline = voiceSettingsFor(loadTasksVoice(dataDir, "airline"), "24", "control");
    expect(airline.use_llm_backchannel).toBe(false);
    expect(airline.source_effects_config.enable_background_noise).toBe(false);
  });

  it("says what is wrong: unknown task, unknown level, missing file, malformed file", () => {
    const mock = loadTasksVoice(dataDir, "mock");
    expect(() => voiceSettingsFor(mock, "create_task_2", "regular")).toThrow(
      /no voice settings for task create_task_2 \(did you mean create_task_1\?\); the file has 9 tasks: create_task_1, /,
    );
    expect(() => voiceSettingsFor(mock, "create_task_1", "control_audio")).toThrow(
      "no voice settings for task create_task_1 at speech complexity control_audio; known for this task: control, regular.",
    );
    expect(() => voiceSettingsFor(mock, "create_task_1", "noisy")).toThrow(
      /known for this task: control, regular \(the reference's levels are control, regular, control_audio, /,
    );
    const empty = mkdtempSync(path.join(tmpdir(), "passk-voice-"));
    expect(() => loadTasksVoice(empty, "telecom")).toThrow(
      `no voice settings for domain telecom: ${path.join(empty, "telecom", "tasks_voice.json")} does not exist. Run \`passk data pull\``,
    );
    expect(() => parseTasksVoice("{", "x.json")).toThrow(/^x\.json is not JSON/);
    expect(() => parseTasksVoice('{"base_seed": 1, "configs": {"t": {"regular": {}}}}', "y.json")).toThrow(
      /^y\.json is not a τ-voice tasks_voice\.json \(.*persona_name/,
    );
  });
});

describe("the noise recordings", () => {
  const airline = loadTasksVoice(dataDir, "airline");
  const withBackground = (name: string): VoiceSettings => {
    const settings = structuredClone(voiceSettingsFor(airline, "0", "regular"));
    settings.background_noise_file = name;
    return settings;
  };

  it("are read from the data dir at 8 kHz, once per process", () => {
    const noise = loadCallerNoise(dataDir, withBackground("people_talking.wav"));
    expect(noise.background?.name).toBe("people_talking.wav");
    expect(noise.background!.samples.length).toBeGreaterThan(40 * 8000);
    expect(noise.background!.samples.length).toBeLessThan(41 * 8000);
    expect(noise.bursts.map((b) => b.name)).toEqual(
      voiceSettingsFor(airline, "0", "regular").burst_noise_files,
    );
    expect(noise.substitutions).toEqual([]);
    expect(loadNoiseClip(noisePath(dataDir, "continuous", "people_talking.wav"))).toBe(noise.background);
  });

  it("missing: an error naming the file and the fix, or a substitute when asked, reported", () => {
    const wanted = withBackground("busy_street_iphone_mic.wav");
    const empty = mkdtempSync(path.join(tmpdir(), "passk-voice-"));
    expect(() => loadCallerNoise(empty, wanted)).toThrow(
      `the voice settings name the background noise recording busy_street_iphone_mic.wav, which is not at ${noisePath(empty, "continuous", "busy_street_iphone_mic.wav")}. Run \`passk data pull\` with network`,
    );
    const substituted = loadCallerNoise(empty, wanted, { onMissing: "substitute" });
    expect(substituted.background).toBeNull();
    expect(substituted.bursts).toEqual([]);
    expect(substituted.substitutions[0]).toEqual({
      kind: "continuous",
      wanted: "busy_street_iphone_mic.wav",
      used: null,
    });
    const present = path.join(empty, "voice", "noise", "continuous");
    mkdirSync(present, { recursive: true });
    writeFileSync(
      path.join(present, "x.wav"),
      readFileSync(noisePath(dataDir, "continuous", "people_talking.wav")),
    );
    const other = loadCallerNoise(empty, wanted, { onMissing: "substitute" });
    expect(other.background?.name).toBe("x.wav");
    expect(other.substitutions[0]).toEqual({
      kind: "continuous",
      wanted: "busy_street_iphone_mic.wav",
      used: "x.wav",
    });
  });

  it("a real background recording sounds at its SNR under the nominal speech level", () => {
    const settings = withBackground("people_talking.wav");
    settings.telephony_enabled = false;
    Object.assign(settings.source_effects_config, { noise_snr_drift_db: 0, enable_burst_noise: false });
    settings.channel_effects_config.enable_frame_drops = false;
    const line = createCallerLine(settings, loadCallerNoise(dataDir, settings), 3);
    const wire = new Uint8Array(600 * 1600);
    for (let t = 0; t < 600; t++)
      wire.set(line.tick(new Int16Array(1600), { speaking: false, utteranceStart: false }).wire, t * 1600);
    const snr = db(3000 / rms(mulawDecode(wire)));
    expect(Math.abs(snr - settings.source_effects_config.noise_snr_db)).toBeLessThan(1.5);
  });
});
