import { describe, expect, it } from "vitest";
import { seededRandom } from "../core/seeded-random.js";
import {
  describeAdaptive,
  fixedDesignTrials,
  meanSuccessInterval,
  nextTrials,
  trialTallies,
  type TrialTally,
} from "./adaptive-trials.js";

const tally = (task_id: string, trials: number, successes: number): TrialTally => ({
  domain: "d",
  task_id,
  trials,
  successes,
});

describe("meanSuccessInterval", () => {
  it("is the mean of the task rates with the binomial variance of each (textbook values)", () => {
    // a at 2/4: shrunk rate (2+1)/(4+2) = ½, variance ¼/4; half-width z·√(Σ variances)/2.
    const interval = meanSuccessInterval([tally("a", 4, 2), tally("b", 4, 1)]);
    expect(interval.estimate).toBe(0.375);
    // b: (1+1)/6 = ⅓, variance (⅓·⅔)/4.
    expect(interval.halfWidth).toBeCloseTo((1.959964 * Math.sqrt(1 / 16 + 2 / 36)) / 2, 6);
    expect(interval.trials).toBe(8);
  });

  it("keeps a task that always passed uncertain: its rate is shrunk toward ½ (Laplace)", () => {
    // 2 of 2: shrunk rate 3/4, variance (3/4 · 1/4) / 2.
    const interval = meanSuccessInterval([tally("a", 2, 2)]);
    expect(interval.estimate).toBe(1);
    expect(interval.halfWidth).toBeCloseTo(1.959964 * Math.sqrt(3 / 32), 6);
    expect(interval.high).toBe(1);
  });

  it("narrows as trials are added, and ignores tasks with none", () => {
    const few = meanSuccessInterval([tally("a", 2, 1), tally("b", 0, 0)]);
    const more = meanSuccessInterval([tally("a", 8, 4), tally("b", 0, 0)]);
    expect(few.tasks).toBe(1);
    expect(more.halfWidth).toBeLessThan(few.halfWidth);
  });
});

describe("nextTrials", () => {
  it("sends trials to undecided tasks first and never past maxTrials", () => {
    const tallies = [tally("always", 4, 4), tally("flaky", 4, 2), tally("never", 4, 0)];
    expect(nextTrials(tallies, { count: 1, maxTrials: 10 }).map((t) => t.task_id)).toEqual(["flaky"]);
    const many = nextTrials(tallies, { count: 30, maxTrials: 6 });
    const per = (id: string) => many.filter((t) => t.task_id === id).length;
    expect(per("flaky")).toBe(2);
    expect(per("always")).toBe(2);
    expect(per("never")).toBe(2);
    expect(many).toHaveLength(6);
  });

  it("a task without trials comes first", () => {
    expect(nextTrials([tally("a", 3, 1), tally("new", 0, 0)], { count: 1, maxTrials: 5 })[0]!.task_id).toBe(
      "new",
    );
  });
});

describe("fixedDesignTrials", () => {
  it("is the smallest k whose interval at the observed rates is no wider (brute force)", () => {
    const tallies = [tally("a", 4, 4), tally("b", 6, 3), tally("c", 3, 0), tally("d", 5, 2)];
    for (const width of [0.3, 0.2, 0.15, 0.1]) {
      const k = fixedDesignTrials(tallies, width);
      const at = (n: number) =>
        meanSuccessInterval(
          tallies.map((t) => ({ ...t, trials: n, successes: (t.successes / t.trials) * n })),
        ).halfWidth;
      expect(at(k)).toBeLessThanOrEqual(width + 1e-12);
      if (k > 1) expect(at(k - 1)).toBeGreaterThan(width);
    }
  });
});

describe("adaptive allocation (simulated trials at known probabilities)", () => {
  // 60 tasks: 24 always pass, 12 never, 24 flaky at 0.2–0.8. Truth is their mean.
  const probabilities = Array.from({ length: 60 }, (_, i) =>
    i < 24 ? 1 : i < 36 ? 0 : 0.2 + (0.6 * (i - 36)) / 23,
  );
  const truth = probabilities.reduce((a, b) => a + b, 0) / probabilities.length;

  function adaptiveRun(seed: number, target: number) {
    const random = seededRandom(seed);
    const tallies = probabilities.map((_, i) => tally(String(i), 0, 0));
    const draw = (t: TrialTally) => {
      t.trials++;
      if (random() < probabilities[Number(t.task_id)]!) t.successes++;
    };
    for (const t of tallies) for (let k = 0; k < 2; k++) draw(t);
    let interval = meanSuccessInterval(tallies);
    while (interval.halfWidth > target) {
      const picks = nextTrials(tallies, { count: 4, maxTrials: 40 });
      if (picks.length === 0) break;
      for (const pick of picks) draw(pick);
      interval = meanSuccessInterval(tallies);
    }
    return { interval, tallies };
  }

  it("covers the truth at about the nominal rate and gives flaky tasks the extra trials", () => {
    let covered = 0;
    const runs = 200;
    for (let seed = 1; seed <= runs; seed++) {
      const { interval } = adaptiveRun(seed, 0.05);
      expect(interval.halfWidth).toBeLessThanOrEqual(0.05);
      if (interval.low <= truth && truth <= interval.high) covered++;
    }
    expect(covered / runs).toBeGreaterThanOrEqual(0.93);
    const { tallies } = adaptiveRun(7, 0.05);
    const mean = (ids: TrialTally[]) => ids.reduce((a, t) => a + t.trials, 0) / ids.length;
    expect(mean(tallies.slice(36))).toBeGreaterThan(mean(tallies.slice(0, 36)));
    expect(Math.min(...tallies.map((t) => t.trials))).toBeGreaterThanOrEqual(2);
  });

  it("uses fewer conversations than the fixed design for the same width", () => {
    const { interval, tallies } = adaptiveRun(3, 0.05);
    const k = fixedDesignTrials(tallies, interval.halfWidth, { minTrials: 2 });
    expect(interval.trials).toBeLessThan(k * probabilities.length);
    expect(describeAdaptive(tallies, { minTrials: 2, maxTrials: 40, targetCi: 0.05 })).toMatch(
      /target ± 0\.05 reached[\s\S]*a fixed design needs \d+ trials per task \(\d+ conversations\) for the same interval: adaptive saved \d+ \(\d+%\)/,
    );
  });
});

describe("trialTallies", () => {
  it("counts evaluable trials of the planned tasks; infrastructure errors are no trial", () => {
    const tallies = trialTallies(
      [
        { domain: "d", task_id: "a", termination_reason: "user_stop", reward_info: { reward: 1 } },
        { domain: "d", task_id: "a", termination_reason: "infrastructure_error", reward_info: null },
        { domain: "d", task_id: "a", termination_reason: "max_steps", reward_info: { reward: 0 } },
        { domain: "d", task_id: "zzz", termination_reason: "user_stop", reward_info: { reward: 1 } },
      ],
      [{ domain: "d", tasks: [{ id: "a" }, { id: "b" }] }],
    );
    expect(tallies).toEqual([tally("a", 2, 1), tally("b", 0, 0)]);
  });
});
