import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { trialSeeds } from "../src/runner/run-plan.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mockModelFlags, type CliRun } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { craftedModel } from "./helpers/run-mock-model.js";

// A run that is mostly infrastructure errors: the provider fails on 8 of 10 airline tasks (32 of 40
// conversations), the other 8 conversations pass. Every headline must say it covers 8 of 40, never a bare
// 100%.
const airline = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
const TASKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
const GRADED = new Set(["1", "5"]);
const dir = mkdtempSync(path.join(tmpdir(), "passk-coverage-"));
const store = path.join(dir, "passk.db");
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-coverage" };

let server: MockLlmServer;
let first: CliRun;
let runId = "";
beforeAll(async () => {
  server = await startMockLlmServer({
    script: craftedModel({
      tasks: TASKS.map((id) => airline.task(id)),
      trialSeeds: trialSeeds(300, 4),
      infraFailures: (task) => (GRADED.has(task) ? 0 : 1000),
    }),
  });
  first = await runCliInProcess(
    [
      "run",
      "--domain",
      "airline",
      ...mockModelFlags(server.baseUrl),
      "--task-ids",
      ...TASKS,
      "--num-trials",
      "4",
      "--max-retries",
      "1",
      "--max-attempts",
      "1",
      "--progress",
      "none",
      "--store",
      store,
    ],
    env,
  );
  runId = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(first.stdout)?.[1] ?? "";
}, 120_000);
afterAll(() => server.close());

/** The table row of a domain, split into its cells. */
function rowOf(stdout: string, domain: string): string[] {
  const line = stdout.split("\n").find((l) => l.startsWith(`${domain} `));
  return line?.trim().split(/\s{2,}/) ?? [];
}

describe("a run with 32 of 40 conversations not graded", () => {
  it("passk run: the headline says graded 8 of 40 and every score is marked, none a bare 1.000", () => {
    expect(first.code, first.stderr).toBe(0);
    expect(runId).not.toBe("");
    expect(first.stdout).toMatch(new RegExp(`run ${runId} · airline · .* · graded 8 of 40\\n`));
    const row = rowOf(first.stdout, "airline");
    // domain, tasks, sims, infra, avg reward, pass^1…4, pass@4, costs
    expect(row.slice(0, 5)).toEqual(["airline", "2", "8", "32", "1.000*"]);
    for (const cell of row.slice(5, 9)) expect(cell).toMatch(/^1\.000\* \[/);
    expect(first.stdout).toContain(
      "* airline: graded 8 of 40 conversations — 32 not graded (infrastructure errors); the marked scores cover the graded 8 only, not the whole run",
    );
  });

  it("passk report: the same, from the store", async () => {
    const report = await runCliInProcess(["report", runId, "--store", store], env);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(": 40 simulations · graded 8 of 40");
    expect(rowOf(report.stdout, "airline")[4]).toBe("1.000*");
    expect(report.stdout).toContain("* airline: graded 8 of 40 conversations");
  });

  it("passk runs list: pass^1 says graded 8 of 40 (and --json carries the counts)", async () => {
    const list = await runCliInProcess(["runs", "list", "--store", store], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("1.000 (graded 8 of 40)");
    const json = await runCliInProcess(["runs", "list", "--store", store, "--json"], env);
    const [run] = JSON.parse(json.stdout) as Array<{ graded_simulations: number; gradable_total: number }>;
    expect(run).toMatchObject({ graded_simulations: 8, gradable_total: 40 });
  });
});
