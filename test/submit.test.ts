import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseResults } from "../src/formats/tau2/results.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

const dir = mkdtempSync(path.join(tmpdir(), "passk-submit-"));
const store = path.join(dir, "passk.db");
const env = { PASSK_DATA_DIR: tau2DataDir() };

/** A scripted-demo run (scripted:gold plays agent and user): keyless and deterministic. */
async function demoRun(args: string[]): Promise<string> {
  const run = await runCliInProcess(
    [
      "run",
      "--agent-llm",
      "scripted:gold",
      "--user-llm",
      "scripted:gold",
      "--data",
      tau2DataDir(),
      "--store",
      store,
      "--max-concurrency",
      "8",
      "--progress",
      "lines",
      ...args,
    ],
    env,
  );
  expect(run.code, run.stderr).toBe(0);
  return /run (\S+) · /.exec(run.stdout)![1]!;
}

const metadata = (output: string) => [
  "--output",
  output,
  "--model-name",
  "Scripted Gold",
  "--model-organization",
  "passk demo",
  "--contact-email",
  "team@example.com",
  "--submission-date",
  "2025-06-02",
];

const prepare = (refs: string[], output: string, extra: string[] = []) =>
  runCliInProcess(["submit", "prepare", ...refs, ...metadata(output), "--store", store, ...extra], env);
const validate = (submission: string) => runCliInProcess(["submit", "validate", submission], env);
const lines = (text: string, prefix: string) => text.split("\n").filter((l) => l.startsWith(prefix));

describe("passk submit: airline and retail, full base split, 4 trials (scripted demo)", () => {
  const output = path.join(dir, "full");
  let runId: string;
  let prepared: Awaited<ReturnType<typeof runCliInProcess>>;
  beforeAll(async () => {
    runId = await demoRun(["--domain", "airline,retail", "--num-trials", "4"]);
    prepared = await prepare([runId], output);
  });

  it("prepare writes submission.json and one official results file per domain of the stored run", () => {
    expect(prepared.code, prepared.stdout + prepared.stderr).toBe(0);
    const submission = JSON.parse(readFileSync(path.join(output, "submission.json"), "utf8"));
    expect(submission).toMatchObject({
      model_name: "Scripted Gold",
      submitting_organization: "passk demo",
      submission_type: "custom",
      trajectories_available: true,
      results: {
        airline: { pass_1: 100, pass_2: 100, pass_3: 100, pass_4: 100 },
        retail: { pass_1: 100, pass_2: 100, pass_3: 100, pass_4: 100 },
      },
      trajectory_files: {
        airline: "scripted-gold_airline_default_scripted-gold_4trials.json",
        retail: "scripted-gold_retail_default_scripted-gold_4trials.json",
      },
      methodology: { user_simulator: "scripted:gold", verification: { omitted_questions: false } },
    });
    expect(submission.methodology.notes).toMatch(/^SCRIPTED DEMO: .*not a model's score/);
    expect(readdirSync(path.join(output, "trajectories")).sort()).toEqual(
      Object.values(submission.trajectory_files).sort(),
    );
    for (const [domain, tasks] of [
      ["airline", 50],
      ["retail", 114],
    ] as const) {
      const file = path.join(output, "trajectories", submission.trajectory_files[domain]);
      const text = readFileSync(file, "utf8");
      expect(Object.keys(JSON.parse(text))).toEqual(["timestamp", "info", "tasks", "simulations"]);
      const { results } = parseResults(text, file);
      // The stored run keeps its first domain's info; each file names its own domain.
      expect(results.info.environment_info).toMatchObject({ domain_name: domain });
      expect(new Set(results.simulations.map((s) => s.task_id)).size).toBe(tasks);
      expect(results.simulations).toHaveLength(tasks * 4);
    }
    expect(prepared.stdout).toMatch(/^submission_type: custom \(airline: a scripted demo/m);
    expect(prepared.stdout).toContain(
      "leaderboard directory: web/leaderboard/public/submissions/scripted-gold_passk-demo_2025-06-02/",
    );
    expect(prepared.stdout).toMatch(/^warning: .*is a scripted demo/m);
    expect(lines(prepared.stdout, "error:")).toEqual([]);
  });

  it("validate accepts it, warning that a scripted demo is not a model's score", async () => {
    const checked = await validate(output);
    expect(checked.code, checked.stdout).toBe(0);
    expect(lines(checked.stdout, "error:")).toEqual([]);
    expect(lines(checked.stdout, "warning:")).toContainEqual(
      expect.stringMatching(/\(airline\) is a scripted demo .*not a model's score/),
    );
    // As the reference's `tau2 submit validate` warns: the name differs from the trajectories' model.
    expect(lines(checked.stdout, "warning:")).toContain(
      "warning: submission.json model_name is \"Scripted Gold\" but the trajectories' agent model is scripted:gold (info.agent_info.llm); the reference's validation warns that they do not match — name the model as the trajectories record it.",
    );
    expect(checked.stdout).toMatch(/: valid \(0 errors, \d+ warnings\)$/m);
  });

  it("validate names a tampered pass_1 in submission.json", async () => {
    const tampered = path.join(dir, "tampered");
    cpSync(output, tampered, { recursive: true });
    const file = path.join(tampered, "submission.json");
    const submission = JSON.parse(readFileSync(file, "utf8"));
    submission.results.airline.pass_1 = 87.5;
    writeFileSync(file, JSON.stringify(submission, null, 2));
    const checked = await validate(tampered);
    expect(checked.code).toBe(1);
    expect(lines(checked.stdout, "error:")).toEqual([
      expect.stringMatching(
        /^error: submission\.json results\.airline\.pass_1 is 87\.5 but trajectories\/\S+ gives 100\.00/,
      ),
    ]);
    expect(checked.stdout).toMatch(/: not valid \(1 error, \d+ warnings\)$/m);
  });

  it("refuses an output directory that is not empty, unless --force", async () => {
    const refused = await prepare([runId], output);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error: --output \S+ is not empty; pass an empty or new directory, or --force/m,
    );
    const forced = await prepare([runId], output, ["--force"]);
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
  });
});

describe("passk submit: runs that break the leaderboard's rules", () => {
  it("a task subset: validate exits 1 and names the missing tasks", async () => {
    const saveTo = path.join(dir, "subset.json");
    await demoRun(["--domain", "airline", "--num-tasks", "5", "--num-trials", "1", "--save-to", saveTo]);
    const output = path.join(dir, "subset");
    const prepared = await prepare([saveTo], output);
    // Written, but not acceptable: prepare says so too.
    expect(prepared.code).toBe(1);
    expect(JSON.parse(readFileSync(path.join(output, "submission.json"), "utf8"))).toMatchObject({
      methodology: { verification: { omitted_questions: true } },
    });
    const checked = await validate(output);
    expect(checked.code).toBe(1);
    expect(lines(checked.stdout, "error:")).toContainEqual(
      expect.stringMatching(
        /^error: trajectories\/\S+ \(airline\) is missing 45 of the 50 base-split tasks \(\d+, .*\); run every task/,
      ),
    );
  });

  it("2 trials per task: a warning, not an error", async () => {
    const saveTo = path.join(dir, "two.json");
    await demoRun(["--domain", "airline", "--num-trials", "2", "--save-to", saveTo]);
    const output = path.join(dir, "two");
    const prepared = await prepare([saveTo], output);
    expect(prepared.code, prepared.stdout + prepared.stderr).toBe(0);
    const submission = JSON.parse(readFileSync(path.join(output, "submission.json"), "utf8"));
    expect(submission.results.airline).toMatchObject({
      pass_1: 100,
      pass_2: 100,
      pass_3: null,
      pass_4: null,
    });
    const checked = await validate(output);
    expect(checked.code, checked.stdout).toBe(0);
    expect(lines(checked.stdout, "error:")).toEqual([]);
    expect(lines(checked.stdout, "warning:")).toContainEqual(
      expect.stringMatching(/\(airline\) has 2 trials per task; the leaderboard strongly prefers 4 or more/),
    );
  });
  it("infrastructure errors: the headlines of prepare and validate say graded N of M", async () => {
    const saveTo = path.join(dir, "infra.json");
    await demoRun(["--domain", "airline", "--num-trials", "1", "--save-to", saveTo]);
    const file = JSON.parse(readFileSync(saveTo, "utf8")) as {
      simulations: { termination_reason: string; reward_info: unknown }[];
    };
    for (const simulation of file.simulations.slice(0, 3)) {
      simulation.termination_reason = "infrastructure_error";
      simulation.reward_info = null;
    }
    writeFileSync(saveTo, JSON.stringify(file));
    const output = path.join(dir, "infra");
    const prepared = await prepare([saveTo], output);
    expect(prepared.stdout, prepared.stderr).toMatch(
      /^(valid|the submission does not meet).*; airline graded 47 of 50\)/m,
    );
    const checked = await validate(output);
    expect(checked.stdout).toMatch(
      /: (not )?valid \(\d+ errors?, \d+ warnings?; airline graded 47 of 50\)$/m,
    );
  });
});

describe("passk submit: bad input", () => {
  it("a missing --model-name is one clear sentence", async () => {
    const result = await runCliInProcess(
      [
        "submit",
        "prepare",
        "run.json",
        "--output",
        path.join(dir, "none"),
        "--model-organization",
        "o",
        "--contact-email",
        "a@b.co",
      ],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      "error: --model-name is required: the leaderboard lists it with the results; e.g. --model-name gpt-4.1.",
    );
  });

  it("validate of a directory without submission.json says what to do", async () => {
    const empty = path.join(dir, "empty");
    mkdirSync(empty);
    const checked = await validate(empty);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      `error: submission.json is missing from ${empty}; run passk submit prepare to write it.`,
    );
  });
});
