import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { SimulationRunInput } from "../formats/tau2/results.js";
import type { Job } from "../core/job-queue.js";
import { SqliteJobQueue } from "./sqlite-job-queue.js";
import { Store } from "./store.js";

const opened: Store[] = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));

function setup(options: { maxAttempts?: number } = {}) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "passk-queue-")), "passk.db");
  const clock = { ms: Date.parse("2026-01-01T00:00:00Z") };
  const openStore = () => {
    const store = Store.open(file, { now: () => new Date(clock.ms) });
    opened.push(store);
    return {
      store,
      queue: new SqliteJobQueue(store, { maxAttempts: options.maxAttempts ?? 3, leaseMs: 60_000 }),
    };
  };
  return { file, clock, openStore };
}

function result(job: Pick<Job, "taskId" | "trial">, id: string, reason = "user_stop"): SimulationRunInput {
  return {
    id,
    task_id: job.taskId,
    trial: job.trial,
    termination_reason: reason as SimulationRunInput["termination_reason"],
    reward_info: reason === "infrastructure_error" ? null : { reward: 1 },
    messages: [],
  };
}

const jobs = (tasks: string[], trials: number) =>
  tasks.flatMap((taskId) =>
    Array.from({ length: trials }, (_, trial) => ({ domain: "mock", taskId, trial })),
  );

describe("SqliteJobQueue", () => {
  it("hands each job to one worker and finishes it with its result", async () => {
    const { openStore } = setup();
    const { store, queue } = openStore();
    const run = store.createRun();
    expect(await queue.enqueue(run.id, jobs(["a", "b"], 2))).toEqual({ queued: 4, done: 0 });
    expect(await queue.enqueue(run.id, jobs(["a"], 2))).toEqual({ queued: 4, done: 0 });
    const first = await queue.claim({ runId: run.id, workerId: "w1", limit: 3 });
    const second = await queue.claim({ runId: run.id, workerId: "w2", limit: 3 });
    expect(first.map((j) => `${j.taskId}/${j.trial}`)).toEqual(["a/0", "a/1", "b/0"]);
    expect(second.map((j) => `${j.taskId}/${j.trial}`)).toEqual(["b/1"]);
    expect(first[0]).toMatchObject({
      attempt: 1,
      workerId: "w1",
      leaseExpiresAt: "2026-01-01T00:01:00.000Z",
    });
    for (const job of [...first, ...second]) {
      expect(await queue.complete(job, result(job, `${job.taskId}${job.trial}`))).toEqual({
        state: "done",
        written: true,
      });
    }
    expect(await queue.counts(run.id)).toEqual({ queued: 0, claimed: 0, done: 4, failed: 0, total: 4 });
    expect(store.getSimulations(run.id)).toHaveLength(4);
  });

  it("retries infrastructure errors, then marks the job failed with the error stored; resume retries it again", async () => {
    const { openStore } = setup({ maxAttempts: 2 });
    const { store, queue } = openStore();
    const run = store.createRun();
    await queue.enqueue(run.id, jobs(["a"], 1));
    const [job1] = await queue.claim({ runId: run.id, workerId: "w" });
    expect(await queue.complete(job1!, result(job1!, "x1", "infrastructure_error"))).toEqual({
      state: "queued",
      written: true,
    });
    const [job2] = await queue.claim({ runId: run.id, workerId: "w" });
    expect(job2!.attempt).toBe(2);
    expect(await queue.fail(job2!, { message: "provider 503" })).toBe("failed");
    expect(await queue.claim({ runId: run.id, workerId: "w" })).toEqual([]);
    expect(store.getSimulation(run.id, "mock", "a", 0)!.simulation.termination_reason).toBe(
      "infrastructure_error",
    );

    expect(await queue.recover(run.id)).toBe(1);
    const [job3] = await queue.claim({ runId: run.id, workerId: "w" });
    expect(job3!.attempt).toBe(1);
    expect(await queue.complete(job3!, result(job3!, "ok"))).toEqual({ state: "done", written: true });
    expect(store.getSimulation(run.id, "mock", "a", 0)!.simulation.id).toBe("ok");
  });

  it("gives an expired lease to another worker; the first evaluable result wins", async () => {
    const { openStore, clock } = setup();
    const { store, queue } = openStore();
    const run = store.createRun();
    await queue.enqueue(run.id, jobs(["a"], 1));
    const [slow] = await queue.claim({ runId: run.id, workerId: "slow" });
    expect(await queue.claim({ runId: run.id, workerId: "fast" })).toEqual([]);
    clock.ms += 61_000;
    const [fast] = await queue.claim({ runId: run.id, workerId: "fast" });
    expect(fast!.attempt).toBe(2);
    expect(await queue.complete(fast!, result(fast!, "fast"))).toEqual({ state: "done", written: true });
    expect(await queue.complete(slow!, result(slow!, "slow"))).toEqual({ state: "done", written: false });
    expect(store.getSimulation(run.id, "mock", "a", 0)!.simulation.id).toBe("fast");
  });

  it("keeps a lease alive with heartbeats and leaves a held job alone when a stale worker fails it", async () => {
    const { openStore, clock } = setup();
    const { store, queue } = openStore();
    const run = store.createRun();
    await queue.enqueue(run.id, jobs(["a"], 1));
    const [job] = await queue.claim({ runId: run.id, workerId: "w1" });
    clock.ms += 50_000;
    await queue.heartbeat([job!]);
    clock.ms += 50_000;
    expect(await queue.claim({ runId: run.id, workerId: "w2" })).toEqual([]);
    clock.ms += 20_000;
    const [taken] = await queue.claim({ runId: run.id, workerId: "w2" });
    expect(await queue.fail(job!, { message: "late" })).toBe("claimed");
    expect(await queue.counts(run.id)).toMatchObject({ claimed: 1 });
    expect(taken!.workerId).toBe("w2");
  });

  it("on resume, does not re-run (task, trial)s that already have an evaluable result", async () => {
    const { openStore } = setup();
    const { store, queue } = openStore();
    const run = store.createRun();
    store.putSimulation(run.id, "mock", result({ taskId: "a", trial: 0 }, "done-before"));
    store.putSimulation(run.id, "mock", result({ taskId: "a", trial: 1 }, "outage", "infrastructure_error"));
    expect(await queue.enqueue(run.id, jobs(["a"], 3))).toEqual({ queued: 2, done: 1 });
    const claimed = await queue.claim({ runId: run.id, workerId: "w", limit: 5 });
    expect(claimed.map((j) => j.trial)).toEqual([1, 2]);
  });

  it("refuses a result that does not answer the job", async () => {
    const { openStore } = setup();
    const { store, queue } = openStore();
    const run = store.createRun();
    await queue.enqueue(run.id, jobs(["a"], 1));
    const [job] = await queue.claim({ runId: run.id, workerId: "w" });
    await expect(queue.complete(job!, result({ taskId: "b", trial: 0 }, "x"))).rejects.toThrow(
      /does not answer job/,
    );
  });
});

describe("a run killed at any point and resumed", () => {
  type Step =
    | { kind: "claim"; limit: number }
    | { kind: "complete"; index: number; infra: boolean }
    | { kind: "crash" };
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant("claim" as const), limit: fc.integer({ min: 1, max: 3 }) }),
    },
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant("complete" as const), index: fc.nat(), infra: fc.boolean() }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "crash" as const }) },
  );

  it("holds each (task, trial) exactly once and never re-runs a finished one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { openStore } = setup({ maxAttempts: 2 });
        let { store, queue } = openStore();
        const run = store.createRun();
        const all = jobs(["a", "b", "c"], 2);
        await queue.enqueue(run.id, all);
        let inFlight: Job[] = [];
        const evaluableRuns = new Map<string, number>();
        let counter = 0;
        const finish = async (job: Job, infra: boolean) => {
          const key = `${job.taskId}/${job.trial}`;
          const outcome = await queue.complete(
            job,
            result(job, `${key}#${counter++}`, infra ? "infrastructure_error" : "user_stop"),
          );
          if (!infra && outcome.written) evaluableRuns.set(key, (evaluableRuns.get(key) ?? 0) + 1);
        };
        const claim = async (limit: number) => {
          const claimed = await queue.claim({ runId: run.id, workerId: "w", limit });
          // A finished conversation is never started again.
          for (const job of claimed) expect(evaluableRuns.has(`${job.taskId}/${job.trial}`)).toBe(false);
          return claimed;
        };
        for (const s of steps) {
          if (s.kind === "claim") inFlight.push(...(await claim(s.limit)));
          else if (s.kind === "complete" && inFlight.length > 0) {
            const [job] = inFlight.splice(s.index % inFlight.length, 1);
            await finish(job!, s.infra);
          } else if (s.kind === "crash") {
            // The process dies: in-flight conversations are lost; a new process resumes the run.
            store.close();
            ({ store, queue } = openStore());
            inFlight = [];
            await queue.recover(run.id);
            await queue.enqueue(run.id, all);
          }
        }
        // Resume once more and drain with conversations that succeed.
        store.close();
        ({ store, queue } = openStore());
        await queue.recover(run.id);
        for (;;) {
          const [job] = await claim(1);
          if (!job) break;
          await finish(job, false);
        }
        const stored = store
          .getSimulations(run.id)
          .map((s) => `${s.simulation.task_id}/${s.simulation.trial}`);
        expect(stored.sort()).toEqual(all.map((j) => `${j.taskId}/${j.trial}`).sort());
        for (const key of stored) expect(evaluableRuns.get(key)).toBe(1);
        expect(
          store.getSimulations(run.id).every((s) => s.simulation.termination_reason === "user_stop"),
        ).toBe(true);
        expect(await queue.counts(run.id)).toMatchObject({ done: 6, total: 6 });
        store.close();
      }),
      { numRuns: 40 },
    );
  });
});
