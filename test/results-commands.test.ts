import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { formatResults, type ResultsInput } from "../src/formats/tau2/results.js";
import { MIGRATIONS, STORE_SCHEMA_VERSION } from "../src/store/schema.js";
import { runReport, runReportJson } from "../src/runner/run-report.js";
import { Store } from "../src/store/store.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";
import {
  AIRLINE_RUN_EXPECTED,
  AIRLINE_RUN_PLAN,
  buildOfficialResults,
  MOCK_RUN_EXPECTED,
  MOCK_RUN_PLAN,
  type TrialPlan,
} from "./helpers/official-results.js";

const dataDir = tau2DataDir();
const work = mkdtempSync(path.join(tmpdir(), "passk-results-cli-"));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the passk CLI in-process (same program as the binary), streams captured. */
const passk = (...args: string[]): Promise<Outcome> =>
  runCliInProcess(args, { PASSK_DATA_DIR: dataDir, PASSK_STORE: path.join(work, "default.db") });

function writeResults(name: string, results: ResultsInput): string {
  const file = path.join(work, name);
  writeFileSync(file, formatResults(results));
  return file;
}

const mock = new DomainData(builtinDomains.get("mock")!, dataDir);
let official: ResultsInput;
let officialFile: string;

beforeAll(() => {
  official = buildOfficialResults(mock, MOCK_RUN_PLAN);
  officialFile = writeResults("mock-official.json", official);
});

describe("the synthetic official results file", () => {
  it("records the rewards planned by hand (broken trials score 0)", () => {
    expect(official.simulations.map((s) => s.reward_info?.reward)).toEqual(MOCK_RUN_EXPECTED.rewards);
  });
});

describe("passk score", () => {
  it("recomputes every recorded reward from the messages", async () => {
    const run = await passk("score", officialFile, "--json");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(Object.keys(output.simulations[0])).toEqual([
      "id",
      "task_id",
      "trial",
      "recorded_reward",
      "reward",
    ]);
    expect(output.simulations.map((s: { reward: number }) => s.reward)).toEqual(MOCK_RUN_EXPECTED.rewards);
    expect(output.simulations.map((s: { recorded_reward: number }) => s.recorded_reward)).toEqual(
      MOCK_RUN_EXPECTED.rewards,
    );
    expect(output.metrics.pass_hat_ks["1"]).toBeCloseTo(MOCK_RUN_EXPECTED.passHat[1], 12);
    expect(output.summary).toMatchObject({ simulations: 18, matching: 18, differing: 0 });
  });

  it("flags a published reward that the messages do not support (exit code 1)", async () => {
    const tampered = structuredClone(official);
    tampered.simulations[4]!.reward_info!.reward = 1; // the wrong-final-message trial
    const run = await passk("score", writeResults("tampered.json", tampered));
    expect(run.code).toBe(1);
    const line = run.stdout.split("\n").find((l) => l.startsWith(tampered.simulations[4]!.id))!;
    expect(line).toMatch(/update_task_with_initialization_data\s+1\s+1\.000\s+0\.000\s+DIFFERS/);
    expect(run.stdout).toContain("17 of 18 simulations reproduce their recorded reward; 1 differ");
  });

  it("uses the data directory's tasks when the file embeds none", async () => {
    const run = await passk("score", writeResults("no-tasks.json", { ...official, tasks: [] }), "--json");
    expect(JSON.parse(run.stdout).simulations.map((s: { reward: number }) => s.reward)).toEqual(
      MOCK_RUN_EXPECTED.rewards,
    );
  });

  it("grades against the official tasks, and says loudly (exit 1) that the file's own tasks differ", async () => {
    // Embed a changed task: communicating "a refund of 1234" is now required of create_task_1.
    const changed = structuredClone(official);
    const task = changed.tasks.find((t) => t.id === "create_task_1")!;
    task.evaluation_criteria = { ...task.evaluation_criteria, communicate_info: ["a refund of 1234"] };
    const file = writeResults("changed-task.json", changed);
    const audit = await passk("score", file, "--json");
    expect(audit.code).toBe(1);
    expect(audit.stderr).toContain("DISAGREES WITH THE OFFICIAL DATA");
    expect(audit.stderr).toContain(
      "1 task(s) embedded in the file are graded differently from the official mock tasks (create_task_1)",
    );
    const graded = JSON.parse(audit.stdout);
    expect(graded.simulations.map((s: { reward: number }) => s.reward)).toEqual(MOCK_RUN_EXPECTED.rewards);
    expect(graded.audit).toMatchObject({ domain: "mock", tasks: "official" });
    // Trusting the file's tasks (explicitly) grades against them instead.
    const trusted = await passk("score", file, "--json", "--trust-embedded-tasks");
    const rewards = JSON.parse(trusted.stdout).simulations.map((s: { reward: number }) => s.reward);
    expect(rewards.slice(0, 3)).toEqual([0, 0, 0]);
    expect(trusted.stderr).toContain("graded against the file's own tasks (--trust-embedded-tasks)");
    expect(trusted.code).toBe(1); // the recorded rewards are not what those tasks give
  });

  it("catches a run stripped of its tool calls whose tasks were emptied to match", async () => {
    const stripped = structuredClone(official);
    for (const task of stripped.tasks)
      task.evaluation_criteria = {
        actions: [],
        env_assertions: [],
        communicate_info: [],
        nl_assertions: [],
        reward_basis: [],
      };
    for (const simulation of stripped.simulations) {
      simulation.messages = simulation.messages
        .filter((m) => m.role !== "tool")
        .map((m) => ({ ...m, tool_calls: null }));
      simulation.reward_info = { ...simulation.reward_info!, reward: 1 };
    }
    const run = await passk("score", writeResults("stripped.json", stripped), "--json");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\d+ task\(s\) embedded in the file are graded differently/);
    const output = JSON.parse(run.stdout);
    expect(output.summary.differing).toBeGreaterThan(0);
  });

  it("refuses a file whose tasks are not the declared domain's, naming the discrepancy", async () => {
    const relabelled = structuredClone(official);
    relabelled.info.environment_info = { ...relabelled.info.environment_info, domain_name: "retail" };
    const run = await passk("score", writeResults("relabelled.json", relabelled));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /disagrees with the official retail data: .*are not official retail tasks \(create_task_1/,
    );
    expect(run.stderr).toContain("--trust-embedded-tasks");
  });
});

describe("passk score with natural-language assertions", () => {
  it("reuses the verdicts recorded in the file, and treats a missing verdict as unjudged", async () => {
    const file = structuredClone(official);
    const task = file.tasks.find((t) => t.id === "create_task_1")!;
    const assertion = "The agent confirmed the task was created successfully";
    task.evaluation_criteria = {
      ...task.evaluation_criteria,
      nl_assertions: [assertion],
      reward_basis: ["DB", "NL_ASSERTION"],
    };
    const [t0, t1, t2] = file.simulations.slice(0, 3);
    t0!.reward_info = {
      ...t0!.reward_info!,
      reward: 1,
      nl_assertions: [{ nl_assertion: assertion, met: true, justification: "ok" }],
    };
    t1!.reward_info = {
      ...t1!.reward_info!,
      reward: 0,
      nl_assertions: [{ nl_assertion: assertion, met: false, justification: "no" }],
    };
    t2!.reward_info = { ...t2!.reward_info!, reward: 0, nl_assertions: null };
    const run = await passk("score", writeResults("nl.json", file), "--json", "--trust-embedded-tasks");
    const output = JSON.parse(run.stdout);
    expect(output.simulations.slice(0, 3).map((s: { reward: number }) => s.reward)).toEqual([1, 0, 1]);
    expect(output.summary).toMatchObject({
      differing: 0,
      nl_verdicts_reused: 2,
      nl_assertions_not_judged: 1,
    });
    expect(run.code).toBe(0);
  });
});

describe.runIf(builtinDomains.has("airline"))("passk score and report on an airline run", () => {
  it("reproduces the planned rewards and the hand-computed pass^k", async () => {
    const airline = new DomainData(builtinDomains.get("airline")!, dataDir);
    const file = writeResults("airline-official.json", buildOfficialResults(airline, AIRLINE_RUN_PLAN));
    const recorded = JSON.parse(readFileSync(file, "utf8")).simulations.map(
      (s: { reward_info: { reward: number } }) => s.reward_info.reward,
    );
    expect(recorded).toEqual(AIRLINE_RUN_EXPECTED.rewards);
    const run = await passk("score", file, "--json");
    expect(run.code).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(output.simulations.map((s: { reward: number }) => s.reward)).toEqual(AIRLINE_RUN_EXPECTED.rewards);
    for (const [k, value] of Object.entries(AIRLINE_RUN_EXPECTED.passHat)) {
      expect(output.metrics.pass_hat_ks[k]).toBeCloseTo(value, 12);
    }
    const report = JSON.parse((await passk("report", file, "--json")).stdout);
    expect(report.metrics.pass_hat_ks).toEqual(output.metrics.pass_hat_ks);
    const task7 = report.failing_tasks.find((t: { task_id: string }) => t.task_id === "7");
    expect(task7.checks.map((c: { kind: string; check: string }) => `${c.kind}: ${c.check}`)).toEqual([
      "DB: final database differs from the gold database",
      'COMMUNICATE: did not communicate "1628"',
    ]);
  });

  it("says loudly when an airline run claims to be retail (same task ids, another domain's tools)", async () => {
    const airline = new DomainData(builtinDomains.get("airline")!, dataDir);
    const lying = buildOfficialResults(airline, AIRLINE_RUN_PLAN);
    lying.info.environment_info = { ...lying.info.environment_info, domain_name: "retail" };
    lying.tasks = [];
    const run = await passk("score", writeResults("airline-as-retail.json", lying), "--json");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /the trajectories call \d+ tool\(s\) that retail does not have and airline does \(.*\): the file's declared domain .* looks wrong/,
    );
  });
});

describe("passk report", () => {
  it("runReportJson names each section in snake_case and leaves out those the run has none of", () => {
    const report = runReport(officialFile, { env: { PASSK_DATA_DIR: dataDir } });
    const json = runReportJson(report);
    expect(json).toMatchObject({
      source: officialFile,
      metrics: report.metrics,
      failing_tasks: report.failingTasks,
    });
    expect(json.task_statistics).toBe(report.taskStatistics);
    expect(json.token_usage).toBe(report.tokenUsage);
    expect(Object.keys(json)).not.toContain("robustness");
    expect(Object.keys(json)).not.toContain("task_issues");
    expect(Object.keys(json)).not.toContain("metrics_excluding_not_the_agents_failures");
  });

  it("gives pass^k, pass@k and average reward equal to the hand-computed values", () => {
    const { metrics, failingTasks: failing } = runReport(officialFile, { env: { PASSK_DATA_DIR: dataDir } });
    expect(Object.keys(metrics.pass_hat_ks)).toEqual(["1", "2"]);
    expect(metrics.pass_hat_ks["1"]).toBeCloseTo(MOCK_RUN_EXPECTED.passHat[1], 12);
    expect(metrics.pass_hat_ks["2"]).toBeCloseTo(MOCK_RUN_EXPECTED.passHat[2], 12);
    expect(metrics.pass_at_ks["2"]).toBeCloseTo(MOCK_RUN_EXPECTED.passAt2, 12);
    expect(metrics.avg_reward).toBeCloseTo(MOCK_RUN_EXPECTED.avgReward, 12);
    expect(metrics.infra_error_count).toBe(1);
    expect(metrics.termination_reasons).toEqual({ user_stop: 16, max_steps: 1, infrastructure_error: 1 });
    expect(Object.keys(metrics.by_domain)).toEqual(["mock"]);
    expect(failing[0]).toMatchObject({ task_id: "update_task_with_user_tools", failures: 3, trials: 3 });
    const updateTask = failing.find((t) => t.task_id === "update_task_1");
    expect(updateTask?.checks).toEqual([
      { kind: "DB", check: "final database differs from the gold database", count: 1 },
      { kind: "TERMINATION", check: "conversation ended with max_steps", count: 1 },
    ]);
  });

  it("prints a table with the intervals and the failed checks", async () => {
    const run = await passk("report", officialFile);
    expect(run.stdout).toMatch(
      /mock\s+6\s+17\s+1\s+0\.588\*\s+0\.611\* \[\d\.\d\d, \d\.\d\d\]\s+0\.444\* \[/,
    );
    expect(run.stdout).toContain("* mock: graded 17 of 18 conversations");
    expect(run.stdout).toContain("termination reasons: user_stop 16, max_steps 1, infrastructure_error 1");
    expect(run.stdout).toContain("mock/update_task_1  failed 2/3");
    expect(run.stdout).toContain(
      '1× COMMUNICATE: did not communicate "The agent acknowledged the previous context"',
    );
  });

  it("refuses a --seed or --top that is not a whole number, naming the flag", async () => {
    for (const args of [
      ["report", officialFile, "--seed", "abc"],
      ["report", officialFile, "--top", "-1"],
      ["score", officialFile, "--seed", "1.5"],
    ]) {
      const run = await passk(...args);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/--(seed|top) "[^"]+" is not a whole number/);
      expect(run.stdout).toBe("");
    }
  });
});

describe("the store: import, export, runs, report, compare", () => {
  const store = path.join(work, "runs.db");

  it("imports an official file and exports it back JSON-equal", async () => {
    const imported = await passk("import", officialFile, "--store", store, "--id", "official");
    expect(imported.stdout).toBe(
      `imported ${officialFile} as run official: 18 simulations, 6 tasks (mock)\n`,
    );
    const out = path.join(work, "exported.json");
    const exported = await passk("export", "official", "--store", store, "-o", out);
    expect(exported.code).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(JSON.parse(readFileSync(officialFile, "utf8")));
    expect(readFileSync(out, "utf8")).toBe(readFileSync(officialFile, "utf8"));
  });

  it("round-trips fields passk does not know", async () => {
    const withExtras = JSON.parse(readFileSync(officialFile, "utf8"));
    withExtras.simulation_index = [{ id: "x" }];
    withExtras.simulations[0].mode = "half_duplex";
    withExtras.simulations[0].messages[0].raw_data = { provider: { nested: [1, 2] } };
    const file = path.join(work, "extras.json");
    writeFileSync(file, JSON.stringify(withExtras));
    await passk("import", file, "--store", store, "--id", "extras");
    const exported = await passk("export", "extras", "--store", store);
    expect(JSON.parse(exported.stdout)).toEqual(withExtras);
  });

  it("reports a stored run exactly as its file", () => {
    const env = { PASSK_DATA_DIR: dataDir };
    const fromStore = runReport("official", { store, env });
    const fromFile = runReport(officialFile, { env });
    expect(fromStore.metrics).toEqual(fromFile.metrics);
    expect(fromStore.tokenUsage).toEqual(fromFile.tokenUsage);
    expect(fromStore.source.label).toBe("run official");
  });

  it("lists, shows and deletes runs", async () => {
    const list = await passk("runs", "list", "--store", store);
    expect(list.stdout).toMatch(
      /official\s+\S+ \S+\s+imported\s+mock\s+gpt-4\.1\s+3\s+18\s+0\.588\s+0\.611 \(graded 17 of 18\)\s+mock-official\.json/,
    );
    const show = await passk("runs", "show", "offi", "--store", store);
    expect(show.stdout).toContain("run official (mock-official.json)");
    expect(show.stdout).toContain("status:   imported");
    const deleted = await passk("runs", "delete", "extras", "--store", store);
    expect(deleted.stdout).toBe("deleted run extras (18 simulations)\n");
    const json = JSON.parse((await passk("runs", "list", "--store", store, "--json")).stdout);
    expect(json.map((r: { id: string }) => r.id)).toEqual(["official"]);
  });

  it("compares two runs task by task and lists the regressions", async () => {
    const worse: TrialPlan[] = MOCK_RUN_PLAN.map((p) =>
      p.task === "create_task_1" && p.trial === 1 ? { ...p, variant: "max_steps" } : p,
    );
    const candidate = writeResults("candidate.json", buildOfficialResults(mock, worse));
    const run = await passk("compare", "official", candidate, "--store", store, "--json");
    const comparison = JSON.parse(run.stdout);
    expect(comparison.k).toBe(2);
    expect(comparison.regressed.map((t: { task_id: string }) => t.task_id)).toEqual(["create_task_1"]);
    expect(comparison.regressed[0].before).toEqual([1, 1]);
    // 2 of 3 pass: pass^1 = 2/3, pass^2 = C(2,2)/C(3,2) = 1/3
    expect(comparison.regressed[0].after[0]).toBeCloseTo(2 / 3, 15);
    expect(comparison.regressed[0].after[1]).toBeCloseTo(1 / 3, 15);
    const table = await passk("compare", "official", candidate, "--store", store);
    expect(table.stdout).toMatch(/mock\/create_task_1\s+1\.00 → 0\.67\s+1\.00 → 0\.33\s+regressed/);
    // One trial lost on one task of six: no evidence of a real difference, and it says what could be seen.
    expect(comparison.significance).toMatchObject({ tasks: 6, p_method: "exact", distinguishable: false });
    expect(comparison.significance.difference).toBeCloseTo(-1 / 18, 12);
    expect(table.stdout).toMatch(
      /B − A success rate: −0\.056 \[95% CI −0\.\d{3}, [+−]0\.\d{3}\] \(p = 1\.000, paired sign-flip test over 6 tasks, exact\): not distinguishable at α = 0\.05\. With this many tasks and trials, differences below 0\.\d{3} go undetected/,
    );
  });
});

describe("statistics commands", () => {
  it("plan: trials per task to detect a difference, with the trade-off table", async () => {
    const run = await passk("plan", "--tasks", "50", "--detect", "0.1");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "8 trials per task (400 conversations per run) to detect a difference of 0.1",
    );
    expect(run.stdout).toMatch(/^4\s+200\s+0\.140$/m);
    const bad = await passk("plan", "--tasks", "50", "--detect", "2");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--detect");
  });

  it("report: tasks that always pass, always fail, or are flaky, with Wilson intervals", async () => {
    const run = await passk("report", officialFile);
    expect(run.stdout).toMatch(
      /tasks: \d+ always pass, \d+ always fail, \d+ flaky \(pass in some trials, fail in others\)/,
    );
    const flaky = runReport(officialFile, { env: { PASSK_DATA_DIR: dataDir } }).taskStatistics.filter(
      (t) => t.flaky,
    );
    for (const t of flaky) expect(t.interval.low).toBeLessThan(t.success_rate);
  });
});

describe("the passk binary", () => {
  it("has the results commands registered", async () => {
    const run = await runCli(["report", officialFile, "--json"], { env: { PASSK_DATA_DIR: dataDir } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).metrics.pass_hat_ks["2"]).toBeCloseTo(MOCK_RUN_EXPECTED.passHat[2], 12);
  });
});

describe("bad input", () => {
  it("a corrupt results file is a clear error", async () => {
    const file = path.join(work, "corrupt.json");
    writeFileSync(file, readFileSync(officialFile, "utf8").slice(0, 5000));
    const run = await passk("report", file);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: .*corrupt\.json is not valid \(1 problem\):\n {2}- line \d+, column \d+/,
    );
  });

  it("a store of another schema version names both versions and the fix", async () => {
    const file = path.join(work, "future.db");
    Store.open(file, {
      migrations: [...MIGRATIONS, { version: 9, description: "future", up: () => {} }],
    }).close();
    const run = await passk("runs", "list", "--store", file);
    expect(run.stderr).toMatch(
      new RegExp(
        `has store schema version 9 .*this passk reads schema version ${STORE_SCHEMA_VERSION} at most\\. Upgrade passk`,
      ),
    );
  });

  it("a missing store is not created by read-only commands", async () => {
    const run = await passk("runs", "list", "--store", path.join(work, "none", "x.db"));
    expect(run.stderr).toMatch(/no passk store at .*x\.db/);
  });

  it("an unknown run id lists the known ones", async () => {
    const run = await passk("report", "nope", "--store", path.join(work, "runs.db"));
    expect(run.stderr).toMatch(/run "nope" is not known \(known: official\)/);
  });
});

describe("a run over several domains", () => {
  it("exports each domain with its own environment (name and policy), as --save-to writes it", async () => {
    const store = path.join(work, "multi.db");
    const saveTo = path.join(work, "multi.json");
    const run = await passk(
      "run",
      "--domain",
      "mock,airline",
      "--agent-llm",
      "scripted:gold",
      "--num-tasks",
      "1",
      "--store",
      store,
      "--save-to",
      saveTo,
      "--progress",
      "none",
    );
    expect(run.code, run.stderr).toBe(0);
    const runId = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(run.stderr)![1]!;
    const exported = path.join(work, "multi-airline-export.json");
    const out = await passk("export", runId, "--domain", "airline", "--output", exported, "--store", store);
    expect(out.code, out.stderr).toBe(0);
    const environment = (file: string) =>
      (JSON.parse(readFileSync(file, "utf8")) as { info: { environment_info: unknown } }).info
        .environment_info;
    const airline = new DomainData(builtinDomains.get("airline")!, dataDir);
    expect(environment(exported)).toEqual({
      domain_name: "airline",
      policy: airline.policy,
      tool_defs: null,
    });
    expect(environment(exported)).toEqual(environment(path.join(work, "multi.airline.json")));
  });
});
