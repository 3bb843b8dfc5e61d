import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSuccessful, passHatK } from "../src/metrics/pass-hat-k.js";
import { isUserSimulatorRequest } from "../src/testing/gold-model.js";
import { goldVoicePolicy } from "../src/testing/gold-voice-policy.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { startMockRealtimeServer, type MockRealtimeServer } from "../src/testing/mock-realtime-server.js";
import { startMockSpeechServer, type MockSpeechServer } from "../src/testing/mock-speech-server.js";
import { fixtureDomainData } from "../src/testing/tau2-fixtures.js";
import { readExploredVoiceRun } from "../src/voice/voice-run-views.js";
import type { VoiceRobustnessReport } from "../src/runner/voice-robustness.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import {
  customerScript,
  mishearingBrain,
  oneTaskPerCustomer,
  taskWithSpokenId,
} from "./helpers/voice-mocks.js";

// `passk robustness --voice CONTROL REGULAR` end to end: two voice runs made through the CLI against the
// mock providers over real sockets — `control` with the gold agent, `regular` (the line's frame drops and
// bursts) with an agent that also gets one task's spoken id wrong, so at least that task breaks, whatever
// else the line does — then paired task by task.

const KEY = "sk-realtime-test-key-0003";
const TRIALS = 2;

describe("passk robustness --voice", () => {
  const pool = oneTaskPerCustomer(fixtureDomainData("airline").tasks, 10);
  const spoken = taskWithSpokenId(pool);
  const tasks = [spoken.task, ...pool.filter((t) => t !== spoken.task).slice(0, 2)];
  const ids = tasks.map((t) => t.id);
  let llm: MockLlmServer;
  let speech: MockSpeechServer;
  let gold: MockRealtimeServer;
  let mishearing: MockRealtimeServer;
  const dir = mkdtempSync(path.join(tmpdir(), "passk-voice-robustness-"));
  const control = path.join(dir, "control");
  const regular = path.join(dir, "regular");
  const env = () => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${speech.url}/v1` });
  const voiceRun = (url: string, complexity: string, saveTo: string, taskIds = ids, trials = TRIALS) =>
    runCliInProcess(
      [
        "run",
        "--voice",
        "--domain",
        "airline",
        "--task-ids",
        ...taskIds,
        "--num-trials",
        String(trials),
        "--speech-complexity",
        complexity,
        "--substitute-missing-noise",
        "--clock",
        "virtual",
        "--voice-agent-url",
        url,
        "--user-llm",
        "openai-compatible:mock-user",
        "--user-llm-base-url",
        llm.url,
        "--user-voice",
        "openai:gpt-4o-mini-tts",
        "--no-audio",
        "--save-to",
        saveTo,
      ],
      env(),
    );

  beforeAll(async () => {
    const customer = customerScript(tasks);
    llm = await startMockLlmServer({
      script: (request) => {
        if (isUserSimulatorRequest(request) || request.system.startsWith("You decide how a caller"))
          return customer(request);
        throw new Error(`unexpected model request: ${request.system.slice(0, 80)}`);
      },
      recordRequests: false,
    });
    speech = await startMockSpeechServer();
    gold = await startMockRealtimeServer({ brain: () => goldVoicePolicy(tasks), apiKey: KEY });
    mishearing = await startMockRealtimeServer({
      brain: () => mishearingBrain(tasks, spoken.said),
      apiKey: KEY,
    });
    for (const [url, complexity, saveTo] of [
      [gold.url, "control", control],
      [mishearing.url, "regular", regular],
    ] as const) {
      const run = await voiceRun(url, complexity, saveTo);
      if (run.code !== 0 || run.stderr !== "") throw new Error(`voice run failed: ${run.stderr}`);
    }
  }, 600_000);
  afterAll(async () => {
    await Promise.all([llm?.close(), speech?.close(), gold?.close(), mishearing?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** pass^k per task from a run's files, independently of the comparison. */
  const passOf = (folder: string, k: number) => {
    const run = readExploredVoiceRun(folder);
    return new Map(
      ids.map((id) => {
        const rewards = run.simulations.filter((s) => s.task_id === id).map((s) => s.reward_info!.reward);
        return [id, passHatK(rewards.length, rewards.filter(isSuccessful).length, k)];
      }),
    );
  };

  it("pairs control and regular task by task: pass^k, the drop with its interval, the metrics, the broken task and why (--json)", async () => {
    const result = await runCliInProcess(["robustness", "--voice", control, regular, "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as VoiceRobustnessReport;
    expect(report.baseline.speechComplexity).toBe("control");
    expect(report.other.speechComplexity).toBe("regular");
    expect(report.row.k).toBe(TRIALS);
    expect(report.row.tasks).toBe(tasks.length);
    const before = passOf(control, TRIALS);
    const after = passOf(regular, TRIALS);
    const mean = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) / m.size;
    expect(report.row.clean).toBeCloseTo(mean(before), 12);
    expect(report.row.perturbed).toBeCloseTo(mean(after), 12);
    expect(report.row.drop).toBeCloseTo(mean(before) - mean(after), 12);
    expect(report.row.drop).toBeGreaterThan(0);
    expect(report.row.drop_interval!.low).toBeLessThanOrEqual(report.row.drop!);
    expect(report.row.drop_interval!.high).toBeGreaterThanOrEqual(report.row.drop!);
    expect(report.row.p_value).toBeGreaterThan(0);
    // Every task whose pass^k moved is listed, the misheard one among the broken, each failure explained.
    const moved = ids.filter((id) => before.get(id) !== after.get(id)).sort();
    expect(report.flipped.map((f) => f.task_id).sort()).toEqual(moved);
    const broken = report.flipped.find((f) => f.task_id === spoken.task.id)!;
    expect(broken.direction).toBe("broke");
    expect(broken.failures).toHaveLength(TRIALS);
    for (const failure of broken.failures)
      expect(failure.explanation).toContain(`the caller said '${spoken.said}' and the agent used '`);
    for (const task of report.flipped) for (const f of task.failures) expect(f.explanation).toBeTruthy();
    // The interaction metrics of each run, side by side, from their ticks.
    expect(report.interaction?.map((m) => m.symbol)).toEqual([
      "L_R",
      "L_Y",
      "R_R",
      "R_Y",
      "I_A",
      "S_BC",
      "S_VT",
      "S_ND",
    ]);
    const responses = report.interaction!.find((m) => m.symbol === "R_R")!;
    expect(responses.baselineEvents).toBeGreaterThan(0);
    expect(responses.otherEvents).toBeGreaterThan(0);
  }, 120_000);

  it("prints the same as a table, the interaction metrics and the flipped tasks", async () => {
    const result = await runCliInProcess(["robustness", "--voice", control, regular]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`regular vs control`);
    expect(result.stdout).toContain("interaction metrics:");
    expect(result.stdout).toMatch(/response rate\s+R_R/);
    expect(result.stdout).toContain(`task ${spoken.task.id}: broke 1.000 → 0.000`);
    expect(result.stdout).toContain(`in regular: reward 0 — the caller said '${spoken.said}'`);
  }, 120_000);

  it("refuses runs that do not measure the same thing, in a sentence", async () => {
    const fewer = path.join(dir, "fewer");
    const run = await voiceRun(gold.url, "control", fewer, ids.slice(0, 1), 1);
    expect(run.code).toBe(0);
    const result = await runCliInProcess(["robustness", "--voice", control, fewer]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot be paired");
    expect(result.stderr).toContain("the trials per task differ (2 and 1)");
    expect(result.stderr).toContain(`only in the first: ${ids.slice(1).sort().join(", ")}`);
    const one = await runCliInProcess(["robustness", "--voice", control]);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain("pairs two voice run directories");
  }, 300_000);
});
