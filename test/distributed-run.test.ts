import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { trialSeeds } from "../src/runner/run-plan.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir, tau2UpstreamDir } from "../src/testing/tau2-fixtures.js";
import { freePort, startRedisServer, type TestRedis } from "./helpers/redis-server.js";
import { conversationStarts, outcomesWithoutIds, passkProcesses, waitFor } from "./helpers/passk-process.js";
import { mockModelFlags, REPO_ROOT, runCli } from "./helpers/run-cli.js";
import { craftedModel } from "./helpers/run-mock-model.js";

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const TRIALS = 4;
const TOTAL = TASKS.length * TRIALS;
const SEEDS = trialSeeds(300, TRIALS);
const crafted = { data, tasks: TASKS, seeds: SEEDS };
const dir = mkdtempSync(path.join(tmpdir(), "passk-distributed-"));
const env = {
  ...process.env,
  PASSK_DATA_DIR: tau2DataDir(),
  OPENAI_COMPATIBLE_API_KEY: "sk-test-distributed",
};

let redis: TestRedis;
let server: MockLlmServer;
const processes = passkProcesses(env);
const spawnPassk = processes.spawn;

beforeAll(async () => {
  redis = await startRedisServer();
  server = await startMockLlmServer({
    delayMs: 25,
    script: craftedModel({
      tasks: TASKS.map((id) => data.task(id)),
      trialSeeds: SEEDS,
      outcome: (task, trial) => (task === "impossible_task_1" && trial % 2 === 1 ? "fail" : "pass"),
    }),
  });
});
afterEach(() => processes.killAll());
afterAll(async () => {
  await server.close();
  await redis.stop();
});

// Workers send their key only to the model servers they are told to trust (the run's mock).
const startWorker = (extra: string[] = [], options: { main?: string; model?: MockLlmServer } = {}) =>
  spawnPassk(
    [
      "worker",
      "--queue",
      redis.url,
      "--concurrency",
      "2",
      "--lock-seconds",
      "1",
      "--allow-endpoint",
      (options.model ?? server).baseUrl,
      ...extra,
    ],
    options.main ? { main: options.main } : {},
  );

const runArgs = (store: string, saveTo: string, model: MockLlmServer = server) => [
  "run",
  "--domain",
  "mock",
  ...mockModelFlags(model.baseUrl),
  "--task-ids",
  ...TASKS,
  "--num-trials",
  String(TRIALS),
  "--max-concurrency",
  "6",
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
}
function storedRows(store: string): Row[] {
  if (!existsSync(store)) return [];
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'simulations'").get()) return [];
    return db.prepare("SELECT task_id, trial, id, record FROM simulations ORDER BY seq").all() as Row[];
  } finally {
    db.close();
  }
}
const runIdOf = (store: string) => {
  const db = new Database(store, { readonly: true });
  try {
    return (db.prepare("SELECT id FROM runs").get() as { id: string }).id;
  } finally {
    db.close();
  }
};
const key = (r: { task_id: string; trial?: number | null }) => `${r.task_id}/${r.trial}`;

function expectExactlyOnce(store: string): void {
  const rows = storedRows(store);
  expect(rows).toHaveLength(TOTAL);
  expect(new Set(rows.map(key)).size).toBe(TOTAL);
}

describe("passk run --queue: one run across worker processes on Redis", () => {
  it("a coordinator and 3 workers run every (task, trial) once, with the results of a one-process run", async () => {
    const workers = [startWorker(), startWorker(), startWorker()];
    await waitFor("3 workers", () => workers.every((w) => w.output().includes("ready")));
    const from = server.requests.length;
    const store = path.join(dir, "three.db");
    const saveTo = path.join(dir, "three.json");
    const distributed = await runCli([...runArgs(store, saveTo), "--queue", redis.url], { env });
    expect(distributed.code, distributed.stderr).toBe(0);
    expect(distributed.stdout).toContain(`completed: ${TOTAL} conversations stored`);
    expectExactlyOnce(store);
    expect(conversationStarts(server, crafted, from).sort()).toEqual(storedRows(store).map(key).sort());
    // The conversations ran in the workers, not in the coordinator.
    const ranByWorkers = workers.map((w) => (w.output().match(/ trial \d+: /g) ?? []).length);
    expect(ranByWorkers.reduce((a, b) => a + b, 0)).toBe(TOTAL);

    const local = await runCli(runArgs(path.join(dir, "local.db"), path.join(dir, "local.json")), { env });
    expect(local.code, local.stderr).toBe(0);
    const expected = outcomesWithoutIds(path.join(dir, "local.json"));
    expect(expected.size).toBe(TOTAL);
    expect(outcomesWithoutIds(saveTo)).toEqual(expected);
    // Same pass^k table: create and update pass 4/4, impossible 2/4.
    const table = (text: string) => text.split("\n").find((line) => line.startsWith("mock "));
    expect(table(distributed.stdout)).toBe(table(local.stdout));
  });

  it("--local-workers: the coordinator runs conversations itself, with no other worker", async () => {
    const store = path.join(dir, "local-workers.db");
    const result = await runCli(
      [...runArgs(store, path.join(dir, "local-workers.json")), "--queue", redis.url, "--local-workers", "3"],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`completed: ${TOTAL} conversations stored`);
    expectExactlyOnce(store);
  });

  it("kill -9 of a worker mid-run: its conversations run again elsewhere; nothing lost or duplicated", async () => {
    // The doomed worker is alone at first, so that it holds conversations when it is killed.
    const doomed = startWorker();
    await waitFor("the doomed worker", () => doomed.output().includes("ready"));
    const store = path.join(dir, "worker-killed.db");
    const from = server.requests.length;
    const coordinator = spawnPassk([
      ...runArgs(store, path.join(dir, "worker-killed.json")),
      "--queue",
      redis.url,
    ]);
    await waitFor("the doomed worker to finish a conversation", () => / trial \d+: /.test(doomed.output()));
    const before = doomed.output();
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    const survivor = startWorker();
    expect(await coordinator.exited, coordinator.output()).toBe(0);
    expectExactlyOnce(store);
    const starts = conversationStarts(server, crafted, from);
    // Every stored (task, trial) started at least once.
    expect(new Set(starts)).toEqual(new Set(storedRows(store).map(key)));
    const finishedByDoomed = (doomed.output().match(/ trial \d+: /g) ?? []).length;
    expect(before).toMatch(/ trial \d+: /);
    // The survivor ran everything else, the killed worker's unfinished conversations included (one it
    // finished in the instant before the kill, but could not hand back, ran again).
    const finishedBySurvivor = (survivor.output().match(/ trial \d+: /g) ?? []).length;
    expect(finishedBySurvivor, `${doomed.output()}\n---\n${survivor.output()}`).toBeGreaterThanOrEqual(
      TOTAL - finishedByDoomed,
    );
    expect(finishedBySurvivor).toBeLessThanOrEqual(TOTAL - finishedByDoomed + 2);
    expect(starts.length).toBeLessThanOrEqual(TOTAL + 2); // at most its 2 conversations in flight twice
  });

  it("kill -9 of the coordinator: --resume completes it and keeps what the workers finished meanwhile", async () => {
    const workers = [startWorker(), startWorker()];
    await waitFor("2 workers", () => workers.every((w) => w.output().includes("ready")));
    const store = path.join(dir, "coordinator-killed.db");
    const saveTo = path.join(dir, "coordinator-killed.json");
    const from = server.requests.length;
    const coordinator = spawnPassk([...runArgs(store, saveTo), "--queue", redis.url]);
    await waitFor("a stored conversation", () => storedRows(store).length >= 2);
    coordinator.child.kill("SIGKILL");
    await coordinator.exited;
    const storedAtKill = storedRows(store).length;
    expect(storedAtKill).toBeLessThan(TOTAL);
    // The workers go on with what was handed to them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const resumed = await runCli(
      ["run", "--resume", runIdOf(store), "--store", store, "--queue", redis.url, "--progress", "none"],
      { env },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`completed: ${TOTAL} conversations stored`);
    expectExactlyOnce(store);
    // Nothing was run twice: what workers finished while no coordinator listened was kept, not re-run.
    expect(conversationStarts(server, crafted, from).sort()).toEqual(storedRows(store).map(key).sort());
    expect(JSON.parse(readFileSync(saveTo, "utf8")).simulations).toHaveLength(TOTAL);
  });

  it("Redis restarted mid-run (its jobs lost): the run says so, queues them again and completes", async () => {
    const workers = [startWorker(), startWorker()];
    await waitFor("2 workers", () => workers.every((w) => w.output().includes("ready")));
    const store = path.join(dir, "redis-restart.db");
    const coordinator = spawnPassk([
      ...runArgs(store, path.join(dir, "redis-restart.json")),
      "--queue",
      redis.url,
    ]);
    await waitFor("a stored conversation", () => storedRows(store).length >= 2);
    await redis.restart({ downMs: 300 });
    expect(await coordinator.exited, coordinator.output()).toBe(0);
    expect(coordinator.output()).toContain(`Redis at ${redis.url} is unreachable`);
    expectExactlyOnce(store);
  });

  it("a worker of another passk version refuses jobs with a sentence and leaves them to a matching worker", async () => {
    // A copy of the build that says it is another version.
    const other = mkdtempSync(path.join(tmpdir(), "passk-other-version-"));
    cpSync(path.join(REPO_ROOT, "dist"), path.join(other, "dist"), { recursive: true });
    writeFileSync(
      path.join(other, "package.json"),
      JSON.stringify({ name: "passk", version: "0.0.0-other", type: "module" }),
    );
    symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(other, "node_modules"));
    const stranger = startWorker([], { main: path.join(other, "dist", "cli", "main.js") });
    await waitFor("the other version's worker", () => stranger.output().includes("ready"));
    const store = path.join(dir, "version.db");
    const coordinator = spawnPassk([...runArgs(store, path.join(dir, "version.json")), "--queue", redis.url]);
    await waitFor("a refusal", () => coordinator.output().includes("runs passk 0.0.0-other and leaves"));
    expect(stranger.output()).toMatch(
      /worker \S+ runs passk 0\.0\.0-other and leaves mock task \S+ trial \d of run \S+ \(passk [^)]+\) to a worker of that version: install passk/,
    );
    expect(storedRows(store)).toHaveLength(0);
    const matching = startWorker();
    expect(await coordinator.exited, coordinator.output()).toBe(0);
    expectExactlyOnce(store);
    expect(matching.output()).toMatch(/ trial \d+: /);
    expect(stranger.output()).not.toMatch(/ trial \d+: (user_stop|agent_stop)/);
  });

  it("a worker with other data refuses jobs with a sentence and leaves them to a matching worker", async () => {
    // The same data but for one byte of the mock database.
    const otherData = mkdtempSync(path.join(tmpdir(), "passk-other-data-"));
    cpSync(path.join(tau2DataDir(), "mock"), path.join(otherData, "mock"), { recursive: true });
    const db = path.join(otherData, "mock", data.domain.data.db);
    writeFileSync(db, `${readFileSync(db, "utf8")}\n`);
    symlinkSync(path.join(tau2DataDir(), "user_simulator"), path.join(otherData, "user_simulator"));
    symlinkSync(tau2UpstreamDir(), path.join(otherData, "upstream"));
    const stranger = startWorker(["--data", otherData]);
    await waitFor("the other data's worker", () => stranger.output().includes("ready"));
    const store = path.join(dir, "data.db");
    const coordinator = spawnPassk([...runArgs(store, path.join(dir, "data.json")), "--queue", redis.url]);
    await waitFor("a refusal", () => coordinator.output().includes("data differs from the coordinator's"));
    expect(stranger.output()).toMatch(
      /worker \S+ leaves mock task \S+ trial \d of run \S+ to another worker: its mock data differs from the coordinator's \(digest [0-9a-f]+ here, [0-9a-f]+ there\); point --data or PASSK_DATA_DIR at the same data/,
    );
    expect(storedRows(store)).toHaveLength(0);
    const matching = startWorker();
    expect(await coordinator.exited, coordinator.output()).toBe(0);
    expectExactlyOnce(store);
    expect(matching.output()).toMatch(/ trial \d+: /);
    expect(stranger.output()).not.toMatch(/ trial \d+: /);
  });

  it("bad queue URLs are one sentence each, and nothing is stored", async () => {
    const nobody = await freePort();
    const store = path.join(dir, "bad.db");
    const unreachable = await runCli(
      [...runArgs(store, path.join(dir, "bad.json")), "--queue", `redis://127.0.0.1:${nobody}`],
      { env },
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(
      `--queue redis://127.0.0.1:${nobody}: cannot reach Redis or Valkey there (connect ECONNREFUSED 127.0.0.1:${nobody}); start redis-server or valkey-server`,
    );
    const wrong = await runCli(
      [...runArgs(store, path.join(dir, "bad.json")), "--queue", "http://user:secret@127.0.0.1:1"],
      { env },
    );
    expect(wrong.stderr).toContain(
      '--queue "http://[redacted]:[redacted]@127.0.0.1:1/" is not a Redis URL (http://); write redis://HOST:PORT',
    );
    expect(wrong.stderr).not.toContain("secret");
    const worker = await runCli(["worker", "--queue", `redis://127.0.0.1:${nobody}`], { env });
    expect(worker.stderr).toContain(
      `--queue redis://127.0.0.1:${nobody}: cannot reach Redis or Valkey there`,
    );
    const local = await runCli([...runArgs(store, path.join(dir, "bad.json")), "--local-workers", "2"], {
      env,
    });
    expect(local.stderr).toContain(
      "--local-workers applies to distributed runs: add --queue redis://HOST:PORT",
    );
    expect(existsSync(store)).toBe(false);
  });
});

describe("global limits on model calls, shared by every worker through Redis", () => {
  const crafted = () =>
    startMockLlmServer({
      delayMs: 40,
      script: craftedModel({ tasks: TASKS.map((id) => data.task(id)), trialSeeds: SEEDS }),
    });

  it("--max-concurrent-requests N is never exceeded across 3 workers (the mock counts the peak)", async () => {
    const model = await crafted();
    try {
      const workers = [startWorker([], { model }), startWorker([], { model }), startWorker([], { model })];
      await waitFor("3 workers", () => workers.every((w) => w.output().includes("ready")));
      const store = path.join(dir, "concurrent.db");
      const result = await runCli(
        [
          ...runArgs(store, path.join(dir, "concurrent.json"), model),
          "--max-concurrency",
          "6",
          "--queue",
          redis.url,
          "--max-concurrent-requests",
          "openai-compatible=2",
        ],
        { env },
      );
      expect(result.code, result.stderr).toBe(0);
      expectExactlyOnce(store);
      // 6 conversations at once would send up to 6 requests at once; the limit holds them to 2.
      expect(model.peakConcurrentRequests).toBe(2);
    } finally {
      await model.close();
    }
  });

  it("--requests-per-minute is honoured within 10% across 3 workers (a 1-second window)", async () => {
    const model = await crafted();
    try {
      const workers = [startWorker([], { model }), startWorker([], { model }), startWorker([], { model })];
      await waitFor("3 workers", () => workers.every((w) => w.output().includes("ready")));
      const store = path.join(dir, "rate.db");
      const result = await runCli(
        [
          ...runArgs(store, path.join(dir, "rate.json"), model),
          "--queue",
          redis.url,
          "--requests-per-minute",
          "openai-compatible=900",
          "--limit-window",
          "1",
        ],
        { env },
      );
      expect(result.code, result.stderr).toBe(0);
      expectExactlyOnce(store);
      // 900 a minute is 15 a second. The limiter's windows are fixed (each starts with its first
      // request), so the rate is 15 a second over whole seconds, and any one second holds at most two
      // windows' worth.
      const times = model.requests.map((r) => r.receivedAt).sort((a, b) => a - b);
      const spanSeconds = (times.at(-1)! - times[0]!) / 1000;
      expect(spanSeconds).toBeGreaterThanOrEqual(2);
      // S windows start within the first S - 0.5 seconds (a window fills within a few ms of its start
      // at this load); a last, partial window (the run ran dry) is left out.
      const windows = Math.floor(spanSeconds + 0.5);
      const rate = times.filter((t) => t < times[0]! + (windows - 0.5) * 1000).length / windows;
      expect(rate).toBeGreaterThanOrEqual(15 * 0.9);
      expect(rate).toBeLessThanOrEqual(15 * 1.1);
      const busiestSecond = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
      expect(busiestSecond).toBeLessThanOrEqual(30);
    } finally {
      await model.close();
    }
  });

  it("the same flags work in one process without Redis; a bad limit is one sentence", async () => {
    const model = await crafted();
    try {
      const store = path.join(dir, "in-process-limits.db");
      const result = await runCli(
        [
          ...runArgs(store, path.join(dir, "in-process-limits.json"), model),
          "--max-concurrent-requests",
          "openai-compatible:mock-agent=1",
          "openai-compatible:mock-user=1",
        ],
        { env },
      );
      expect(result.code, result.stderr).toBe(0);
      expectExactlyOnce(store);
      // One agent call and one customer call at a time: never more than 2 requests at once.
      expect(model.peakConcurrentRequests).toBe(2);
      const bad = await runCli(
        [...runArgs(store, path.join(dir, "bad-limit.json"), model), "--requests-per-minute", "openai"],
        {
          env,
        },
      );
      expect(bad.stderr).toContain(
        '--requests-per-minute "openai" is not TARGET=N with a whole number N ≥ 1; e.g. --requests-per-minute openai=10',
      );
    } finally {
      await model.close();
    }
  });
});
