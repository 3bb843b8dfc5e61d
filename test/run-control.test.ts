import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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
import { mockModelFlags, REPO_ROOT, type CliRun } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { craftedModel } from "./helpers/run-mock-model.js";

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const dir = mkdtempSync(path.join(tmpdir(), "passk-run-control-"));
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-control" };
const prices = path.join(dir, "prices.json");
// Expensive enough that a conversation costs a few cents on the mock's token counts.
writeFileSync(
  prices,
  JSON.stringify({
    models: {
      "openai-compatible:mock-agent": { input_mtok: 20, output_mtok: 40 },
      "openai-compatible:mock-user": { input_mtok: 10, output_mtok: 20 },
    },
  }),
);

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    delayMs: 15,
    script: craftedModel({ tasks: TASKS.map((id) => data.task(id)), trialSeeds: trialSeeds(300, 4) }),
  });
});
afterAll(() => server.close());

const modelFlags = () => [
  ...mockModelFlags(server.baseUrl),
  "--prices",
  prices,
  "--task-ids",
  ...TASKS,
  "--num-trials",
  "4",
  "--progress",
  "lines",
];

function query<T>(store: string, sql: string): T[] {
  const db = new Database(store, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const runIdOf = (run: CliRun) => /run (\S+) · /.exec(run.stdout)![1]!;

describe("passk run: budget, Ctrl-C, several domains, scripted demo", () => {
  it("--max-cost: no conversation starts once the budget is spent; the run ends cleanly, says so, and resumes", async () => {
    const store = path.join(dir, "budget.db");
    const budget = 0.1;
    const run = await runCliInProcess(
      [
        "run",
        "--domain",
        "mock",
        ...modelFlags(),
        "--max-concurrency",
        "1",
        "--max-cost",
        String(budget),
        "--store",
        store,
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const costs = query<{ cost: number }>(
      store,
      "SELECT agent_cost + user_cost AS cost FROM simulations ORDER BY seq",
    ).map((r) => r.cost);
    expect(costs.length).toBeGreaterThan(0);
    expect(costs.length).toBeLessThan(12);
    // One at a time: the last conversation started below the budget and ended at or above it.
    const before = costs.slice(0, -1).reduce((a, b) => a + b, 0);
    const spent = before + costs.at(-1)!;
    expect(before).toBeLessThan(budget);
    expect(spent).toBeGreaterThanOrEqual(budget);
    const id = runIdOf(run);
    expect(run.stdout).toContain(
      `stopped: budget of $${budget} reached ($${spent.toFixed(4)} spent); ${12 - costs.length} conversations not run. ` +
        `Continue with \`passk run --resume ${id} --max-cost <more>\``,
    );
    expect(run.stderr).toMatch(/budget reached: \$[\d.]+ of \$0\.1 spent; no new conversations/);
    expect(query(store, "SELECT status FROM runs")).toEqual([{ status: "interrupted" }]);

    // Resuming with the same budget starts nothing; a larger one finishes the run.
    const same = await runCliInProcess(
      ["run", "--resume", id, "--max-cost", String(budget), "--store", store],
      env,
    );
    expect(same.code).toBe(0);
    expect(query(store, "SELECT COUNT(*) AS n FROM simulations")).toEqual([{ n: costs.length }]);
    const more = await runCliInProcess(["run", "--resume", id, "--max-cost", "100", "--store", store], env);
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout).toContain("completed: 12 conversations stored");
    expect(
      query(store, "SELECT COUNT(*) AS n, COUNT(DISTINCT task_id || '/' || trial) AS keys FROM simulations"),
    ).toEqual([{ n: 12, keys: 12 }]);
  });

  it("runs delete refuses a run a live process is running (its lock), which then completes untouched", async () => {
    const store = path.join(dir, "delete-running.db");
    // Once a conversation is stored, the model holds its answers until the delete was tried: the run
    // (12 conversations) is surely still live then.
    const model = craftedModel({ tasks: TASKS.map((id) => data.task(id)), trialSeeds: trialSeeds(300, 4) });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    server.setScript(async (request) => {
      if (holding) await released;
      return model(request);
    });
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, "bin", "passk.js"),
        "run",
        "--domain",
        "mock",
        ...modelFlags(),
        "--max-concurrency",
        "1",
        "--store",
        store,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const running = () =>
      existsSync(store) &&
      query(store, "SELECT name FROM sqlite_master WHERE name = 'simulations'").length > 0 &&
      query<{ n: number }>(store, "SELECT COUNT(*) AS n FROM simulations")[0]!.n > 0;
    while (!running()) await new Promise((resolve) => setTimeout(resolve, 10));
    holding = true;
    const id = query<{ id: string }>(store, "SELECT id FROM runs")[0]!.id;
    const refused = await runCliInProcess(["runs", "delete", id, "--store", store], env);
    release();
    server.setScript(model);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error: run ${id} is being run by process ${child.pid} on this machine`);
    expect(await exited, stderr).toBe(0);
    expect(query(store, "SELECT status FROM runs")).toEqual([{ status: "completed" }]);
    // Once it ended, it can go.
    const deleted = await runCliInProcess(["runs", "delete", id, "--store", store], env);
    expect(deleted.code, deleted.stderr).toBe(0);
  });

  it("Ctrl-C: conversations in flight finish and are stored, nothing new starts, exit 130, resumable", async () => {
    const store = path.join(dir, "interrupt.db");
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, "bin", "passk.js"),
        "run",
        "--domain",
        "mock",
        ...modelFlags(),
        "--max-concurrency",
        "2",
        "--store",
        store,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const stored = () =>
      existsSync(store) &&
      query(store, "SELECT name FROM sqlite_master WHERE name = 'simulations'").length > 0
        ? query<{ n: number }>(store, "SELECT COUNT(*) AS n FROM simulations")[0]!.n
        : 0;
    while (stored() < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("stopping: no new conversations; waiting for those in flight");
    const jobs = query<{ state: string; n: number }>(
      store,
      "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state",
    );
    const count = (state: string) => jobs.find((j) => j.state === state)?.n ?? 0;
    expect(count("claimed")).toBe(0);
    expect(count("done")).toBe(stored());
    expect(count("queued")).toBe(12 - stored());
    expect(count("queued")).toBeGreaterThan(0);
    expect(query(store, "SELECT status FROM runs")).toEqual([{ status: "interrupted" }]);
    const id = runIdOf({ code: 130, stdout, stderr });
    expect(stdout).toContain(
      `interrupted: ${count("queued")} conversations not run. Continue with \`passk run --resume ${id}\``,
    );

    const resumed = await runCliInProcess(
      ["run", "--resume", id, "--store", store, "--progress", "none"],
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(
      query(store, "SELECT COUNT(*) AS n, COUNT(DISTINCT task_id || '/' || trial) AS keys FROM simulations"),
    ).toEqual([{ n: 12, keys: 12 }]);
  });

  it("Ctrl-C twice: conversations in flight are abandoned unstored (never graded as failures)", async () => {
    const slow = await startMockLlmServer({
      delayMs: 3000,
      script: craftedModel({ tasks: TASKS.map((id) => data.task(id)), trialSeeds: trialSeeds(300, 4) }),
    });
    try {
      const store = path.join(dir, "abort.db");
      const flags = modelFlags().map((f) => (f === server.baseUrl ? slow.baseUrl : f));
      const child = spawn(
        process.execPath,
        [
          path.join(REPO_ROOT, "bin", "passk.js"),
          "run",
          "--domain",
          "mock",
          ...flags,
          "--max-concurrency",
          "3",
          "--store",
          store,
        ],
        { cwd: REPO_ROOT, env: { ...process.env, ...env } },
      );
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      while (slow.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
      const started = Date.now();
      child.kill("SIGINT");
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(Date.now() - started).toBeLessThan(2500); // did not wait for the 3 s replies
      expect(stderr).toContain(
        "stopping now: conversations in flight are abandoned and will run again on resume",
      );
      expect(query(store, "SELECT COUNT(*) AS n FROM simulations")).toEqual([{ n: 0 }]);
      expect(query(store, "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state")).toEqual([
        { state: "queued", n: 12 },
      ]);
    } finally {
      await slow.close();
    }
  });

  it("several domains in one run, keyless: every output says it is a scripted demo", async () => {
    const store = path.join(dir, "demo.db");
    const saveTo = path.join(dir, "demo.json");
    const run = await runCliInProcess(
      [
        "run",
        "--domain",
        "mock,airline",
        "--agent-llm",
        "scripted:gold",
        "--user-llm",
        "scripted:gold",
        "--num-tasks",
        "2",
        "--num-trials",
        "2",
        "--max-concurrency",
        "4",
        "--store",
        store,
        "--save-to",
        saveTo,
        "--progress",
        "lines",
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const notice = "scripted demo: scripted:gold plays the task's gold actions — this is not a model's score";
    expect(run.stdout.startsWith(`# ${notice}\n`)).toBe(true);
    expect(run.stdout).toMatch(
      /\[scripted demo\] run \S+ · mock, airline · scripted:gold \(agent and user\)/,
    );
    expect(
      run.stderr
        .split("\n")
        .filter((l) => / done \| /.test(l))
        .every((l) => l.startsWith("[scripted demo] ")),
    ).toBe(true);
    // One row for all, one per domain: 2 tasks × 2 trials each, all gold, all pass.
    expect(run.stdout).toMatch(/^all\s+4\s+8\s+0\s+1\.000/m);
    expect(run.stdout).toMatch(/^airline\s+2\s+4\s+0\s+1\.000/m);
    expect(run.stdout).toMatch(/^mock\s+2\s+4\s+0\s+1\.000/m);
    for (const domain of ["mock", "airline"]) {
      const file = path.join(dir, `demo.${domain}.json`);
      const { results, raw } = parseResults(readFileSync(file, "utf8"), file);
      expect(results.simulations).toHaveLength(4);
      expect(raw.info.environment_info).toMatchObject({ domain_name: domain });
      expect(raw.info).toMatchObject({ passk: { scripted_demo: true, notice } });
      expect(results.simulations.every((s) => s.task_id.length > 0)).toBe(true);
    }
    const [stored] = query<{ label: string; config: string }>(store, "SELECT label, config FROM runs");
    expect(stored!.label).toBe("scripted demo");
    expect(JSON.parse(stored!.config)).toMatchObject({ scriptedDemo: true, domains: ["mock", "airline"] });
    // Reading the results back says so too.
    const mockFile = path.join(dir, "demo.mock.json");
    const runId = /run (\S+) · mock, airline/.exec(run.stdout)![1]!;
    for (const args of [
      ["report", mockFile],
      ["score", mockFile],
      ["runs", "show", runId, "--store", store],
      ["compare", mockFile, path.join(dir, "demo.airline.json")],
    ]) {
      const shown = await runCliInProcess(args, env);
      expect(shown.code, `${args.join(" ")}: ${shown.stderr}`).toBe(0);
      expect(shown.stdout, args.join(" ")).toMatch(/scripted demo/);
    }
    for (const args of [
      ["report", mockFile, "--json"],
      ["score", mockFile, "--json"],
    ]) {
      const shown = await runCliInProcess(args, env);
      expect(JSON.parse(shown.stdout), args.join(" ")).toMatchObject({ scripted_demo: true });
    }
  });

  it("the same command with the same --save-to continues from the file when the store does not have the run", async () => {
    const saveTo = path.join(dir, "adopt.json");
    const command = (store: string) => [
      "run",
      "--domain",
      "mock",
      "--agent-llm",
      "scripted:gold",
      "--num-tasks",
      "3",
      "--num-trials",
      "2",
      "--save-to",
      saveTo,
      "--store",
      store,
      "--progress",
      "none",
    ];
    const first = await runCliInProcess(command(path.join(dir, "adopt-a.db")), env);
    expect(first.code, first.stderr).toBe(0);
    const written = readFileSync(saveTo, "utf8");
    const again = await runCliInProcess(command(path.join(dir, "adopt-b.db")), env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`resuming run ${runIdOf(first)}: 6 conversations`);
    expect(again.stdout).toContain("completed: 6 conversations stored in");
    expect(again.stdout).toContain("(this session ran 0)");
    expect(readFileSync(saveTo, "utf8")).toBe(written);
  });

  it("infrastructure errors that outlast the attempts are stored, excluded and counted, and re-run on resume", async () => {
    const flaky = await startMockLlmServer({
      script: craftedModel({
        tasks: TASKS.map((id) => data.task(id)),
        trialSeeds: trialSeeds(300, 2),
        infraFailures: (task, trial) => (task === "update_task_1" && trial === 1 ? 2 : 0),
      }),
    });
    try {
      const store = path.join(dir, "infra.db");
      const flags = modelFlags().map((f) => (f === server.baseUrl ? flaky.baseUrl : f === "4" ? "2" : f));
      const first = await runCliInProcess(
        ["run", "--domain", "mock", ...flags, "--max-retries", "1", "--max-attempts", "2", "--store", store],
        env,
      );
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^mock\s+3\s+5\s+1\s+1\.000/m);
      expect(first.stdout).toContain("termination reasons: user_stop 5, infrastructure_error 1");
      expect(first.stdout).toContain(
        "* mock: graded 5 of 6 conversations — 1 not graded (infrastructure errors); the marked scores cover the graded 5 only",
      );
      expect(
        query(store, "SELECT state, attempts FROM jobs WHERE task_id = 'update_task_1' AND trial = 1"),
      ).toEqual([{ state: "failed", attempts: 2 }]);

      const resumed = await runCliInProcess(
        ["run", "--resume", runIdOf(first), "--store", store, "--progress", "none"],
        env,
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain("(this session ran 1)");
      expect(resumed.stdout).toMatch(/^mock\s+3\s+6\s+0\s+1\.000/m);
      expect(
        query(
          store,
          "SELECT termination_reason FROM simulations WHERE task_id = 'update_task_1' AND trial = 1",
        ),
      ).toEqual([{ termination_reason: "user_stop" }]);
    } finally {
      await flaky.close();
    }
  });
});
