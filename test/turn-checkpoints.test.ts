import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { trialSeeds } from "../src/runner/run-plan.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { startRedisServer, type TestRedis } from "./helpers/redis-server.js";
import { conversationStarts, outcomesWithoutIds, passkProcesses, waitFor } from "./helpers/passk-process.js";
import { mockModelFlags } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { craftedModel } from "./helpers/run-mock-model.js";

// Turn checkpoints end to end: a conversation interrupted by kill -9 (of the one process, or of a
// worker) continues from its last saved turn — its earlier turns are neither paid for again nor changed.

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const TRIALS = 2;
const TOTAL = TASKS.length * TRIALS;
const SEEDS = trialSeeds(300, TRIALS);
const crafted = { data, tasks: TASKS, seeds: SEEDS };
const dir = mkdtempSync(path.join(tmpdir(), "passk-checkpoints-"));
const env = {
  ...process.env,
  PASSK_DATA_DIR: tau2DataDir(),
  OPENAI_COMPATIBLE_API_KEY: "sk-test-checkpoints",
};

let server: MockLlmServer;
let redis: TestRedis;
const processes = passkProcesses(env);
const spawnPassk = processes.spawn;

beforeAll(async () => {
  redis = await startRedisServer();
  // Slow calls, so that a kill lands mid-conversation; the model answers from the conversation it is
  // sent (stateless), so a continued conversation gets the replies an uninterrupted one would.
  server = await startMockLlmServer({
    delayMs: 400,
    script: craftedModel({ tasks: TASKS.map((id) => data.task(id)), trialSeeds: SEEDS }),
  });
});
afterEach(() => processes.killAll());
afterAll(async () => {
  await server.close();
  await redis.stop();
});

const runArgs = (store: string, saveTo: string) => [
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
];

function query<T>(store: string, sql: string): T[] {
  if (!existsSync(store)) return [];
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'turn_checkpoints'").get()) return [];
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}
const checkpointRows = (store: string) =>
  query<{ task_id: string }>(store, "SELECT task_id FROM turn_checkpoints");
const runIdOf = (store: string) => query<{ id: string }>(store, "SELECT id FROM runs")[0]!.id;

interface ResultsSimulation {
  task_id: string;
  trial: number;
  termination_reason: string;
  reward_info: { reward: number } | null;
  info?: { resumed_at_message?: number } | null;
  messages: Array<{
    role: string;
    content?: string | null;
    tool_calls?: Array<Record<string, unknown>> | null;
  }>;
}
const simulationsOf = (file: string) =>
  (JSON.parse(readFileSync(file, "utf8")) as { simulations: ResultsSimulation[] }).simulations;
const key = (s: { task_id: string; trial: number }) => `${s.task_id}/${s.trial}`;

/** The uninterrupted run: its outcomes and how many model calls it took. */
let reference: { outcomes: Map<string, unknown>; calls: number };
beforeAll(async () => {
  const store = path.join(dir, "reference.db");
  const saveTo = path.join(dir, "reference.json");
  const from = server.requests.length;
  const result = await runCliInProcess(runArgs(store, saveTo), env);
  expect(result.code, result.stderr).toBe(0);
  // Off by default: nothing is saved.
  expect(checkpointRows(store)).toEqual([]);
  reference = { outcomes: outcomesWithoutIds(saveTo), calls: server.requests.length - from };
  expect(reference.outcomes.size).toBe(TOTAL);
}, 60_000);

/**
 * What a continued run must show: every (task, trial) once, each as the uninterrupted run has it; some
 * continued from a checkpoint (not started again); and no model call paid twice but those in flight
 * at the kill (one per conversation at most).
 */
function expectContinued(saveTo: string, from: number, killedAt: number, inFlight: number): void {
  const simulations = simulationsOf(saveTo);
  expect(simulations.map(key).sort()).toEqual([...reference.outcomes.keys()].sort());
  expect(outcomesWithoutIds(saveTo)).toEqual(reference.outcomes);
  const continued = simulations.filter((s) => (s.info?.resumed_at_message ?? 0) > 0).map(key);
  expect(continued.length).toBeGreaterThan(0);
  const startedAgain = conversationStarts(server, crafted, killedAt);
  for (const conversation of continued) expect(startedAgain).not.toContain(conversation);
  const calls = server.requests.length - from;
  expect(calls).toBeGreaterThanOrEqual(reference.calls);
  expect(calls - reference.calls).toBeLessThanOrEqual(inFlight);
}

describe("--checkpoint-turns: an interrupted conversation continues from its last turn", () => {
  it("kill -9 of a one-process run, then --resume: continued, not re-run; the same results", async () => {
    const store = path.join(dir, "local.db");
    const saveTo = path.join(dir, "local.json");
    const from = server.requests.length;
    const runner = spawnPassk([...runArgs(store, saveTo), "--checkpoint-turns"]);
    await waitFor("saved turns of most conversations", () => checkpointRows(store).length >= TOTAL - 1);
    runner.child.kill("SIGKILL");
    await runner.exited;
    const killedAt = server.requests.length;
    // The killed run is still `running` in the store: the list shows how far it came.
    const list = await runCliInProcess(["runs", "list", "--store", store], env);
    expect(list.stdout).toMatch(new RegExp(`running .* \\d/${TOTAL} `));
    const resumed = await runCliInProcess(
      ["run", "--resume", runIdOf(store), "--store", store, "--progress", "none"],
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`completed: ${TOTAL} conversations stored`);
    expectContinued(saveTo, from, killedAt, TOTAL);
    // Finished conversations leave no checkpoint behind.
    expect(checkpointRows(store)).toEqual([]);
  }, 90_000);

  it("participants that cannot continue from a history are said to start over, and the run is the same", async () => {
    const store = path.join(dir, "scripted.db");
    const args = [
      "--domain",
      "mock",
      "--agent-llm",
      "scripted:gold",
      "--num-tasks",
      "2",
      "--progress",
      "none",
    ];
    const run = await runCliInProcess(["run", ...args, "--store", store, "--checkpoint-turns"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "--checkpoint-turns: the agent scripted:gold and the customer scripted:gold cannot continue a conversation from its history, so an interrupted conversation starts over",
    );
    expect(checkpointRows(store)).toEqual([]);
  });

  it("kill -9 of a worker: another worker continues its conversations from the turns saved in Redis", async () => {
    const client = new Redis(redis.url);
    try {
      const saved = async () => (await client.keys("passk:checkpoint:*")).length;
      const startWorker = () =>
        spawnPassk([
          "worker",
          "--queue",
          redis.url,
          "--concurrency",
          String(TOTAL),
          "--lock-seconds",
          "1",
          "--allow-endpoint",
          server.baseUrl,
        ]);
      const doomed = startWorker();
      await waitFor("the doomed worker", () => doomed.output().includes("ready"));
      const store = path.join(dir, "distributed.db");
      const saveTo = path.join(dir, "distributed.json");
      const from = server.requests.length;
      const coordinator = spawnPassk([...runArgs(store, saveTo), "--queue", redis.url, "--checkpoint-turns"]);
      await waitFor("saved turns of most conversations", async () => (await saved()) >= TOTAL - 1);
      doomed.child.kill("SIGKILL");
      await doomed.exited;
      const killedAt = server.requests.length;
      const survivor = startWorker();
      expect(await coordinator.exited, coordinator.output()).toBe(0);
      expect(survivor.output()).toMatch(/ trial \d+: /);
      expectContinued(saveTo, from, killedAt, TOTAL);
      expect(await saved()).toBe(0);
    } finally {
      client.disconnect();
    }
  }, 90_000);
});
