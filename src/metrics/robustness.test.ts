import { describe, expect, it } from "vitest";
import { robustnessRow } from "./robustness.js";
import type { ScoredSimulation } from "./run-metrics.js";

/** Simulations of one run from per-task rewards, one per trial. */
function runOf(rewards: Record<string, number[]>): ScoredSimulation[] {
  return Object.entries(rewards).flatMap(([taskId, trials]) =>
    trials.map((reward, trial) => ({
      domain: "mock",
      task_id: taskId,
      trial,
      termination_reason: "user_stop",
      reward_info: { reward },
    })),
  );
}

describe("robustnessRow", () => {
  it("compares pass^k on the same tasks, with the drop, its paired interval and the tasks that broke", () => {
    // 2 trials. Clean: a 2/2, b 2/2, c 1/2, d 0/2 → pass^2 per task 1, 1, 0, 0 → 0.5.
    // Perturbed: a 2/2, b 1/2, c 0/2, d 0/2 → pass^2 1, 0, 0, 0 → 0.25.
    const clean = runOf({ a: [1, 1], b: [1, 1], c: [1, 0], d: [0, 0] });
    const perturbed = runOf({ a: [1, 1], b: [1, 0], c: [0, 0], d: [0, 0] });
    const row = robustnessRow("tool-faults@1", clean, perturbed, { numTrials: 2 });
    expect(row).toMatchObject({ k: 2, tasks: 4, clean: 0.5, perturbed: 0.25, drop: 0.25, robustness: 0.5 });
    // Per-task pass^2 drops: 0, 1, 0, 0 → one non-zero difference: the exact sign-flip p is 1.
    expect(row.p_value).toBe(1);
    // Resampling four tasks of which one dropped by 1: the mean drop lies in [0, 0.75] at worst, and
    // 0 and 0.5 are both well inside a 95% interval of it.
    expect(row.drop_interval!.low).toBe(0);
    expect(row.drop_interval!.high).toBeGreaterThanOrEqual(0.5);
    expect(row.drop_interval!.high).toBeLessThanOrEqual(0.75);
    // b lost pass^1 and pass^2; c lost pass^1 (0.5 → 0): both broke, b worst first.
    expect(row.broke).toEqual(["mock/b", "mock/c"]);
  });

  it("leaves robustness unknown when the clean pass^k is 0, and reports nothing without common tasks", () => {
    const none = robustnessRow("x@1", runOf({ a: [0] }), runOf({ a: [0] }), { numTrials: 1 });
    expect(none).toMatchObject({ clean: 0, perturbed: 0, drop: 0, robustness: null, broke: [] });
    const apart = robustnessRow("x@1", runOf({ a: [1] }), runOf({ b: [1] }), { numTrials: 1 });
    expect(apart).toMatchObject({ tasks: 0, clean: null, drop: null });
  });
});
