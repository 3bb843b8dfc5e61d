import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isSuccessful } from "../src/metrics/pass-hat-k.js";
import { Store } from "../src/store/store.js";
import { spreadSuccessProbability } from "../src/testing/flaky-agent.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// `passk run --adaptive` end to end: the seeded flaky agent (a known success probability per airline
// task) through the real runner, store and grading; the interval must cover the known truth, flaky
// tasks must get the extra trials, and what was saved against the fixed design is said.

const dir = mkdtempSync(path.join(tmpdir(), "passk-adaptive-"));
const env = { PASSK_DATA_DIR: tau2DataDir() };
// It plays the gold path, so the scripted customer that follows the gold path is chosen explicitly.
const agent = ["--agent-llm", "module:test/fixtures/flaky-agent-src.ts", "--user-llm", "scripted:gold"];
const runIdOf = (stderr: string) => /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(stderr)![1]!;

/** Per task of a stored run: its trials and successes. */
function trialsOf(store: string, runId: string): Map<string, { trials: number; successes: number }> {
  const opened = Store.open(store);
  const tasks = new Map<string, { trials: number; successes: number }>();
  for (const s of opened.scoredSimulations(runId)) {
    const t = tasks.get(s.task_id) ?? { trials: 0, successes: 0 };
    t.trials++;
    if (isSuccessful(s.reward_info?.reward)) t.successes++;
    tasks.set(s.task_id, t);
  }
  opened.close();
  return tasks;
}

let truth = 0;
beforeAll(async () => {
  // The truth: a task's probability counts where its gold actions earn the reward at all.
  const store = path.join(dir, "gold.db");
  const gold = await runCliInProcess(
    ["run", "--domain", "airline", "--agent-llm", "scripted:gold", "--store", store],
    env,
  );
  expect(gold.code, gold.stderr).toBe(0);
  const passes = trialsOf(store, runIdOf(gold.stderr));
  truth =
    [...passes].reduce((sum, [id, t]) => sum + (t.successes === 1 ? spreadSuccessProbability(id) : 0), 0) /
    passes.size;
});

describe("passk run --adaptive", () => {
  const store = path.join(dir, "adaptive.db");
  const results = path.join(dir, "adaptive.json");

  it("adds trials where tasks are undecided until the interval reaches the target; it covers the truth and saves conversations", async () => {
    const run = await runCliInProcess(
      [
        "run",
        "--domain",
        "airline",
        ...agent,
        "--num-trials",
        "2",
        "--adaptive",
        "--target-ci",
        "0.06",
        "--max-trials",
        "12",
        "--store",
        store,
        "--save-to",
        results,
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = /adaptive: mean success rate (\d\.\d+) ± (\d\.\d+) .*target ± 0\.06 reached/.exec(
      run.stdout,
    );
    expect(summary, run.stdout).not.toBeNull();
    const [estimate, half] = [Number(summary![1]), Number(summary![2])];
    expect(half).toBeLessThanOrEqual(0.06);
    expect(Math.abs(estimate - truth)).toBeLessThanOrEqual(half);
    const saved =
      /a fixed design needs (\d+) trials per task \((\d+) conversations\) for the same interval: adaptive saved (\d+)/.exec(
        run.stdout,
      );
    expect(saved, run.stdout).not.toBeNull();
    expect(run.stderr).toMatch(/adaptive round 1: mean success .* more trials queued/);

    const tasks = trialsOf(store, runIdOf(run.stderr));
    expect(tasks.size).toBe(50);
    const counts = [...tasks.values()].map((t) => t.trials);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...counts)).toBeLessThanOrEqual(12);
    const total = counts.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(Number(saved![2]));
    expect(run.stdout).toContain(`${total} graded conversations`);
    // The extra trials went to the flaky tasks.
    const mean = (flaky: boolean) => {
      const of = [...tasks].filter(([id]) => {
        const p = spreadSuccessProbability(id);
        return (p > 0 && p < 1) === flaky;
      });
      return of.reduce((sum, [, t]) => sum + t.trials, 0) / of.length;
    };
    expect(mean(true)).toBeGreaterThan(mean(false));

    // The results file holds every trial, numbered per task, with num_trials the guaranteed minimum.
    const file = JSON.parse(readFileSync(results, "utf8")) as {
      info: { num_trials: number };
      simulations: Array<{ task_id: string; trial: number }>;
    };
    expect(file.info.num_trials).toBe(2);
    expect(file.simulations).toHaveLength(total);
    for (const [id, t] of tasks) {
      const trials = file.simulations.filter((s) => s.task_id === id).map((s) => s.trial);
      expect(trials.sort((a, b) => a - b)).toEqual(Array.from({ length: t.trials }, (_, i) => i));
    }
    // pass^k only up to the trials every task has; the run says it is not a leaderboard protocol.
    expect(run.stdout).toContain("pass^2");
    expect(run.stdout).not.toContain("pass^3");
    expect(run.stdout).toMatch(/adaptive trials \(2 to 12 per task/);
    const report = await runCliInProcess(["report", runIdOf(run.stderr), "--store", store], env);
    expect(report.stdout).toContain(`${total} graded conversations`);
    expect(report.stdout).toMatch(/adaptive: mean success rate .* target ± 0\.06 reached/);
  });

  it("a resumed adaptive run keeps going to a tighter target", async () => {
    const first = await runCliInProcess(["runs", "list", "--store", store], env);
    const id = /(\d{8}-\d{6}-[0-9a-f]{4})/.exec(first.stdout)![1]!;
    const before = [...trialsOf(store, id).values()].reduce((a, t) => a + t.trials, 0);
    const resumed = await runCliInProcess(
      ["run", "--resume", id, "--target-ci", "0.045", "--store", store],
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/target ± 0\.045 (reached|not reached)/);
    const after = [...trialsOf(store, id).values()].reduce((a, t) => a + t.trials, 0);
    expect(after).toBeGreaterThan(before);
  });

  it("bad adaptive flags are refused with a sentence, before anything runs", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["--target-ci", "0.05"], /--target-ci only applies to adaptive runs: add --adaptive/],
      [["--adaptive", "--num-trials", "3", "--max-trials", "2"], /--max-trials 2 is below --num-trials 3/],
      [["--adaptive", "--target-ci", "0.7"], /--target-ci must be at most 0\.5/],
      [["--adaptive", "--target-ci", "wide"], /--target-ci must be a half-width between 0 and 0\.5/],
    ];
    for (const [flags, message] of cases) {
      const run = await runCliInProcess(
        ["run", "--domain", "mock", ...agent, ...flags, "--store", path.join(dir, "bad.db")],
        env,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
    }
  });
});
