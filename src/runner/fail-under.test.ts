import { describe, expect, it } from "vitest";
import type { Metrics, RunMetrics } from "../metrics/run-metrics.js";
import {
  checkRobustnessThresholds,
  checkThresholds,
  parseRobustnessThresholds,
  parseThresholds,
  splitThresholds,
} from "./fail-under.js";

function metrics(partial: Partial<Metrics>): Metrics {
  return {
    avg_reward: 0,
    pass_hat_ks: {},
    pass_at_ks: {},
    pass_hat_k_cis: {},
    avg_agent_cost: null,
    avg_user_cost: null,
    avg_total_cost: null,
    unknown_agent_costs: 0,
    unknown_user_costs: 0,
    avg_duration: null,
    total_simulations: 8,
    total_tasks: 2,
    infra_error_count: 0,
    successful_simulations: 0,
    termination_reasons: {},
    termination_user_stop: 0,
    termination_agent_stop: 0,
    termination_max_steps: 0,
    termination_error: 0,
    termination_infrastructure_error: 0,
    total_read_actions: 0,
    correct_read_actions: 0,
    total_write_actions: 0,
    correct_write_actions: 0,
    db_match_count: 0,
    db_mismatch_count: 0,
    db_not_checked: 0,
    ...partial,
  };
}

describe("parseThresholds", () => {
  it("reads pass^k, pass_hat_k, pass@k and avg_reward, comma-separated or repeated, per domain", () => {
    expect(
      parseThresholds(["pass^4=0.8, pass@2=0.95", "airline:avg_reward=0.5", "pass_hat_1=1"], {
        numTrials: 4,
        domains: ["airline", "retail"],
      }),
    ).toEqual([
      { text: "pass^4=0.8", metric: "pass^k", k: 4, min: 0.8 },
      { text: "pass@2=0.95", metric: "pass@k", k: 2, min: 0.95 },
      { text: "airline:avg_reward=0.5", metric: "avg_reward", domain: "airline", min: 0.5 },
      { text: "pass_hat_1=1", metric: "pass^k", k: 1, min: 1 },
    ]);
  });

  it.each([
    ["pass^5=0.8", "k = 5 needs 1 ≤ k ≤ --num-trials (4)"],
    ["pass^0=0.8", "k = 0 needs 1 ≤ k ≤ --num-trials (4)"],
    ["pass^2=1.5", "is not METRIC=MIN with MIN between 0 and 1"],
    ["accuracy=0.5", "is not METRIC=MIN"],
    ["retail:pass^1=0.5", 'the run has no domain "retail" (domains: airline)'],
  ])("rejects %s", (value, message) => {
    expect(() => parseThresholds([value], { numTrials: 4, domains: ["airline"] })).toThrow(message);
  });
});

describe("checkThresholds", () => {
  const run: RunMetrics = {
    ...metrics({
      avg_reward: 0.75,
      pass_hat_ks: { 1: 0.75, 2: 0.8 - 1e-15 },
      pass_at_ks: { 1: 0.75, 2: 0.9 },
    }),
    by_domain: {
      airline: metrics({ avg_reward: 0.5, pass_hat_ks: { 1: 0.5 } }),
      retail: metrics({ total_simulations: 0 }),
    },
  };
  const check = (text: string) => checkThresholds(run, parseThresholds([text], { numTrials: 3 }))[0]!;

  it("passes at or above the minimum (a computed 0.8 equals a written 0.8)", () => {
    expect(check("pass^2=0.8")).toMatchObject({ passed: true, value: 0.8 - 1e-15 });
    expect(check("pass@2=0.9")).toMatchObject({ passed: true });
    expect(check("avg_reward=0.75")).toMatchObject({ passed: true });
  });

  it("fails below it, and when the metric cannot be computed", () => {
    expect(check("pass^1=0.76")).toMatchObject({ passed: false, reason: "0.7500 < 0.76" });
    expect(check("airline:pass^1=0.6")).toMatchObject({ passed: false, value: 0.5 });
    expect(check("pass^3=0.1")).toMatchObject({
      passed: false,
      value: null,
      reason: expect.stringContaining("only 2 evaluable trial(s)"),
    });
    expect(check("retail:avg_reward=0")).toMatchObject({ passed: false, reason: "no evaluable simulations" });
  });
});

describe("robustness gates", () => {
  it("split from the run's own gates, parse against the run's perturbations and check the share kept", () => {
    const gates = splitThresholds(["pass^1=0.5,robustness.tool-faults=0.9", "robustness.persona=0.5"]);
    expect(gates).toEqual({
      run: ["pass^1=0.5"],
      robustness: ["robustness.tool-faults=0.9", "robustness.persona=0.5"],
    });
    const parsed = parseRobustnessThresholds(gates.robustness, ["tool-faults", "persona"]);
    const rows = [
      { perturbation: "tool-faults@1:rate=0.2", robustness: 0.85, clean: 0.8 },
      { perturbation: "persona@1", robustness: 0.5, clean: 0.8 },
    ];
    const results = checkRobustnessThresholds(rows, parsed);
    expect(results.map((r) => [r.passed, r.value])).toEqual([
      [false, 0.85],
      [true, 0.5],
    ]);
    expect(checkRobustnessThresholds([], parsed)[0]!.reason).toMatch(/no clean baseline run/);
  });

  it("refuse a gate on a perturbation the run does not have", () => {
    expect(() => parseRobustnessThresholds(["robustness.tool-faults=0.9"], [])).toThrow(
      /the run is not perturbed; add --perturb tool-faults/,
    );
    expect(() => parseRobustnessThresholds(["robustness.tool-faults=1.5"], ["tool-faults"])).toThrow(
      /robustness.PERTURBATION=MIN/,
    );
  });
});
