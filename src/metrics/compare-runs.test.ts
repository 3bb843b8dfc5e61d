import { describe, expect, it } from "vitest";
import { compareRuns } from "./compare-runs.js";
import { computeMetrics, type ScoredSimulation } from "./run-metrics.js";

const run = (outcomes: Record<string, number[]>): ScoredSimulation[] =>
  Object.entries(outcomes).flatMap(([task, rewards]) =>
    rewards.map((reward, trial) => ({
      domain: "mock",
      task_id: task,
      trial,
      termination_reason: "agent_stop",
      reward_info: { reward },
    })),
  );

describe("compareRuns", () => {
  const a = run({ T1: [1, 1, 1], T2: [1, 0, 1], T3: [0, 0, 0], OLD: [1, 1, 1] });
  const b = run({ T1: [1, 0, 1], T2: [1, 1, 1], T3: [0, 0, 0], NEW: [0, 0, 0] });
  const comparison = compareRuns({ simulations: a, numTrials: 3 }, { simulations: b, numTrials: 3 });

  it("gives per-task pass^k differences", () => {
    const t1 = comparison.tasks.find((t) => t.task_id === "T1")!;
    expect(t1.before).toEqual([1, 1, 1]);
    // 2 of 3: pass^1 = 2/3, pass^2 = C(2,2)/C(3,2) = 1/3, pass^3 = 0
    expect(t1.after).toEqual([2 / 3, 1 / 3, 0]);
    expect(t1.difference).toEqual([2 / 3 - 1, 1 / 3 - 1, -1]);
  });

  it("lists regressed and improved tasks and those in one run only", () => {
    expect(comparison.regressed.map((t) => t.task_id)).toEqual(["T1"]);
    expect(comparison.improved.map((t) => t.task_id)).toEqual(["T2"]);
    expect(comparison.only_in_a).toEqual(["mock/OLD"]);
    expect(comparison.only_in_b).toEqual(["mock/NEW"]);
    expect(comparison.k).toBe(3);
    expect(comparison.pass_hat_ks_a[1]).toBeCloseTo((1 + 2 / 3 + 0) / 3, 15);
    expect(comparison.pass_hat_ks_b[1]).toBeCloseTo((2 / 3 + 1 + 0) / 3, 15);
  });

  it("gives no pass^k (not 0) when the runs have no task in common", () => {
    const disjoint = compareRuns({ simulations: run({ X: [1, 1] }) }, { simulations: run({ Y: [1, 1] }) });
    expect(disjoint.tasks).toEqual([]);
    expect(disjoint.pass_hat_ks_a).toEqual({});
    expect(disjoint.pass_hat_ks_b).toEqual({});
  });

  it("uses the smaller K of the two runs", () => {
    const short = run({ T1: [1, 1], T2: [1, 1], T3: [0, 1] });
    expect(compareRuns({ simulations: a, numTrials: 3 }, { simulations: short, numTrials: 2 }).k).toBe(2);
  });

  it("averages pass^k as `report` does: over the same tasks, the same numbers to the last bit", () => {
    // 40 tasks of mixed outcomes: a plain left-to-right sum and numpy's pairwise sum differ here.
    const patterns = [
      [1, 1, 0],
      [1, 0, 0],
      [1, 1, 1],
      [0, 0, 0],
      [0, 1, 1],
      [1, 0, 1],
      [0, 0, 1],
    ];
    const many = run(
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`T${i}`, patterns[(i * 5) % 7]!])),
    );
    const same = compareRuns({ simulations: many, numTrials: 3 }, { simulations: many, numTrials: 3 });
    const metrics = computeMetrics(many, { numTrials: 3, bootstrap: { resamples: 0 } });
    expect(same.pass_hat_ks_a).toEqual(metrics.pass_hat_ks);
    expect(same.pass_hat_ks_b).toEqual(metrics.pass_hat_ks);
  });
});
