import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../core/seeded-random.js";
import {
  minimumDetectableDifference,
  normalQuantile,
  pairedComparison,
  planTrials,
  signFlipPValue,
  taskStatistics,
  trialsToDetect,
  wilsonInterval,
  describeTaskStability,
} from "./statistics.js";

/** C(n, k) as a float (small n). */
function comb(n: number, k: number): number {
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

describe("normal quantiles", () => {
  it.each([
    [0.975, 1.959963984540054],
    [0.8, 0.8416212335729143],
    [0.5, 0],
    [0.01, -2.3263478740408408],
    [0.999, 3.090232306167813],
  ])("Φ⁻¹(%d) = %d", (p, z) => expect(normalQuantile(p)).toBeCloseTo(z, 7));
});

describe("Wilson intervals", () => {
  it.each([
    [0, 10, 0, 0.2775],
    [5, 10, 0.2366, 0.7634],
    [10, 10, 0.7225, 1],
    [1, 4, 0.0456, 0.6994],
  ])("%d of %d → [%d, %d] (textbook values)", (x, n, low, high) => {
    const interval = wilsonInterval(x, n);
    expect(interval.low).toBeCloseTo(low, 4);
    expect(interval.high).toBeCloseTo(high, 4);
  });

  it("contains the observed rate, stays in [0, 1], and is symmetric in successes and failures", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const x = Math.round(f * n);
        const a = wilsonInterval(x, n);
        const b = wilsonInterval(n - x, n);
        expect(a.low).toBeLessThanOrEqual(x / n + 1e-12);
        expect(a.high).toBeGreaterThanOrEqual(x / n - 1e-12);
        expect(a.low).toBeGreaterThanOrEqual(0);
        expect(a.high).toBeLessThanOrEqual(1);
        expect(a.low).toBeCloseTo(1 - b.high, 10);
      }),
    );
  });

  it("flags a task that both passes and fails as flaky", () => {
    const stats = taskStatistics([
      { domain: "d", task_id: "always", trials: 4, successes: 4 },
      { domain: "d", task_id: "never", trials: 4, successes: 0 },
      { domain: "d", task_id: "sometimes", trials: 4, successes: 1 },
    ]);
    expect(stats.map((s) => s.flaky)).toEqual([false, false, true]);
    expect(stats[2]!.success_rate).toBe(0.25);
  });
});

describe("the sign-flip permutation test", () => {
  it("with one trial per task equals the exact McNemar test (brute-force binomial)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 6 }),
        (b, c, ties) => {
          const differences = [...Array(b).fill(1), ...Array(c).fill(-1), ...Array(ties).fill(0)];
          const m = b + c;
          let tail = 0;
          for (let i = 0; i <= Math.min(b, c); i++) tail += comb(m, i) / 2 ** m;
          const mcnemar = m === 0 || b === c ? 1 : Math.min(1, 2 * tail);
          expect(signFlipPValue(differences).p).toBeCloseTo(mcnemar, 12);
        },
      ),
    );
  });

  it("by Monte Carlo agrees with brute-force enumeration where it is too large to enumerate", () => {
    // 22 non-zero per-task differences of success rates (k = 4), mostly positive.
    const differences = Array.from({ length: 22 }, (_, i) => [0.25, 0.5, -0.25, 0.75, 0.25, -0.5][i % 6]!);
    const nonzero = differences.filter((d) => d !== 0);
    expect(nonzero.length).toBeGreaterThan(20);
    const observed = Math.abs(differences.reduce((s, d) => s + d, 0));
    let count = 0;
    for (let mask = 0; mask < 2 ** nonzero.length; mask++) {
      let sum = 0;
      for (let i = 0; i < nonzero.length; i++) sum += mask & (1 << i) ? nonzero[i]! : -nonzero[i]!;
      if (Math.abs(sum) >= observed - 1e-9) count++;
    }
    const exact = count / 2 ** nonzero.length;
    const estimate = signFlipPValue(differences, seededRandom(1), 40_000);
    expect(estimate.method).toBe("monte-carlo");
    expect(Math.abs(estimate.p - exact)).toBeLessThan(0.01);
  });
});

describe("paired comparisons and design", () => {
  it("identical runs are not distinguishable; a large consistent improvement is", () => {
    const same = pairedComparison(
      Array.from({ length: 30 }, (_, i) => ({ a: i % 3 === 0 ? 1 : 0.5, b: i % 3 === 0 ? 1 : 0.5 })),
      4,
    );
    expect(same).toMatchObject({ difference: 0, p_value: 1, distinguishable: false });
    const better = pairedComparison(
      Array.from({ length: 30 }, () => ({ a: 0.25, b: 1 })),
      4,
    );
    expect(better.distinguishable).toBe(true);
    expect(better.difference).toBeCloseTo(0.75, 12);
    expect(better.interval.low).toBeGreaterThan(0);
  });

  it("trialsToDetect gives the fewest trials whose detectable difference is small enough", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0.01, max: 0.5, noNaN: true }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (tasks, detect, successRate) => {
          const k = trialsToDetect({ tasks, detect, successRate });
          expect(minimumDetectableDifference({ tasks, trialsPerTask: k, successRate })).toBeLessThanOrEqual(
            detect + 1e-12,
          );
          if (k > 1)
            expect(minimumDetectableDifference({ tasks, trialsPerTask: k - 1, successRate })).toBeGreaterThan(
              detect,
            );
        },
      ),
    );
  });

  it("planTrials puts the needed trials among 1, 2, 4 … 32, ascending, each with what it detects", () => {
    const plan = planTrials({ tasks: 50, detect: 0.05 });
    expect(plan.trials).toBe(trialsToDetect({ tasks: 50, detect: 0.05 }));
    const counts = plan.choices.map((c) => c.trials);
    expect(counts).toEqual([...new Set([1, 2, 4, 8, 16, 32, plan.trials])].sort((a, b) => a - b));
    for (const choice of plan.choices) {
      expect(choice.conversations).toBe(choice.trials * 50);
      expect(choice.detectable).toBe(
        minimumDetectableDifference({ tasks: 50, trialsPerTask: choice.trials }),
      );
    }
  });
});

describe("describeTaskStability", () => {
  it("counts tasks that always pass, always fail and are flaky, and names the first five flaky ones with their interval", () => {
    const tasks = taskStatistics([
      { domain: "airline", task_id: "0", trials: 4, successes: 4 },
      { domain: "airline", task_id: "1", trials: 4, successes: 0 },
      { domain: "airline", task_id: "2", trials: 4, successes: 3 },
    ]);
    expect(describeTaskStability(tasks)).toBe(
      "tasks: 1 always pass, 1 always fail, 1 flaky (pass in some trials, fail in others): 2 3/4 [95% CI 0.30, 0.95]",
    );
    const flaky = taskStatistics(
      Array.from({ length: 6 }, (_, i) => ({
        domain: "retail",
        task_id: String(i),
        trials: 2,
        successes: 1,
      })),
    );
    expect(describeTaskStability(flaky)).toMatch(
      /^tasks: 0 always pass, 0 always fail, 6 flaky .*; 4 1\/2 \[[^\]]+\]; …$/,
    );
  });
});
