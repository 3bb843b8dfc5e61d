import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, SimulationAbortedError } from "../core/errors.js";
import type { SimulationRunInput } from "../formats/tau2/results.js";
import { SqliteJobQueue } from "../store/sqlite-job-queue.js";
import { Store } from "../store/store.js";
import { executeRun, type JobContext } from "./execute-run.js";
import type { RunEvent } from "./run-events.js";
import { planRun } from "./run-plan.js";

const opened: Store[] = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));

function setup(tasks: string[], numTrials: number, maxAttempts = 3) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "passk-execute-")), "passk.db");
  const store = Store.open(file);
  opened.push(store);
  const queue = new SqliteJobQueue(store, { maxAttempts });
  const run = store.createRun({ numTrials });
  const plan = planRun({
    domains: [{ domain: "mock", tasks: tasks.map((id) => ({ id }) as never) }],
    numTrials,
    seed: 300,
  });
  return { store, queue, runId: run.id, plan };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function simulation(context: JobContext, options: { reason?: string; reward?: number; cost?: number } = {}) {
  const cost = options.cost ?? 0.5;
  return {
    id: `${context.job.taskId}-${context.job.trial}-${context.job.attempt}`,
    task_id: context.job.taskId,
    trial: context.job.trial,
    seed: context.seed,
    termination_reason: (options.reason ?? "user_stop") as SimulationRunInput["termination_reason"],
    agent_cost: cost / 2,
    user_cost: cost / 2,
    reward_info: { reward: options.reward ?? 1 },
    messages: [],
  } satisfies SimulationRunInput;
}

const keys = (store: Store, runId: string) =>
  store
    .getSimulations(runId)
    .map((s) => `${s.simulation.task_id}/${s.simulation.trial}`)
    .sort();

describe("executeRun", () => {
  it("runs every (task, trial) once with at most `concurrency` at a time, each with its trial's seed", async () => {
    const { store, queue, runId, plan } = setup(["a", "b", "c", "d", "e"], 3);
    await queue.enqueue(runId, plan.jobs);
    let running = 0;
    let peak = 0;
    const seen: Array<[number, number]> = [];
    const outcome = await executeRun({
      queue,
      runId,
      concurrency: 4,
      seedOf: (job) => plan.trialSeeds[job.trial]!,
      runJob: async (context) => {
        running++;
        peak = Math.max(peak, running);
        seen.push([context.job.trial, context.seed]);
        await sleep(5);
        running--;
        return simulation(context);
      },
    });
    expect(outcome.reason).toBe("completed");
    expect(outcome.counts).toMatchObject({ done: 15, queued: 0, claimed: 0, total: 15 });
    expect(peak).toBe(4);
    expect(keys(store, runId)).toHaveLength(15);
    expect(new Set(keys(store, runId)).size).toBe(15);
    // Trial t gets CPython's t-th randint(0, 1000000) after random.seed(300).
    const seedOfTrial = Object.fromEntries(seen);
    expect(seedOfTrial).toEqual({ 0: 626729, 1: 373753, 2: 361454 });
    expect(outcome.spent).toBeCloseTo(15 * 0.5, 10);
  });

  it("retries infrastructure errors and harness exceptions; a job that keeps failing is stored once, as an infrastructure error", async () => {
    const { store, queue, runId, plan } = setup(["flaky", "broken", "fine"], 2, 3);
    await queue.enqueue(runId, plan.jobs);
    const events: RunEvent[] = [];
    const outcome = await executeRun({
      queue,
      runId,
      concurrency: 3,
      seedOf: (job) => plan.trialSeeds[job.trial]!,
      onEvent: (e) => events.push(e),
      runJob: async (context) => {
        await sleep(1);
        if (context.job.taskId === "flaky" && context.job.attempt === 1)
          return simulation(context, { reason: "infrastructure_error", cost: 0 });
        if (context.job.taskId === "broken") throw new Error("evaluation exploded");
        return simulation(context);
      },
    });
    expect(outcome.reason).toBe("completed");
    expect(outcome.counts).toMatchObject({ done: 4, failed: 2, queued: 0, total: 6 });
    const stored = store.getSimulations(runId).map((s) => s.simulation);
    expect(keys(store, runId)).toEqual(["broken/0", "broken/1", "fine/0", "fine/1", "flaky/0", "flaky/1"]);
    const flaky = stored.filter((s) => s.task_id === "flaky");
    expect(flaky.map((s) => [s.termination_reason, s.id.endsWith("-2")])).toEqual([
      ["user_stop", true],
      ["user_stop", true],
    ]);
    const broken = stored.filter((s) => s.task_id === "broken");
    expect(broken.map((s) => s.termination_reason)).toEqual(["infrastructure_error", "infrastructure_error"]);
    expect(broken[0]!.info).toEqual({ error: "evaluation exploded" });
    expect(events.filter((e) => e.type === "job-error")).toHaveLength(6); // 2 trials × 3 attempts
  });

  it("starts no conversation once the budget is reached, lets those in flight end, and says so", async () => {
    const { store, queue, runId, plan } = setup(["a", "b", "c", "d"], 2);
    await queue.enqueue(runId, plan.jobs);
    const events: RunEvent[] = [];
    const outcome = await executeRun({
      queue,
      runId,
      concurrency: 1,
      maxCost: 2.5,
      previous: { cost: 1, successes: 1 },
      seedOf: () => 1,
      onEvent: (e) => events.push(e),
      runJob: async (context) => {
        context.reportCost(0.25);
        await sleep(5);
        context.reportCost(0.5);
        return simulation(context, { cost: 0.5 });
      },
    });
    // 1.0 spent before, 0.5 each: after 3 conversations (2.5) nothing new starts.
    expect(outcome.reason).toBe("budget_reached");
    expect(keys(store, runId)).toHaveLength(3);
    expect(outcome.counts.queued).toBe(5);
    expect(outcome.spent).toBeCloseTo(2.5, 10);
    expect(events.find((e) => e.type === "budget-reached")).toMatchObject({ maxCost: 2.5 });
    expect(events.at(-1)).toMatchObject({ type: "run-end", reason: "budget_reached" });
  });

  it("a set-up error (refused credentials) stops the run: nothing more starts, nothing is graded, it resumes", async () => {
    const { store, queue, runId, plan } = setup(["a", "b", "c", "d"], 2);
    await queue.enqueue(runId, plan.jobs);
    let started = 0;
    const outcome = await executeRun({
      queue,
      runId,
      concurrency: 2,
      seedOf: () => 1,
      runJob: async (context) => {
        started++;
        if (context.job.taskId === "a" && context.job.trial === 0) return simulation(context);
        await sleep(5);
        if (context.signal.aborted) throw new SimulationAbortedError();
        throw new ConfigError("openai: the provider refused the credentials (HTTP 401)");
      },
    });
    expect(outcome.reason).toBe("interrupted");
    expect(outcome.setupError?.message).toContain("HTTP 401");
    expect(started).toBeLessThanOrEqual(3);
    // Only the conversation that ended on its own is stored; none is graded as a failure.
    expect(keys(store, runId)).toEqual(["a/0"]);
    expect(outcome.counts.claimed).toBe(0);
    expect(outcome.counts.queued + outcome.counts.failed).toBe(7);

    await queue.recover(runId);
    const resumed = await executeRun({
      queue,
      runId,
      concurrency: 2,
      seedOf: () => 1,
      runJob: async (context) => simulation(context),
    });
    expect(resumed.reason).toBe("completed");
    expect(resumed.setupError).toBeUndefined();
    expect(keys(store, runId)).toHaveLength(8);
  });

  it("a graceful stop lets conversations in flight finish and store; a hard stop puts them back unstored", async () => {
    const { store, queue, runId, plan } = setup(["a", "b", "c"], 2);
    await queue.enqueue(runId, plan.jobs);
    const stop = new AbortController();
    const graceful = await executeRun({
      queue,
      runId,
      concurrency: 2,
      stopSignal: stop.signal,
      seedOf: () => 1,
      runJob: async (context) => {
        if (context.job.taskId === "b") stop.abort();
        await sleep(10);
        return simulation(context);
      },
    });
    expect(graceful.reason).toBe("interrupted");
    expect(keys(store, runId)).toEqual(["a/0", "b/0"]);

    const hard = new AbortController();
    const aborted = await executeRun({
      queue,
      runId,
      concurrency: 2,
      abortSignal: hard.signal,
      seedOf: () => 1,
      runJob: (context) =>
        new Promise((_, reject) => {
          context.signal.addEventListener("abort", () => reject(new SimulationAbortedError()));
          if (context.job.taskId === "a") setTimeout(() => hard.abort(), 5);
        }),
    });
    expect(aborted.reason).toBe("interrupted");
    expect(keys(store, runId)).toEqual(["a/0", "b/0"]);
    expect(aborted.counts.claimed).toBe(0);

    // Resuming finishes the rest, each (task, trial) once.
    await queue.recover(runId);
    const resumed = await executeRun({
      queue,
      runId,
      concurrency: 2,
      seedOf: () => 1,
      runJob: async (context) => simulation(context),
    });
    expect(resumed.reason).toBe("completed");
    expect(keys(store, runId)).toEqual(["a/0", "a/1", "b/0", "b/1", "c/0", "c/1"]);
  });
});
