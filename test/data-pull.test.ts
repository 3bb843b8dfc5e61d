import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { gitBlobHash, pullFiles } from "../src/formats/tau2/data-pull.js";
import { loadReferenceTexts } from "../src/formats/tau2/upstream/reference-texts.js";
import { OFFICIAL_COMMIT } from "../src/formats/tau2/official-manifest.js";
import { voiceRunInteractionMetrics } from "../src/runner/voice-interaction-metrics.js";
import { RECORDED_UTTERANCES, tau2DataDir, tau2UpstreamDir } from "../src/testing/tau2-fixtures.js";
import { readWavFile, rms } from "../src/voice/audio.js";
import { loadTasksVoice } from "../src/voice/voice-settings.js";
import { runCli } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import {
  upstreamWithoutModels,
  upstreamWithStandInModels,
  writeStandInModules,
} from "./helpers/stand-in-data-models.js";

/**
 * A stand-in for raw.githubusercontent.com serving the official data and upstream source files the tests
 * use (as `passk data pull` put them) in the repository's layout, and the data-model modules: as they
 * are, altered (`models = "tampered"`) or not at all (`"404"`).
 */
let server: Server;
let baseUrl: string;
let corrupt: string | undefined;
let models: "served" | "tampered" | "404" = "served";
const requests: string[] = [];
const standIns = mkdtempSync(path.join(tmpdir(), "passk-stand-in-models-"));
const tamperedStandIns = mkdtempSync(path.join(tmpdir(), "passk-stand-in-models-"));
writeStandInModules(standIns);
writeStandInModules(tamperedStandIns, { tamper: true });

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const prefix = `/sierra-research/tau2-bench/${OFFICIAL_COMMIT}/`;
    if (!req.url?.startsWith(prefix)) return void res.writeHead(404).end();
    const remote = decodeURIComponent(req.url.slice(prefix.length));
    const { data, upstream, voice, optionalVoice, models: modules } = pullFiles();
    const known = [...data, ...voice, ...optionalVoice].find((f) => f.remote === remote);
    const model = modules.some((f) => f.remote === remote);
    const file = known
      ? path.join(tau2DataDir(), known.local)
      : upstream.some((f) => f.remote === remote)
        ? path.join(tau2UpstreamDir(), remote)
        : model && models !== "404"
          ? path.join(models === "served" ? standIns : tamperedStandIns, remote)
          : undefined;
    if (!file || !existsSync(file)) return void res.writeHead(404).end();
    const bytes = readFileSync(file);
    res.writeHead(200).end(remote === corrupt ? Buffer.concat([bytes, Buffer.from(" ")]) : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sierra-research/tau2-bench`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// The pulls here choose where upstream files come from themselves, whatever the caller's environment says.
const env = { PASSK_TAU2_UPSTREAM: undefined };
const {
  data: DATA_FILES,
  upstream: UPSTREAM_FILES,
  voice: VOICE_FILES,
  optionalVoice: OPTIONAL_VOICE_FILES,
  models: MODEL_FILES,
} = pullFiles();
// The stand-in server has the optional τ-voice files the test data dir has (none of them, offline).
const OPTIONAL_SERVED = OPTIONAL_VOICE_FILES.filter((f) => existsSync(path.join(tau2DataDir(), f.local)));
const OPTIONAL_ABSENT = OPTIONAL_VOICE_FILES.filter((f) => !OPTIONAL_SERVED.includes(f));
const ALL_FILES = [...DATA_FILES, ...UPSTREAM_FILES, ...VOICE_FILES, ...OPTIONAL_SERVED];
const TOTAL = ALL_FILES.length + MODEL_FILES.length;
const VOICE_WARNING = "warning: optional τ-voice file ";
/** The warnings about optional τ-voice files the server does not have. */
const voiceWarnings = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith(VOICE_WARNING));
/** Everything else a pull wrote to stderr. */
const otherStderr = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith(VOICE_WARNING))
    .join("\n");
const CONSEQUENCE =
  "tool schemas will carry the nested models without their descriptions; everything else is exact.";
const modelRequests = (from: number) =>
  requests.slice(from).filter((url) => MODEL_FILES.some((m) => url.endsWith(m.remote)));

// Each test pulls ~900 files once to three times through the CLI: up to 59 s measured on the loaded 2-core
// machine (the full pull with three replays), so 4x that.
describe("passk data pull", { timeout: 240_000 }, () => {
  it("downloads every official data file, upstream source file and data-model module, verified, and then finds them up to date", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const first = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`${TOTAL} downloaded, 0 already up to date`);
    expect(otherStderr(first.stderr)).toBe("");
    // Each optional τ-voice file the server lacks: one warning saying what going without it means.
    expect(voiceWarnings(first.stderr)).toEqual(
      OPTIONAL_ABSENT.map(
        (f) =>
          `${VOICE_WARNING}${f.remote} could not be downloaded (HTTP 404): ${
            f.remote.endsWith("tasks_voice.json")
              ? `voice runs on ${path.basename(path.dirname(f.remote))} cannot read their voice settings`
              : `voice runs whose settings name ${path.basename(f.remote)} need it, or another recording in its place`
          }.`,
      ),
    );
    for (const f of OPTIONAL_ABSENT) expect(existsSync(path.join(dest, f.local))).toBe(false);
    for (const file of ALL_FILES) {
      expect(gitBlobHash(readFileSync(path.join(dest, file.local)))).toBe(file.blob);
    }
    expect(existsSync(path.join(dest, "upstream", "src", "tau2", "agent", "llm_agent.py"))).toBe(true);
    for (const model of MODEL_FILES) {
      expect(model.local).toBe(path.join("upstream", model.remote));
      expect(readFileSync(path.join(dest, model.local), "utf8")).toBe(
        readFileSync(path.join(standIns, model.remote), "utf8"),
      );
    }
    // The pulled τ-voice golden set is a voice run whose interaction metrics are the expected ones.
    const golden = path.join(dest, "voice", "tests", "test_voice", "test_interaction_metrics", "testdata");
    expect(voiceRunInteractionMetrics(path.join(golden, "experiment")).interaction_metrics).toStrictEqual(
      JSON.parse(readFileSync(path.join(golden, "expected_metrics.json"), "utf8")),
    );
    // The pulled modules are used: the τ² tools carry the nested models' descriptions.
    const texts = loadReferenceTexts(path.join(dest, "upstream"));
    expect(texts.nestedModelDescriptions(builtinDomains.get("telecom")!)).toBe("complete");
    // Again with no network at all (nothing listens at the base URL): a verified no-op that succeeds.
    const requestsBefore = requests.length;
    const second = await runCliInProcess(
      ["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/offline"],
      env,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`0 downloaded, ${TOTAL} already up to date`);
    expect(otherStderr(second.stderr)).toBe("");
    expect(voiceWarnings(second.stderr)).toHaveLength(OPTIONAL_ABSENT.length);
    for (const line of voiceWarnings(second.stderr))
      expect(line).toContain("an earlier pull could not get it");
    expect(requests.length).toBe(requestsBefore);
    // The τ-voice settings and noise recordings are where the voice track reads them.
    expect(loadTasksVoice(dest, "airline").configs["0"]?.regular?.complexity).toBe("regular");
    expect(readdirSync(path.join(dest, "voice", "noise", "bursts")).sort()).toEqual([
      "car_horn.wav",
      "dog_bark.wav",
      "engine_idling.wav",
      "ringing_phone.wav",
      "siren.wav",
    ]);
    // The reference's recorded utterances came too: 16 kHz speech the browser tests play into a microphone.
    const utterances = path.join(dest, "voice", "tests", "test_voice", "test_audio_native", "testdata");
    expect(readdirSync(utterances).sort()).toEqual(RECORDED_UTTERANCES.map((name) => `${name}.wav`));
    const checkOrder = readWavFile(path.join(utterances, "check_order_12345.wav"), 16_000);
    expect(checkOrder.length / 16_000).toBeCloseTo(3.6, 1);
    expect(rms(checkOrder)).toBeGreaterThan(1000);
    // The pulled directory is usable as a data dir.
    const replay = await runCliInProcess(
      ["replay", "--domain", "mock", "--data", dest, "--task", "create_task_1"],
      env,
    );
    expect(JSON.parse(replay.stdout).evaluation.reward_excluding_nl_assertions).toBe(1);
    // banking_knowledge's 814 files (documents named with `+` among them) came too, and its gold replays.
    expect(DATA_FILES.filter((f) => f.local.startsWith("banking_knowledge/"))).toHaveLength(814);
    const banking = await runCliInProcess(
      ["replay", "--domain", "banking_knowledge", "--data", dest, "--task", "task_001"],
      env,
    );
    expect(banking.code, banking.stderr).toBe(0);
    expect(JSON.parse(banking.stdout).evaluation.reward_excluding_nl_assertions).toBe(1);
  });

  it("data-model modules the server does not have: a one-line warning each, success, and no retry on a pull that fetches nothing else", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    models = "404";
    try {
      const first = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain(`${ALL_FILES.length} downloaded, 0 already up to date`);
      const warnings = otherStderr(first.stderr).split("\n");
      expect(warnings).toEqual(
        MODEL_FILES.map(
          (m) =>
            `warning: optional upstream data model ${m.remote} could not be downloaded (HTTP 404): ${CONSEQUENCE}`,
        ),
      );
      for (const model of MODEL_FILES) expect(existsSync(path.join(dest, model.local))).toBe(false);
      // Offline, data in place: no request, the same success, the modules still reported missing.
      const before = requests.length;
      const second = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env);
      expect(second.code).toBe(0);
      expect(requests.length).toBe(before);
      expect(second.stdout).toContain(`0 downloaded, ${ALL_FILES.length} already up to date`);
      expect(second.stderr).toContain(
        `${MODEL_FILES[0]!.remote} was not fetched: an earlier pull could not get it`,
      );
      expect(second.stderr).toContain(CONSEQUENCE);
      // A pull that downloads something anyway tries them again, and gets them once they are there.
      models = "served";
      rmSync(path.join(dest, DATA_FILES[0]!.local));
      const third = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env);
      expect(third.code).toBe(0);
      expect(otherStderr(third.stderr)).toBe("");
      expect(third.stdout).toContain(
        `${1 + MODEL_FILES.length} downloaded, ${ALL_FILES.length - 1} already up to date`,
      );
      for (const model of MODEL_FILES) {
        expect(existsSync(path.join(dest, model.local))).toBe(true);
        expect(existsSync(`${path.join(dest, model.local)}.unavailable`)).toBe(false);
      }
    } finally {
      models = "served";
    }
  });

  it("data-model modules that do not give the expected schemas are not written, with a warning", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    models = "tampered";
    try {
      const run = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env);
      expect(run.code).toBe(0);
      for (const model of MODEL_FILES) {
        expect(run.stderr).toContain(
          `warning: optional upstream data model ${model.remote} does not give the expected schemas (its schema entries have digest `,
        );
        expect(existsSync(path.join(dest, model.local))).toBe(false);
      }
      expect(otherStderr(run.stderr).split("\n")).toHaveLength(MODEL_FILES.length);
      expect(modelRequests(0).length).toBeGreaterThan(0);
    } finally {
      models = "served";
    }
  });

  it("a data dir pulled before the modules existed tries them once, even when everything else is in place", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    models = "404";
    try {
      expect((await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env)).code).toBe(
        0,
      );
    } finally {
      models = "served";
    }
    for (const model of MODEL_FILES) rmSync(`${path.join(dest, model.local)}.unavailable`);
    const before = requests.length;
    const run = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env);
    expect(run.code).toBe(0);
    expect(otherStderr(run.stderr)).toBe("");
    expect(modelRequests(before)).toHaveLength(MODEL_FILES.length);
    expect(requests.length - before).toBe(MODEL_FILES.length);
    expect(run.stdout).toContain(`${MODEL_FILES.length} downloaded, ${ALL_FILES.length} already up to date`);
  });

  it("refuses a file whose hash does not match and leaves no trace of it", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    corrupt = "data/tau2/domains/mock/policy.md";
    try {
      const run = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], env);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("domains/mock/policy.md");
      expect(run.stderr).toContain("expected 1a7b7b07ab195b6a83f82e025a26ec27eb82587c");
      expect(existsSync(path.join(dest, "mock", "policy.md"))).toBe(false);
    } finally {
      corrupt = undefined;
    }
  });

  it("fails clearly when offline, keeping existing files", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    writeFileSync(path.join(dest, "keep.txt"), "x");
    // Spawned: the `data` family's end-to-end run of the binary (a failure's sentence and exit code).
    const run = await runCli(["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/nowhere"], {
      env,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/could not download .* \(bad port\)\. Are you offline\?/);
    expect(readFileSync(path.join(dest, "keep.txt"), "utf8")).toBe("x");
  });

  it("names the network error when nothing answers", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dest = path.join(mkdtempSync(path.join(tmpdir(), "passk-data-")), "data");
    const run = await runCliInProcess(
      ["data", "pull", "--dest", dest, "--base-url", `http://127.0.0.1:${port}`],
      env,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("(ECONNREFUSED). Are you offline?");
    expect(existsSync(dest), "nothing is created when the first download fails").toBe(false);
  });

  it("verifies the upstream source files in place when PASSK_TAU2_UPSTREAM names a copy, downloading none", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const upstream = upstreamWithoutModels();
    const before = requests.length;
    const run = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], {
      PASSK_TAU2_UPSTREAM: upstream,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `${DATA_FILES.length + VOICE_FILES.length + OPTIONAL_SERVED.length} downloaded, ${UPSTREAM_FILES.length} already up to date`,
    );
    expect(run.stdout).toContain(`upstream source files: verified in place at ${upstream}`);
    // That copy has no data-model modules: optional, so nothing is said about them.
    expect(otherStderr(run.stderr)).toBe("");
    expect(requests.slice(before).some((url) => url.includes("/src/tau2/"))).toBe(false);
    expect(existsSync(path.join(dest, "upstream"))).toBe(false);
  });

  it("verifies data-model modules present in the PASSK_TAU2_UPSTREAM copy, warning about one that does not match", async () => {
    const copy = upstreamWithStandInModels();
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const good = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], {
      PASSK_TAU2_UPSTREAM: copy,
    });
    expect(good.code).toBe(0);
    expect(otherStderr(good.stderr)).toBe("");
    expect(good.stdout).toContain(
      `${DATA_FILES.length + VOICE_FILES.length + OPTIONAL_SERVED.length} downloaded, ${UPSTREAM_FILES.length + MODEL_FILES.length} already up to date`,
    );
    const altered = MODEL_FILES[1]!;
    writeFileSync(
      path.join(copy, altered.remote),
      readFileSync(path.join(tamperedStandIns, altered.remote), "utf8"),
    );
    const before = requests.length;
    const bad = await runCliInProcess(["data", "pull", "--dest", dest, "--base-url", baseUrl], {
      PASSK_TAU2_UPSTREAM: copy,
    });
    expect(bad.code).toBe(0);
    expect(requests.length).toBe(before);
    expect(otherStderr(bad.stderr)).toMatch(
      new RegExp(
        `^warning: optional upstream data model ${altered.remote.replace(/\./g, "\\.")} in .* is not usable \\(its schema entries have digest [0-9a-f]{64}, expected [0-9a-f]{64}\\): `,
      ),
    );
    expect(otherStderr(bad.stderr)).toContain(CONSEQUENCE);
  });

  it("refuses an incomplete or altered upstream copy with a sentence naming the file", async () => {
    const copy = mkdtempSync(path.join(tmpdir(), "passk-upstream-"));
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const run = await runCliInProcess(
      ["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/offline"],
      { PASSK_TAU2_UPSTREAM: copy },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the upstream source files at ${copy} (PASSK_TAU2_UPSTREAM) are not usable`);
    expect(run.stderr).toContain("src/tau2/agent/llm_agent.py is missing");
  });
});
