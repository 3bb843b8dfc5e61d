import { describe, expect, it } from "vitest";
import type { Job } from "../core/job-queue.js";
import type { JobResult } from "./run-events.js";
import { describeProgress, formatDuration, RunProgress } from "./run-progress.js";

const job = (taskId: string, trial = 0): Job => ({
  runId: "r",
  domain: "mock",
  taskId,
  trial,
  attempt: 1,
  workerId: "w",
  leaseExpiresAt: "",
});
const result = (partial: Partial<JobResult>): JobResult => ({
  terminationReason: "user_stop",
  reward: 1,
  success: true,
  cost: 0.5,
  state: "done",
  written: true,
  ...partial,
});

describe("RunProgress", () => {
  it("counts results, running cost, errors by kind and an ETA from this session's pace", () => {
    let now = 0;
    const progress = new RunProgress({ now: () => now });
    progress.apply({
      type: "run-start",
      runId: "r",
      total: 10,
      done: 2,
      successes: 1,
      cost: 1,
      concurrency: 2,
    });
    const [a, b, c] = [job("a"), job("b"), job("c")];
    progress.apply({ type: "job-start", job: a, seed: 1 });
    progress.apply({ type: "job-start", job: b, seed: 1 });
    progress.apply({ type: "job-cost", job: a, cost: 0.25 });
    expect(progress.snapshot()).toMatchObject({ done: 2, running: 2, cost: 1.25, etaMs: null });
    now = 4000;
    progress.apply({ type: "job-end", job: a, durationMs: 1, result: result({}) });
    progress.apply({
      type: "job-end",
      job: b,
      durationMs: 1,
      result: result({
        terminationReason: "infrastructure_error",
        state: "queued",
        cost: null,
        success: false,
      }),
    });
    progress.apply({ type: "job-start", job: c, seed: 1 });
    progress.apply({
      type: "job-end",
      job: c,
      durationMs: 1,
      result: result({ terminationReason: "max_steps", reward: 0, success: false, cost: 0.5 }),
    });
    const snapshot = progress.snapshot();
    // 2 done this session in 4 s, 6 left: 12 s.
    expect(snapshot).toMatchObject({
      total: 10,
      done: 4,
      successes: 2,
      running: 0,
      cost: 2,
      retried: 1,
      errors: { infrastructure_error: 1, max_steps: 1 },
      etaMs: 12_000,
    });
    expect(describeProgress(snapshot)).toBe(
      "4/10 done | 2 passed | 0 running | $2.0000 | ETA 12s | errors: infrastructure_error 1, max_steps 1 (1 retried)",
    );
    progress.apply({ type: "cost-unknown", job: c });
    progress.apply({ type: "budget-reached", spent: 2, maxCost: 2, inFlight: 0 });
    expect(describeProgress(progress.snapshot())).toContain("$2.0000 (some prices unknown)");
    expect(describeProgress(progress.snapshot())).toContain("| budget reached: no new conversations");
  });

  it("formats durations", () => {
    expect([
      formatDuration(0),
      formatDuration(12_400),
      formatDuration(245_000),
      formatDuration(3_725_000),
    ]).toEqual(["0s", "12s", "4m05s", "1h02m"]);
  });
});
