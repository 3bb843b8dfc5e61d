import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { describeRunHeader, describeRunStart } from "../src/runner/run-report.js";
import { describeGates, describeNothingGraded, describeRunEnd } from "../src/runner/run-verdict.js";
import { startRun } from "../src/runner/start-run.js";
import { Store } from "../src/store/store.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { REPO_ROOT } from "./helpers/run-cli.js";

const run = promisify(execFile);
const dataDir = tau2DataDir();

describe("passk from TypeScript", () => {
  it("examples/library-run.ts starts a run of its own agent, stores it and prints pass^k as stored", async () => {
    const store = path.join(mkdtempSync(path.join(tmpdir(), "passk-library-run-")), "runs.db");
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/library-run.ts"], {
      cwd: REPO_ROOT,
      env: { ...process.env, PASSK_STORE: store, PASSK_DATA_DIR: dataDir },
      timeout: 120_000,
    });
    const runId = /^run (\S+): graded 100 of 100 conversations$/m.exec(stdout)?.[1];
    expect(runId, stdout).toBeDefined();

    const opened = Store.open(store, { create: false });
    const simulations = opened.scoredSimulations(runId!);
    opened.close();
    expect(simulations).toHaveLength(100);
    const passed = simulations.filter((s) => s.reward_info?.reward === 1);
    // What is printed is what is stored.
    expect(stdout).toContain(`pass^1 = ${(passed.length / 100).toFixed(3)}`);
    // An agent that refuses everything passes only tasks whose gold actions change nothing.
    const airline = new DomainData(builtinDomains.get("airline")!, dataDir);
    const writes = new Set(airline.domain.agent.tools.filter((t) => t.mutatesState).map((t) => t.name));
    expect(passed.length).toBeGreaterThan(0);
    for (const s of passed) {
      const gold = airline.task(s.task_id).evaluation_criteria?.actions ?? [];
      expect(
        gold.filter((a) => writes.has(a.name)).map((a) => a.name),
        s.task_id,
      ).toEqual([]);
    }
  }, 150_000);

  it("examples/library-resume.ts stops its run after one conversation and resumes it: each (task, trial) stored once", async () => {
    const store = path.join(mkdtempSync(path.join(tmpdir(), "passk-library-resume-")), "runs.db");
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/library-resume.ts"], {
      cwd: REPO_ROOT,
      env: { ...process.env, PASSK_STORE: store, PASSK_DATA_DIR: dataDir },
      timeout: 120_000,
    });
    const stopped = /^run (\S+): interrupted with (\d+) conversations$/m.exec(stdout);
    expect(stopped, stdout).not.toBeNull();
    // Stopped after the first conversation ended: those in flight (one at a time) finish, nothing new starts.
    expect(Number(stopped![2])).toBeGreaterThanOrEqual(1);
    expect(Number(stopped![2])).toBeLessThan(10);
    expect(stdout).toContain(`run ${stopped![1]}: completed with 10 conversations`);

    const opened = Store.open(store, { create: false });
    const simulations = opened.scoredSimulations(stopped![1]!);
    opened.close();
    const keys = simulations.map((s) => `${s.task_id}/${s.trial}`);
    expect(new Set(keys).size).toBe(10);
    expect(keys).toHaveLength(10);
    const passed = simulations.filter((s) => s.reward_info?.reward === 1).length;
    expect(stdout).toContain(`pass^1 = ${(passed / 10).toFixed(3)}`);
  }, 150_000);

  it("examples/library-review.ts reviews its run's failures and re-grades its results file, as stored", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "passk-library-review-"));
    const store = path.join(folder, "runs.db");
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/library-review.ts"], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PASSK_STORE: store,
        PASSK_SAVE_TO: path.join(folder, "results.json"),
        PASSK_DATA_DIR: dataDir,
      },
      timeout: 120_000,
    });
    const opened = Store.open(store, { create: false });
    const [stored] = opened.listRuns();
    const failed = opened.scoredSimulations(stored!.id).filter((s) => s.reward_info?.reward !== 1);
    const reviews = opened.reviews(stored!.id);
    opened.close();
    // Each failure reviewed once, and printed as stored (the scripted customer only hangs up: no
    // deterministic check places these failures, and without a reviewer model passk says so).
    expect(failed.length).toBeGreaterThan(0);
    expect(reviews).toHaveLength(failed.length);
    const printed = stdout.split("\n").filter((line) => line.startsWith("task "));
    expect(printed.sort()).toEqual(
      reviews
        .map(({ task_id, review }) => {
          const { culprit, turn, reason } = review as {
            culprit: string;
            turn: number | null;
            reason: string;
          };
          return `task ${task_id}: ${culprit} at turn ${turn} — ${reason}`;
        })
        .sort(),
    );
    // Every conversation of the file grades as recorded.
    expect(stdout).toContain("10 of 10 reproduce their reward");
  }, 150_000);

  it("refuses a spec that is not valid with a sentence naming the field, before anything is stored", async () => {
    const store = path.join(mkdtempSync(path.join(tmpdir(), "passk-library-spec-")), "runs.db");
    const agent = { model: "scripted:gold" };
    await expect(startRun({ domains: [], store, dataDir }, { agent })).rejects.toThrow(
      "the run spec is not valid: domains: name at least one, e.g. ['airline']",
    );
    await expect(startRun({ domains: ["airline"], numTrials: 0, store, dataDir }, { agent })).rejects.toThrow(
      /^the run spec is not valid: numTrials: /,
    );
    await expect(startRun({ domains: ["airlines"], store, dataDir }, { agent })).rejects.toThrow(/airlines/);
    expect(() => Store.open(store, { create: false })).toThrow();
  });

  it("says what the run means for a gate keeper: gates, completeness, and a run that graded nothing", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "passk-library-verdict-"));
    const spec = { domains: ["airline"], numTasks: 4, user: { model: "scripted:gold" }, dataDir };
    const gold = await startRun(
      { ...spec, store: path.join(folder, "gold.db") },
      { agent: { model: "scripted:gold" }, failUnder: ["pass^1=0.9"] },
    );
    expect(gold.verdict.gates.map((g) => [g.threshold.text, g.value, g.passed])).toEqual([
      ["pass^1=0.9", 1, true],
    ]);
    expect(gold.verdict).toMatchObject({ unfinished: 0, belowThreshold: false, robustness: [] });
    expect(gold.verdict.nothingGraded).toBeUndefined();
    // What passk run prints of it, from the library's sentences.
    expect(describeGates(gold.verdict)).toEqual(["PASS pass^1=0.9: 1.0000"]);
    expect(describeRunEnd(gold, undefined)).toMatch(
      /^completed: 4 conversations stored in \S+ \(this session ran 4\)$/,
    );
    expect(describeRunHeader(gold.config, gold.run)).toBe(
      `run ${gold.run.id} · airline · scripted:gold (agent and user) · 1 trial(s) · seed 300 · τ² protocol`,
    );
    expect(
      describeRunStart(
        { type: "run-stored", run: gold.run, conversations: 4, resumed: false, plan: gold.plan },
        gold.config,
        "gold.db",
      ),
    ).toBe(
      `starting run ${gold.run.id}: 4 conversations (airline 4 tasks × 1 trial), concurrency 3; store gold.db`,
    );

    const refuser = {
      name: "refuser",
      start: () => ({
        respond: async () => ({
          role: "assistant" as const,
          content: "Is there anything else I can help you with?",
        }),
      }),
    };
    const refused = await startRun(
      { ...spec, store: path.join(folder, "refused.db") },
      { agent: refuser, failUnder: ["pass^1=0.9"] },
    );
    const [gate] = refused.verdict.gates;
    expect(gate!.passed).toBe(false);
    expect(gate!.value).toBe(refused.metrics.pass_hat_ks["1"]);
    expect(refused.verdict.belowThreshold).toBe(true);
    const value = gate!.value!.toFixed(4);
    expect(describeGates(refused.verdict)).toEqual([`FAIL pass^1=0.9: ${value} (${value} < 0.9)`]);

    // A provider that is not there: every conversation ends as an infrastructure error, none graded.
    const unreachable = await startRun(
      { ...spec, numTasks: 2, store: path.join(folder, "down.db"), maxAttempts: 1, maxRetries: 1 },
      {
        agent: { model: "openai-compatible:m", baseUrl: "http://127.0.0.1:9/v1" },
        env: { OPENAI_COMPATIBLE_API_KEY: "k" },
      },
    );
    expect(unreachable.verdict.nothingGraded).toMatchObject({ conversations: 2 });
    expect(unreachable.verdict.nothingGraded!.firstError).toMatch(/127\.0\.0\.1:9|connect|fetch/i);
    expect(unreachable.verdict.belowThreshold).toBe(false);
    expect(describeNothingGraded(unreachable.verdict.nothingGraded!, unreachable.run.id)).toMatch(
      new RegExp(
        `^nothing could be graded: all 2 conversations ended without a gradable result \\(infrastructure_error 2\\); ` +
          `the first said: .+\\. Fix the cause .+ \`passk run --resume ${unreachable.run.id}\`\\.$`,
      ),
    );
  }, 120_000);
});
