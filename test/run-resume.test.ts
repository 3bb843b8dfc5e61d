import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { trialSeeds } from "../src/runner/run-plan.js";
import { isUserSimulatorRequest, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mockModelFlags, REPO_ROOT, runCli } from "./helpers/run-cli.js";
import { craftedModel, reasonOf } from "./helpers/run-mock-model.js";

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const TRIALS = 8;
const SEEDS = trialSeeds(300, TRIALS);
const dir = mkdtempSync(path.join(tmpdir(), "passk-resume-"));
const store = path.join(dir, "passk.db");
const saveTo = path.join(dir, "results.json");
const env = { ...process.env, PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-resume" };

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    delayMs: 20,
    script: craftedModel({
      tasks: TASKS.map((id) => data.task(id)),
      trialSeeds: SEEDS,
      // Mixed outcomes, so that resumed metrics have something to get wrong.
      outcome: (task, trial) => (task === "impossible_task_1" && trial % 2 === 1 ? "fail" : "pass"),
    }),
  });
});
afterAll(() => server.close());

const args = () => [
  path.join(REPO_ROOT, "bin", "passk.js"),
  "run",
  "--domain",
  "mock",
  ...mockModelFlags(server.baseUrl),
  "--task-ids",
  ...TASKS,
  "--num-trials",
  String(TRIALS),
  "--max-concurrency",
  "3",
  "--store",
  store,
  "--save-to",
  saveTo,
  "--progress",
  "none",
];

interface Row {
  task_id: string;
  trial: number;
  id: string;
  record: string;
  messages: string;
  reward_info: string;
  written_at: string;
}

function storedRows(): Row[] {
  if (!existsSync(store)) return [];
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'simulations'").get();
    if (!hasTable) return [];
    return db
      .prepare(
        "SELECT task_id, trial, id, record, messages, reward_info, written_at FROM simulations ORDER BY seq",
      )
      .all() as Row[];
  } finally {
    db.close();
  }
}

const key = (r: { task_id: string; trial: number | null }) => `${r.task_id}/${r.trial}`;

/** Spawn `passk run`, wait until `atLeast` simulations are stored, then SIGKILL it. */
async function runUntilKilled(atLeast: number): Promise<Row[]> {
  const child: ChildProcess = spawn(process.execPath, args(), { cwd: REPO_ROOT, env, stdio: "ignore" });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  const deadline = Date.now() + 30_000;
  while (storedRows().length < atLeast) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the run stored fewer than ${atLeast} simulations in 30 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
  return storedRows();
}

/** (task, trial)s whose conversation started (the customer's first model call) among these requests. */
function conversationStarts(from: number): string[] {
  return server.requests
    .slice(from)
    .filter((r) => isUserSimulatorRequest(r) && !r.messages.some((m) => m.role === "assistant"))
    .map((r) => {
      const task = TASKS.find((t) => r.system.includes(reasonOf(data.task(t))));
      return `${task}/${SEEDS.indexOf((r.body as { seed: number }).seed)}`;
    });
}

describe("a run killed with SIGKILL resumes with each (task, trial) exactly once", () => {
  it("kill, re-run the same command, kill again, --resume: nothing lost, duplicated or re-run", async () => {
    const total = TASKS.length * TRIALS;
    const first = await runUntilKilled(4);
    expect(first.length).toBeLessThan(total);
    expect(new Set(first.map(key)).size).toBe(first.length);
    const afterFirstKill = server.requests.length;

    // Resume by running the same command again (same --save-to): continues the stored run.
    const second = await runUntilKilled(first.length + 4);
    expect(second.length).toBeLessThan(total);
    expect(new Set(second.map(key)).size).toBe(second.length);
    for (const row of first) expect(second.find((r) => key(r) === key(row))).toEqual(row);
    const restartedAfterFirst = conversationStarts(afterFirstKill);
    for (const row of first) expect(restartedAfterFirst).not.toContain(key(row));
    const afterSecondKill = server.requests.length;

    const db = new Database(store, { readonly: true });
    const runs = db.prepare("SELECT id, status FROM runs").all() as Array<{ id: string; status: string }>;
    db.close();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("running"); // killed: nobody could mark it otherwise

    const resumed = await runCli(["run", "--resume", runs[0]!.id, "--store", store, "--progress", "none"], {
      env,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming run ${runs[0]!.id}: ${total} conversations`);
    expect(resumed.stdout).toContain(`completed: ${total} conversations stored`);

    const final = storedRows();
    expect(final).toHaveLength(total);
    expect(new Set(final.map(key)).size).toBe(total);
    for (const row of second) expect(final.find((r) => key(r) === key(row))).toEqual(row);
    const restartedAfterSecond = conversationStarts(afterSecondKill);
    for (const row of second) expect(restartedAfterSecond).not.toContain(key(row));
    // Each (task, trial) missing at the second kill was run again exactly once.
    expect(restartedAfterSecond.sort()).toEqual(
      final
        .filter((r) => !second.some((s) => key(s) === key(r)))
        .map(key)
        .sort(),
    );

    // The results file holds each (task, trial) once, and the ones finished before a kill unchanged.
    const results = JSON.parse(readFileSync(saveTo, "utf8"));
    expect(results.simulations).toHaveLength(total);
    expect(new Set(results.simulations.map(key)).size).toBe(total);
    for (const row of first) {
      const simulation = results.simulations.find((s: { id: string }) => s.id === row.id);
      expect(simulation.messages).toMatchObject(JSON.parse(row.messages));
      expect(simulation.reward_info).toMatchObject(JSON.parse(row.reward_info));
    }
    // pass^k over the resumed run: create_task_1 and update_task_1 pass 8/8, impossible_task_1 4/8.
    expect(resumed.stdout).toMatch(/^mock\s+3\s+24\s+0\s+0\.833\s+0\.833 /m);
  });
});
