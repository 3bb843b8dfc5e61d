import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { parseResults } from "../src/formats/tau2/results.js";
import { trialSeeds } from "../src/runner/run-plan.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mockModelFlags, runCli } from "./helpers/run-cli.js";
import { craftedModel } from "./helpers/run-mock-model.js";

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const SEEDS = trialSeeds(300, 4);
const dir = mkdtempSync(path.join(tmpdir(), "passk-run-"));
const prices = path.join(dir, "prices.json");
writeFileSync(
  prices,
  JSON.stringify({
    models: {
      "openai-compatible:mock-agent": { input_mtok: 1, output_mtok: 2 },
      "openai-compatible:mock-user": { input_mtok: 0.5, output_mtok: 1 },
    },
  }),
);

/**
 * The crafted rewards (4 trials each): create_task_1 passes 4 of 4, update_task_1 2 of 4 (trials 0
 * and 2; trial 3 first hits a provider outage and is retried), impossible_task_1 1 of 4 (trial 0).
 */
const PASSING: Record<string, number[]> = {
  create_task_1: [0, 1, 2, 3],
  update_task_1: [0, 2],
  impossible_task_1: [0],
};

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    delayMs: 5,
    script: craftedModel({
      tasks: TASKS.map((id) => data.task(id)),
      trialSeeds: SEEDS,
      outcome: (task, trial) => (PASSING[task]!.includes(trial) ? "pass" : "fail"),
      infraFailures: (task, trial) => (task === "update_task_1" && trial === 3 ? 1 : 0),
    }),
  });
});
afterAll(() => server.close());

const env = () => ({ PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-run" });
const modelFlags = () => [...mockModelFlags(server.baseUrl), "--max-retries", "1", "--prices", prices];

describe("passk run against the mock model (3 tasks × 4 trials, concurrency 4)", () => {
  const store = path.join(dir, "passk.db");
  const saveTo = path.join(dir, "results.json");
  const junit = path.join(dir, "junit.xml");
  let run: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    run = await runCli(
      [
        "run",
        "--domain",
        "mock",
        ...modelFlags(),
        "--task-ids",
        ...TASKS,
        "--num-trials",
        "4",
        "--max-concurrency",
        "4",
        "--store",
        store,
        "--save-to",
        saveTo,
        "--junit",
        junit,
        "--fail-under",
        "pass^1=0.5,pass^2=0.5",
        "--progress-interval",
        "0.05",
      ],
      { env: env() },
    );
  });

  it("stores every (task, trial) once, with the trial's seed", () => {
    const db = new Database(store, { readonly: true });
    const rows = db
      .prepare(
        "SELECT task_id, trial, COUNT(*) AS n, MAX(termination_reason) AS reason FROM simulations GROUP BY task_id, trial",
      )
      .all() as Array<{ task_id: string; trial: number; n: number }>;
    db.close();
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const results = JSON.parse(readFileSync(saveTo, "utf8"));
    for (const s of results.simulations) expect(s.seed).toBe(SEEDS[s.trial]);
  });

  it("writes a results file in the official shape, with the reference's field order", () => {
    const text = readFileSync(saveTo, "utf8");
    const { results } = parseResults(text, saveTo);
    const raw = JSON.parse(text);
    expect(Object.keys(raw)).toEqual(["timestamp", "info", "tasks", "simulations"]);
    expect(Object.keys(raw.info).slice(0, 8)).toEqual([
      "git_commit",
      "num_trials",
      "max_steps",
      "max_errors",
      "user_info",
      "agent_info",
      "environment_info",
      "seed",
    ]);
    expect(raw.info).toMatchObject({
      num_trials: 4,
      seed: 300,
      max_steps: 200,
      max_errors: 10,
      agent_info: { implementation: "llm_agent", llm: "openai-compatible:mock-agent" },
      user_info: { implementation: "user_simulator", llm: "openai-compatible:mock-user" },
      environment_info: { domain_name: "mock", policy: data.policy, tool_defs: null },
    });
    expect(raw.info.user_info.global_simulation_guidelines).toContain("# User Simulation Guidelines");
    expect(Object.keys(raw.simulations[0])).toEqual([
      "id",
      "task_id",
      "timestamp",
      "start_time",
      "end_time",
      "duration",
      "termination_reason",
      "agent_cost",
      "user_cost",
      "reward_info",
      "messages",
      "trial",
      "seed",
    ]);
    expect(results.tasks.map((t) => t.id)).toEqual(TASKS);
    expect(results.simulations).toHaveLength(12);
    // Rewards as crafted: each (task, trial) passes exactly when planned.
    const rewards = Object.fromEntries(
      results.simulations.map((s) => [`${s.task_id}/${s.trial}`, s.reward_info?.reward]),
    );
    for (const task of TASKS)
      for (let trial = 0; trial < 4; trial++)
        expect(rewards[`${task}/${trial}`], `${task}/${trial}`).toBe(PASSING[task]!.includes(trial) ? 1 : 0);
  });

  it("prints pass^k equal to the hand-computed values, and the cost per conversation", () => {
    expect(run.code, run.stderr).toBe(1); // pass^2 = 0.389 < 0.5
    // pass^k = mean over tasks of C(c,k)/C(4,k) with c = 4, 2, 1:
    // k=1 (1+1/2+1/4)/3 = 0.583, k=2 (1+1/6+0)/3 = 0.389, k=3 = k=4 = 1/3; pass@4 = 1.
    const row = run.stdout.split("\n").find((l) => l.startsWith("mock "))!;
    expect(row).toMatch(
      /^mock\s+3\s+12\s+0\s+0\.583\s+0\.583 \[[\d.]+, [\d.]+\]\s+0\.389 \[[\d.]+, [\d.]+\]\s+0\.333 \[[\d.]+, [\d.]+\]\s+0\.333 \[[\d.]+, [\d.]+\]\s+1\.000/,
    );
    expect(run.stdout).toContain("termination reasons: user_stop 12");
    expect(run.stdout).toContain("PASS pass^1=0.5: 0.5833");
    expect(run.stdout).toContain("FAIL pass^2=0.5: 0.3889 (0.3889 < 0.5)");
    // Cost: every model message priced from its usage (agent $1/$2, user $0.5/$1 per million tokens).
    const results = JSON.parse(readFileSync(saveTo, "utf8"));
    let total = 0;
    for (const s of results.simulations) {
      let agent = 0;
      let user = 0;
      for (const m of s.messages) {
        if (!m.usage) continue;
        if (m.role === "assistant")
          agent += (m.usage.prompt_tokens * 1 + m.usage.completion_tokens * 2) / 1e6;
        if (m.role === "user") user += (m.usage.prompt_tokens * 0.5 + m.usage.completion_tokens * 1) / 1e6;
      }
      expect(s.agent_cost).toBeCloseTo(agent, 12);
      expect(s.user_cost).toBeCloseTo(user, 12);
      total += agent + user;
    }
    expect(total).toBeGreaterThan(0);
    expect(run.stdout).toContain(`$${(total / 12).toFixed(4)} per conversation`);
  });

  it("retried the provider outage: the (task, trial) counts once, evaluated", () => {
    const db = new Database(store, { readonly: true });
    const job = db
      .prepare("SELECT state, attempts FROM jobs WHERE task_id = 'update_task_1' AND trial = 3")
      .get();
    db.close();
    expect(job).toEqual({ state: "done", attempts: 2 });
    expect(run.stderr).toMatch(/errors: infrastructure_error 1 \(1 retried\)/);
  });

  it("prints plain progress lines when not on a terminal", () => {
    const lines = run.stderr.split("\n").filter((l) => / done \| /.test(l));
    expect(lines[0]).toMatch(/^0\/12 done \| 0 passed \|/);
    expect(lines.at(-1)).toMatch(/^12\/12 done \| 7 passed \| 0 running \| \$[\d.]+ \| ETA 0s \|/);
  });

  it("writes a JUnit report: one test case per task, failures carry the failed checks", () => {
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/<testsuites name="passk run [^"]+" tests="3" failures="2" errors="0" skipped="0"/);
    expect(xml).toMatch(
      /<testcase classname="passk.mock" name="create_task_1" time="[\d.]+">\n\s+<system-out>/,
    );
    expect(xml).toContain(
      '<failure message="passed 2 of 4 trials" type="reliability">2× DB: final database differs from the gold database</failure>',
    );
    expect(xml).toContain(
      '<failure message="passed 1 of 4 trials" type="reliability">3× ACTION: missing transfer_to_human_agents({&quot;summary&quot;:',
    );
    expect(xml).toContain(
      "trial 1 ✗ reward 0 (user_stop)\n    DB: final database differs from the gold database\ntrial 2 ✓",
    );
  });

  it("running the same command again finds the run finished: nothing re-run, same file", async () => {
    const before = readFileSync(saveTo, "utf8");
    const requests = server.requests.length;
    const again = await runCli(
      [
        "run",
        "--domain",
        "mock",
        ...modelFlags(),
        "--task-ids",
        ...TASKS,
        "--num-trials",
        "4",
        "--max-concurrency",
        "4",
        "--store",
        store,
        "--save-to",
        saveTo,
      ],
      { env: env() },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("resuming run");
    expect(server.requests.length).toBe(requests);
    expect(readFileSync(saveTo, "utf8")).toBe(before);
  });
});
