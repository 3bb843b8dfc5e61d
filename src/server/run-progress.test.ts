import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import type { Results } from "../core/simulation.js";
import { builtinDomains } from "../domains/registry.js";
import { parseResults } from "../formats/tau2/results.js";
import { SqliteJobQueue } from "../store/sqlite-job-queue.js";
import { Store } from "../store/store.js";
import { tau2DataDir, fixtureDomainData } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { buildResults } from "../../test/web/helpers/seed-results.js";
import { RunListSchema, RunDetailSchema, STALLED_AFTER_SECONDS, type RunSummary } from "./api-schemas.js";
import { createServer } from "./create-server.js";
import { sqliteRunCatalog } from "./run-catalog.js";

const data = fixtureDomainData("mock");
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
let folder: string;
let results: Results;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "passk-run-progress-"));
  // Two trials of three tasks; update_task_1 fails its trial 1.
  results = await buildResults(data, {
    taskIds: TASKS,
    trials: 2,
    fails: (task, trial) => task === "update_task_1" && trial === 1,
  });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A store and a server sharing one clock that the test moves, as a runner and `passk serve` would. */
function setUp() {
  let clock = new Date("2026-01-05T10:00:00.000Z");
  const now = () => clock;
  const store = Store.open(path.join(folder, `${Math.random()}.db`), { create: true, now });
  const server = createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    participants: {
      agents: ["scripted:gold"],
      users: ["scripted:gold"],
      agentFor: () => goldAgent,
      customerFor: () => goldUser,
    },
    store: sqliteRunCatalog(store),
    now,
  });
  const summary = async (runId: string): Promise<RunSummary> => {
    const list = RunListSchema.parse(await (await server.request("/api/runs")).json());
    const fromList = list.runs.find((r) => r.id === runId)!;
    // The run page reads the same summary.
    const detail = RunDetailSchema.parse(await (await server.request(`/api/runs/${runId}`)).json());
    expect(detail.run).toEqual(fromList);
    return fromList;
  };
  const advance = (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000));
  return { store, queue: new SqliteJobQueue(store), summary, advance, now };
}

const simulation = (taskId: string, trial: number) =>
  results.simulations.find((s) => s.task_id === taskId && s.trial === trial)!;

describe("the explorer's view of a run in progress", () => {
  it("counts what is stored against what the runner queued, with pass^1 so far, its pace and what is left", async () => {
    const { store, queue, summary, advance, now } = setUp();
    const run = store.createRun({
      numTrials: 2,
      config: { runner: { pid: 1, host: "coordinator", started_at: now().toISOString() } },
      info: results.info,
    });
    store.putTasks(run.id, "mock", results.tasks);
    await queue.enqueue(
      run.id,
      TASKS.flatMap((taskId) => [0, 1].map((trial) => ({ domain: "mock", taskId, trial }))),
    );
    let s = await summary(run.id);
    expect(s.status).toBe("running");
    expect(s.progress).toMatchObject({
      planned: 6,
      done: 0,
      perMinute: null,
      etaSeconds: null,
      stalled: false,
    });
    expect(s.progress.startedAt).toBe("2026-01-05T10:00:00.000Z");

    // Two conversations a minute apart: 2 in 2 minutes, 4 left → 4 more minutes.
    for (const [taskId, trial] of [
      ["create_task_1", 0],
      ["update_task_1", 1],
    ] as const) {
      advance(60);
      store.putSimulation(run.id, "mock", simulation(taskId, trial));
    }
    s = await summary(run.id);
    expect(s.progress).toMatchObject({ planned: 6, done: 2, idleSeconds: 0, stalled: false });
    expect(s.progress.updatedAt).toBe("2026-01-05T10:02:00.000Z");
    expect(s.progress.perMinute).toBeCloseTo(1, 10);
    expect(s.progress.etaSeconds).toBe(240);
    expect(s.passHatKs["1"]).toBe(0.5);
    expect(s.simulations).toBe(2);

    // An infrastructure error is stored: it counts as done (and is not graded).
    advance(60);
    store.putSimulation(run.id, "mock", {
      ...simulation("impossible_task_1", 0),
      termination_reason: "infrastructure_error",
      reward_info: null,
    });
    s = await summary(run.id);
    expect(s.progress.done).toBe(3);
    expect(s.passHatKs["1"]).toBe(0.5);

    // Its retry replaces it with a graded result: same count, new pass^1 (no stale cached metrics).
    advance(30);
    store.putSimulation(run.id, "mock", simulation("impossible_task_1", 0));
    s = await summary(run.id);
    expect(s.progress.done).toBe(3);
    expect(s.passHatKs["1"]).toBeCloseTo(2 / 3, 10);

    // A lease renewal (a long conversation in flight) is a sign of life too.
    advance(STALLED_AFTER_SECONDS - 10);
    const [claimed] = await queue.claim({ runId: run.id, workerId: "w1" });
    advance(STALLED_AFTER_SECONDS - 10);
    await queue.heartbeat([claimed!]);
    advance(20);
    s = await summary(run.id);
    expect(s.progress).toMatchObject({ idleSeconds: 20, stalled: false });

    // Nothing moves for longer than the threshold: the run says so instead of running forever.
    advance(STALLED_AFTER_SECONDS + 1);
    s = await summary(run.id);
    expect(s.status).toBe("running");
    expect(s.progress).toMatchObject({ stalled: true, perMinute: null, etaSeconds: null });

    // The rest arrives and the runner marks the run completed.
    for (const [taskId, trial] of [
      ["create_task_1", 1],
      ["update_task_1", 0],
      ["impossible_task_1", 1],
    ] as const)
      store.putSimulation(run.id, "mock", simulation(taskId, trial));
    store.updateRun(run.id, { status: "completed", config: { runner: null } });
    s = await summary(run.id);
    expect(s.status).toBe("completed");
    expect(s.progress).toMatchObject({
      planned: 6,
      done: 6,
      stalled: false,
      startedAt: null,
      perMinute: null,
      etaSeconds: null,
    });
    expect(s.passHatKs["1"]).toBeCloseTo(5 / 6, 10);
  });

  it("an adaptive run's plan grows with each round it queues, and gives no ETA", async () => {
    const { store, queue, summary, advance, now } = setUp();
    const run = store.createRun({
      numTrials: 1,
      config: {
        runner: { pid: 1, host: "coordinator", started_at: now().toISOString() },
        adaptive: { target_ci: 0.05, max_trials: 2 },
      },
      info: results.info,
    });
    await queue.enqueue(
      run.id,
      TASKS.map((taskId) => ({ domain: "mock", taskId, trial: 0 })),
    );
    for (const taskId of TASKS) {
      advance(10);
      store.putSimulation(run.id, "mock", simulation(taskId, 0));
    }
    let s = await summary(run.id);
    expect(s.progress).toMatchObject({ planned: 3, done: 3, adaptive: true, etaSeconds: null });
    expect(s.progress.perMinute).toBeCloseTo(6, 10);
    await queue.enqueue(run.id, [{ domain: "mock", taskId: "update_task_1", trial: 1 }]);
    s = await summary(run.id);
    expect(s.progress).toMatchObject({ planned: 4, done: 3 });
  });

  it("an imported run is done as soon as it is stored", async () => {
    const { store, summary } = setUp();
    const text = JSON.stringify(results);
    const runId = sqliteRunCatalog(store).importResults(parseResults(text, "r.json"), { domain: "mock" });
    const s = await summary(runId);
    expect(s.status).toBe("imported");
    expect(s.progress).toMatchObject({ planned: 6, done: 6, stalled: false, startedAt: null });
  });
});
