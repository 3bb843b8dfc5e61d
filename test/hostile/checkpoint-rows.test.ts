import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { DomainData } from "../../src/formats/tau2/domain-data.js";
import { trialSeeds } from "../../src/runner/run-plan.js";
import { SqliteCheckpointStore } from "../../src/store/sqlite-checkpoint-store.js";
import { Store } from "../../src/store/store.js";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { passkProcesses, waitFor } from "../helpers/passk-process.js";
import { mockModelFlags } from "../helpers/run-cli.js";
import { runCliInProcess } from "../helpers/run-cli-in-process.js";
import { craftedModel, reasonOf } from "../helpers/run-mock-model.js";

// Tampered turn checkpoints (`--checkpoint-turns` rows in the store) meet `passk run --resume`: a row
// whose counters, clock or id are not what its conversation can have saved is dropped and the
// conversation runs from its start — never ended by the row (max_steps, an error) nor given its
// absurd duration, and never two results with one simulation id.

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const TRIALS = 4;
const TOTAL = TASKS.length * TRIALS;
const SEEDS = trialSeeds(300, TRIALS);
/** The one conversation let finish before the kill (a stored simulation whose id a row can copy). */
const FINISHER = "impossible_task_1/0";
const dir = mkdtempSync(path.join(tmpdir(), "passk-hostile-checkpoints-"));
const env = { ...process.env, PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-rows" };

const processes = passkProcesses(env);
afterEach(() => processes.killAll());

const crafted = craftedModel({ tasks: TASKS.map((id) => data.task(id)), trialSeeds: SEEDS });
/** The (task, trial) of a request: the task from the customer's opening words, the trial from its seed. */
function conversationOf(request: MockLlmRequest): string {
  const opening = request.messages.find((m) => m.role === "user")?.content;
  const task = TASKS.find((t) =>
    isUserSimulatorRequest(request)
      ? request.system.includes(reasonOf(data.task(t)))
      : opening === reasonOf(data.task(t)),
  );
  return `${task}/${SEEDS.indexOf((request.body as { seed: number }).seed)}`;
}
/**
 * While on, every conversation but FINISHER stops for good when the agent is first asked to answer the
 * customer: its last saved turn is the customer's opening, and the agent's answer is not an ending.
 */
let holding = true;
const held = new Set<string>();
let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    delayMs: 20,
    script: (request) => {
      if (holding && !isUserSimulatorRequest(request) && conversationOf(request) !== FINISHER) {
        held.add(conversationOf(request));
        return mockReply.hang();
      }
      return crafted(request);
    },
  });
});
afterAll(() => server.close());

interface Row {
  task_id: string;
  trial: number;
  checkpoint: string;
}
interface Checkpoint {
  messages: unknown;
  steps: number;
  errors: number;
  userErrors: number;
  simulationId: string;
  startedAt: string;
  elapsedSeconds: number;
}
interface ResultsSimulation {
  id: string;
  task_id: string;
  trial: number;
  termination_reason: string;
  duration: number;
  reward_info: { reward: number } | null;
  info?: { resumed_at_message?: number } | null;
}

/** How each stopped conversation's row is tampered with (by its index in (task, trial) order). */
const TAMPER: Array<[string, (c: Checkpoint, others: { finished: string; source: string }) => void]> = [
  ["steps 1e12", (c) => (c.steps = 1e12)],
  ["steps one short of --max-steps", (c) => (c.steps = 199)],
  ["errors 1e9", (c) => (c.errors = 1e9)],
  ["startedAt not a time", (c) => (c.startedAt = "<script>alert(1)</script>")],
  ["elapsedSeconds 1e300", (c) => (c.elapsedSeconds = 1e300)],
  ["elapsedSeconds two days", (c) => (c.elapsedSeconds = 2 * 24 * 3600)],
  ["the id of a stored simulation", (c, o) => (c.simulationId = o.finished)],
  ["the id of another checkpoint", (c, o) => (c.simulationId = o.source)],
  ["untouched (its id copied)", () => {}],
  ["steps negative", (c) => (c.steps = -3)],
  ["untouched", () => {}],
];
/** Rows continued (their messages kept): the untouched ones and those given a fresh id. */
const CONTINUED = new Set([
  "the id of a stored simulation",
  "the id of another checkpoint",
  "untouched (its id copied)",
  "untouched",
]);

describe("passk run --resume with tampered turn checkpoints", () => {
  it("drops rows out of range and gives copied ids fresh ones: the run completes, each conversation once", async () => {
    expect(TAMPER.length).toBe(TOTAL - 1);
    const store = path.join(dir, "tampered.db");
    const saveTo = path.join(dir, "tampered.json");
    const runner = processes.spawn([
      "run",
      "--domain",
      "mock",
      ...mockModelFlags(server.baseUrl),
      "--task-ids",
      ...TASKS,
      "--num-trials",
      String(TRIALS),
      "--max-concurrency",
      String(TOTAL),
      "--store",
      store,
      "--save-to",
      saveTo,
      "--progress",
      "none",
      "--checkpoint-turns",
    ]);
    const count = (sql: string) => {
      const db = new Database(store, { readonly: true, fileMustExist: true });
      try {
        return (db.prepare(sql).get() as { n: number }).n;
      } catch {
        return 0; // not created yet
      } finally {
        db.close();
      }
    };
    // Every conversation but one is stopped at a saved turn (the agent's answer never comes).
    await waitFor(
      `all but one conversation held at a saved turn (${runner.output()})`,
      () =>
        held.size === TOTAL - 1 &&
        count("SELECT COUNT(*) AS n FROM simulations") === 1 &&
        count("SELECT COUNT(*) AS n FROM turn_checkpoints") === TOTAL - 1,
      60_000,
    );
    runner.child.kill("SIGKILL");
    await runner.exited;
    holding = false;

    const db = new Database(store);
    const runId = (db.prepare("SELECT id FROM runs").get() as { id: string }).id;
    const finished = (db.prepare("SELECT id FROM simulations").get() as { id: string }).id;
    const rows = db
      .prepare("SELECT task_id, trial, checkpoint FROM turn_checkpoints ORDER BY task_id, trial")
      .all() as Row[];
    const checkpoints = rows.map((row) => JSON.parse(row.checkpoint) as Checkpoint);
    const source =
      checkpoints[TAMPER.findIndex(([what]) => what === "untouched (its id copied)")]!.simulationId;
    const update = db.prepare(
      "UPDATE turn_checkpoints SET checkpoint = ? WHERE run_id = ? AND task_id = ? AND trial = ?",
    );
    const tampered = new Map<string, string>();
    for (const [i, row] of rows.entries()) {
      const [what, tamper] = TAMPER[i]!;
      tamper(checkpoints[i]!, { finished, source });
      update.run(JSON.stringify(checkpoints[i]), runId, row.task_id, row.trial);
      tampered.set(`${row.task_id}/${row.trial}`, what);
    }
    db.close();

    // A row that cannot be read is deleted as it is read, not left behind.
    const garbage = rows[TAMPER.findIndex(([what]) => what === "steps negative")]!;
    const opened = Store.open(store);
    try {
      const key = { runId, domain: "mock", taskId: garbage.task_id, trial: garbage.trial };
      expect(await new SqliteCheckpointStore(opened).load(key)).toBeUndefined();
      const left = new Database(store, { readonly: true });
      expect
        .soft(
          left
            .prepare("SELECT COUNT(*) AS n FROM turn_checkpoints WHERE task_id = ? AND trial = ?")
            .get(garbage.task_id, garbage.trial),
        )
        .toEqual({ n: 0 });
      left.close();
    } finally {
      opened.close();
    }

    const resumed = await runCliInProcess(
      ["run", "--resume", runId, "--store", store, "--progress", "none"],
      env,
    );
    expect.soft(resumed.code, resumed.stderr).toBe(0);
    expect.soft(resumed.stdout).toContain(`completed: ${TOTAL} conversations stored`);
    const simulations = (JSON.parse(readFileSync(saveTo, "utf8")) as { simulations: ResultsSimulation[] })
      .simulations;
    const keys = simulations.map((s) => `${s.task_id}/${s.trial}`);
    // Each (task, trial) once, each under its own simulation id.
    expect(keys.sort()).toEqual(TASKS.flatMap((t) => SEEDS.map((_, k) => `${t}/${k}`)).sort());
    expect.soft(new Set(simulations.map((s) => s.id)).size).toBe(TOTAL);
    for (const s of simulations) {
      const what = tampered.get(`${s.task_id}/${s.trial}`) ?? "finished before the kill";
      // Ended by the conversation itself, never by the row's counters or a failure to read it.
      expect.soft([what, s.termination_reason]).toEqual([what, "user_stop"]);
      expect.soft([what, s.reward_info?.reward]).toEqual([what, 1]);
      // A duration this test can have taken, not the row's.
      expect.soft([what, s.duration >= 0 && s.duration < 300]).toEqual([what, true]);
      // Dropped rows ran from the start; the others went on from their saved turn.
      const continued = (s.info?.resumed_at_message ?? 0) > 0;
      expect.soft([what, continued]).toEqual([what, CONTINUED.has(what)]);
    }
    const ids = new Map(simulations.map((s) => [tampered.get(`${s.task_id}/${s.trial}`), s.id]));
    expect(ids.get("the id of a stored simulation")).not.toBe(finished);
    const left = new Database(store, { readonly: true });
    expect(left.prepare("SELECT COUNT(*) AS n FROM turn_checkpoints").get()).toEqual({ n: 0 });
    left.close();
  }, 120_000);

  it("--checkpoint-turns with --no-checkpoint-turns is refused in one sentence naming both", async () => {
    for (const order of [
      ["--checkpoint-turns", "--no-checkpoint-turns"],
      ["--no-checkpoint-turns", "--checkpoint-turns"],
    ]) {
      const store = path.join(dir, "both-flags.db");
      const result = await runCliInProcess(
        [
          "run",
          "--domain",
          "mock",
          "--agent-llm",
          "scripted:gold",
          "--num-tasks",
          "1",
          ...order,
          "--store",
          store,
        ],
        env,
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        "error: --checkpoint-turns and --no-checkpoint-turns contradict each other: give one of them",
      );
    }
  });
});
