import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import wavefile from "wavefile";
import { isUserSimulatorRequest } from "../src/testing/gold-model.js";
import { goldVoicePolicy } from "../src/testing/gold-voice-policy.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { startMockRealtimeServer, type MockRealtimeServer } from "../src/testing/mock-realtime-server.js";
import { startMockSpeechServer, type MockSpeechServer } from "../src/testing/mock-speech-server.js";
import { fixtureDomainData } from "../src/testing/tau2-fixtures.js";
import { AUDIO_TAPS, simulationAudioDir } from "../src/voice/audio-artifacts.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { customerScript, mishearingBrain, taskWithSpokenId } from "./helpers/voice-mocks.js";

// `passk simulate --voice` end to end over real sockets: the customer's words from a mock LLM, its voice
// from the mock speech endpoint, the agent a mock OpenAI Realtime server playing the gold actions by ear.
// One server per behaviour: the gold agent, and one that gets an id the caller said wrong.

const KEY = "sk-realtime-test-key-0002";

describe("passk simulate --voice against mock providers", () => {
  const { task, said, tool } = taskWithSpokenId(fixtureDomainData("airline").tasks);
  let llm: MockLlmServer;
  let speech: MockSpeechServer;
  let gold: MockRealtimeServer;
  let mishearing: MockRealtimeServer;
  const dir = mkdtempSync(path.join(tmpdir(), "passk-voice-simulate-"));

  beforeAll(async () => {
    const customer = customerScript([task]);
    llm = await startMockLlmServer({
      script: (request) =>
        isUserSimulatorRequest(request) || request.system.startsWith("You decide how a caller")
          ? customer(request)
          : (() => {
              throw new Error(`unexpected model request: ${request.system.slice(0, 80)}`);
            })(),
      recordRequests: false,
    });
    speech = await startMockSpeechServer();
    gold = await startMockRealtimeServer({ brain: () => goldVoicePolicy(task), apiKey: KEY });
    mishearing = await startMockRealtimeServer({ brain: () => mishearingBrain([task], said), apiKey: KEY });
  });
  afterAll(async () => {
    await Promise.all([llm?.close(), speech?.close(), gold?.close(), mishearing?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const simulate = (url: string, extra: string[] = []) =>
    runCliInProcess(
      [
        "simulate",
        "--voice",
        "--domain",
        "airline",
        "--task",
        task.id,
        "--clock",
        "virtual",
        "--voice-agent",
        "openai:gpt-realtime",
        "--voice-agent-url",
        url,
        "--user-llm",
        "openai-compatible:mock-user",
        "--user-llm-base-url",
        llm.url,
        "--user-voice",
        "openai:gpt-4o-mini-tts",
        ...extra,
      ],
      { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${speech.url}/v1` },
    );

  it("prints who said what when, the tool calls with their answers and the grade, and keeps the call with --save-to", async () => {
    const saveTo = path.join(dir, "gold");
    const result = await simulate(gold.url, ["--save-to", saveTo]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toContain(`voice call · airline task ${task.id} · agent openai:gpt-realtime`);
    // The caller opens with the scenario; the agent answers; the gold tool call carries the spoken id.
    const customerLine = lines.findIndex((l) => /^\[\s+\d+\.\d s\] customer: /.test(l));
    const agentLine = lines.findIndex((l) => /^\[\s+\d+\.\d s\] agent: \S/.test(l));
    const toolLine = lines.findIndex((l) => l.includes(`agent → ${tool}(`) && l.includes(said));
    expect(customerLine).toBeGreaterThan(0);
    expect(agentLine).toBeGreaterThan(0);
    expect(toolLine).toBeGreaterThan(customerLine);
    expect(lines[toolLine]).toMatch(/ ← \S/);
    expect(result.stdout).toContain("reward: 1.00");
    expect(result.stdout).not.toContain("why:");
    expect(result.stdout).toContain(`call written to ${saveTo}`);
    const recording = /recording (\S+both\.wav)/.exec(result.stdout)?.[1];
    expect(recording && existsSync(recording)).toBe(true);
    expect(readdirSync(path.join(saveTo, "simulations"))).toHaveLength(1);
    expect(result.stdout).not.toContain(KEY);
  }, 300_000);

  it("--audio-taps records each stage of the call's audio, as long as the call, beside both.wav", async () => {
    const saveTo = path.join(dir, "taps");
    const result = await simulate(gold.url, [
      "--save-to",
      saveTo,
      "--audio-taps",
      "--speech-complexity",
      "regular",
      "--substitute-missing-noise",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [file] = readdirSync(path.join(saveTo, "simulations"));
    const record = JSON.parse(readFileSync(path.join(saveTo, "simulations", file!), "utf8")) as {
      id: string;
      ticks: unknown[];
    };
    const tapsDir = path.join(simulationAudioDir(saveTo, task.id, record.id), "taps");
    const stages = Object.values(AUDIO_TAPS);
    expect(readdirSync(tapsDir).sort()).toEqual(stages.map((name) => `${name}.wav`).sort());
    const samples = new Map(
      stages.map((name) => {
        const wav = new wavefile.WaveFile(readFileSync(path.join(tapsDir, `${name}.wav`)));
        expect(wav.fmt).toMatchObject({ numChannels: 1, sampleRate: 8000, bitsPerSample: 16 });
        return [name, Int16Array.from(wav.getSamples(false, Int16Array) as unknown as Int16Array)];
      }),
    );
    // Every stage covers the whole call, tick by tick.
    for (const name of stages) expect(samples.get(name)!.length).toBe(record.ticks.length * 1600);
    const energy = (x: Int16Array) => x.reduce((sum, v) => sum + v * v, 0) / x.length;
    const speech = samples.get(AUDIO_TAPS.userSpeech)!;
    const afterEffects = samples.get(AUDIO_TAPS.userAfterEffects)!;
    expect(energy(speech)).toBeGreaterThan(0);
    expect(energy(samples.get(AUDIO_TAPS.agentWire)!)).toBeGreaterThan(0);
    // regular's surroundings: the caller's silences are no longer silent once the effects are on.
    const silentInSpeech = speech.reduce((n, v, i) => n + (v === 0 && afterEffects[i] !== 0 ? 1 : 0), 0);
    expect(silentInSpeech).toBeGreaterThan(1000);
  }, 300_000);

  it("a misheard id: reward 0, and why — the value the caller said and the one the agent used; --json carries the record", async () => {
    const result = await simulate(mishearing.url, ["--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as {
      task_id: string;
      reward_info: { reward: number };
      explanation: string | null;
      ticks: unknown[];
      folder: string | null;
    };
    expect(json.task_id).toBe(task.id);
    expect(json.reward_info.reward).toBe(0);
    expect(json.ticks.length).toBeGreaterThan(0);
    expect(json.explanation).toContain(`the caller said '${said}' and the agent used '${said.slice(0, -1)}`);
    expect(json.folder).toBeNull();

    const text = await simulate(mishearing.url);
    expect(text.stdout).toContain("reward: 0.00");
    expect(text.stdout).toMatch(
      new RegExp(`why: the caller said '${said}' and the agent used '[^']+' \\([a-z_]+ `),
    );
  }, 300_000);

  it("refuses a voice call without a customer model, and a text one without --agent-llm", async () => {
    const noUser = await runCliInProcess(["simulate", "--voice", "--domain", "airline", "--task", task.id]);
    expect(noUser.code).toBe(1);
    expect(noUser.stderr).toContain("--voice needs --user-llm");
    const perturbed = await runCliInProcess([
      "simulate",
      "--voice",
      "--domain",
      "airline",
      "--task",
      task.id,
      "--user-llm",
      "openai:gpt-4.1",
      "--perturb",
      "tool-faults:rate=0.5",
    ]);
    expect(perturbed.code).toBe(1);
    expect(perturbed.stderr).toContain("--perturb are for text conversations");
    const noAgent = await runCliInProcess(["simulate", "--domain", "airline", "--task", task.id]);
    expect(noAgent.code).toBe(1);
    expect(noAgent.stderr).toContain("--agent-llm");
  });
});
