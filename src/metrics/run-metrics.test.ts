import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bootstrapMeanIntervals, percentile } from "./bootstrap.js";
import { passHatK } from "./pass-hat-k.js";
import { failedChecks } from "./failed-checks.js";
import {
  computeMetrics,
  computeRunMetrics,
  failingTasks,
  taskOutcomes,
  type ScoredSimulation,
} from "./run-metrics.js";
import type { RewardInfo } from "../core/simulation.js";

function sim(task: string, reward: number | null, extra: Partial<ScoredSimulation> = {}): ScoredSimulation {
  return {
    domain: "airline",
    task_id: task,
    termination_reason: "user_stop",
    reward_info:
      reward === null
        ? null
        : { reward, reward_basis: ["DB"], db_check: { db_match: reward === 1, db_reward: reward } },
    agent_cost: 0.1,
    user_cost: 0.01,
    duration: 10,
    ...extra,
  };
}

/** T1 passes 4/4, T2 2/4, T3 3/4; T1 also has an infrastructure error (excluded). */
function mixedRun(): ScoredSimulation[] {
  const outcomes: Record<string, number[]> = { T1: [1, 1, 1, 1], T2: [1, 0, 0, 1], T3: [0, 1, 1, 1] };
  const sims = Object.entries(outcomes).flatMap(([task, rewards]) =>
    rewards.map((reward, trial) => sim(task, reward, { trial })),
  );
  sims.push(sim("T1", null, { trial: 4, termination_reason: "infrastructure_error", agent_cost: 99 }));
  return sims;
}

describe("computeMetrics on a hand-computed run", () => {
  const metrics = computeMetrics(mixedRun(), { numTrials: 4 });

  it("averages pass^k over tasks: C(c,k)/C(4,k) per task", () => {
    // pass^1 = (1 + 2/4 + 3/4)/3, pass^2 = (1 + 1/6 + 3/6)/3, pass^3 = (1 + 0 + 1/4)/3, pass^4 = (1+0+0)/3
    expect(metrics.pass_hat_ks[1]).toBeCloseTo(0.75, 15);
    expect(metrics.pass_hat_ks[2]).toBeCloseTo(5 / 9, 15);
    expect(metrics.pass_hat_ks[3]).toBeCloseTo(5 / 12, 15);
    expect(metrics.pass_hat_ks[4]).toBeCloseTo(1 / 3, 15);
    expect(Object.keys(metrics.pass_hat_ks)).toEqual(["1", "2", "3", "4"]);
  });

  it("averages pass@k = 1 − C(n−c,k)/C(n,k)", () => {
    expect(metrics.pass_at_ks[1]).toBeCloseTo(0.75, 15);
    expect(metrics.pass_at_ks[2]).toBeCloseTo((1 + 5 / 6 + 1) / 3, 15);
    expect(metrics.pass_at_ks[3]).toBe(1);
  });

  it("excludes and counts infrastructure errors", () => {
    expect(metrics.infra_error_count).toBe(1);
    expect(metrics.total_simulations).toBe(12);
    expect(metrics.total_tasks).toBe(3);
    expect(metrics.avg_reward).toBe(9 / 12);
    expect(metrics.avg_agent_cost).toBeCloseTo(0.1, 15);
    expect(metrics.avg_total_cost).toBeCloseTo(0.11, 15);
    expect(metrics.unknown_agent_costs).toBe(0);
    expect(metrics.unknown_user_costs).toBe(0);
    expect(metrics.termination_reasons).toEqual({ user_stop: 12, infrastructure_error: 1 });
    expect(metrics.termination_infrastructure_error).toBe(1);
    expect(metrics.successful_simulations).toBe(9);
  });

  it("gives a bootstrap interval around each pass^k", () => {
    const ci = metrics.pass_hat_k_cis[1]!;
    expect(ci.level).toBe(0.95);
    expect(ci.low).toBeGreaterThanOrEqual(0.5);
    expect(ci.high).toBeLessThanOrEqual(1);
    expect(ci.low).toBeLessThanOrEqual(0.75);
    expect(ci.high).toBeGreaterThanOrEqual(0.75);
    // Seeded: the same interval every time, another seed another one.
    expect(computeMetrics(mixedRun(), { numTrials: 4 }).pass_hat_k_cis).toEqual(metrics.pass_hat_k_cis);
  });
});

describe("K, as τ² chooses it", () => {
  it("is lowered to the fewest evaluable trials of any task", () => {
    const sims = mixedRun();
    sims[0]!.termination_reason = "infrastructure_error"; // T1 keeps 3 evaluable trials
    const metrics = computeMetrics(sims, { numTrials: 4 });
    expect(Object.keys(metrics.pass_hat_ks)).toEqual(["1", "2", "3"]);
    // T1 now 3/3 → pass^3: (1 + 0 + 1/4)/3
    expect(metrics.pass_hat_ks[3]).toBeCloseTo(5 / 12, 15);
  });

  it("is capped by the run's trial count", () => {
    expect(Object.keys(computeMetrics(mixedRun(), { numTrials: 2 }).pass_hat_ks)).toEqual(["1", "2"]);
  });

  it("is 0 (no pass^k) when everything was an infrastructure error", () => {
    const metrics = computeMetrics([sim("T", null, { termination_reason: "infrastructure_error" })]);
    expect(metrics.pass_hat_ks).toEqual({});
    expect(metrics.avg_reward).toBe(0);
    expect(metrics.infra_error_count).toBe(1);
  });
});

describe("pass^k laws over whole runs", () => {
  const run = fc
    .record({ tasks: fc.integer({ min: 1, max: 8 }), trials: fc.integer({ min: 1, max: 6 }) })
    .chain(({ tasks, trials }) =>
      fc.tuple(
        fc.constant(trials),
        fc.array(fc.array(fc.boolean(), { minLength: trials, maxLength: trials }), {
          minLength: tasks,
          maxLength: tasks,
        }),
      ),
    );

  it("lies in [0,1], never rises with k, is 1 when all pass and 0 when every task has fewer than k passes", () => {
    fc.assert(
      fc.property(run, ([trials, outcomes]) => {
        const sims = outcomes.flatMap((row, t) =>
          row.map((ok, trial) => sim(`t${t}`, ok ? 1 : 0, { trial })),
        );
        const metrics = computeMetrics(sims, { numTrials: trials, bootstrap: { resamples: 50 } });
        const values = Object.values(metrics.pass_hat_ks);
        expect(values).toHaveLength(trials);
        values.forEach((value, i) => {
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
          if (i > 0) expect(value).toBeLessThanOrEqual(values[i - 1]! + 1e-15);
          const k = i + 1;
          if (outcomes.every((row) => row.every(Boolean))) expect(value).toBe(1);
          if (outcomes.every((row) => row.filter(Boolean).length < k)) expect(value).toBe(0);
        });
      }),
    );
  });
});

describe("per-domain split", () => {
  it("computes the same metrics per domain, tasks keyed by domain", () => {
    const sims = [
      ...mixedRun(),
      sim("T1", 0, { domain: "retail", trial: 0 }),
      sim("T1", 0, { domain: "retail", trial: 1 }),
    ];
    const metrics = computeRunMetrics(sims, { numTrials: 2 });
    expect(Object.keys(metrics.by_domain)).toEqual(["airline", "retail"]);
    expect(metrics.by_domain.retail!.pass_hat_ks).toEqual({ 1: 0, 2: 0 });
    expect(metrics.by_domain.airline!.pass_hat_ks[1]).toBeCloseTo(0.75, 15);
    expect(metrics.total_tasks).toBe(4);
    expect(metrics.pass_hat_ks[1]).toBeCloseTo((1 + 0.5 + 0.75 + 0) / 4, 15);
  });
});

describe("failed checks", () => {
  it("lists only failing checks of components in the reward basis", () => {
    const checks = failedChecks(
      {
        reward: 0,
        reward_basis: ["DB", "COMMUNICATE"],
        db_check: { db_match: false, db_reward: 0 },
        action_checks: [
          {
            action: {
              action_id: "a",
              requestor: "assistant",
              name: "book",
              arguments: {},
              info: null,
              compare_args: null,
            },
            action_match: false,
            action_reward: 0,
          },
        ],
        communicate_checks: [
          { info: "1628", met: false },
          { info: "ok", met: true },
        ],
      },
      "user_stop",
    );
    expect(checks).toEqual([
      { kind: "DB", check: "final database differs from the gold database" },
      { kind: "COMMUNICATE", check: 'did not communicate "1628"' },
    ]);
  });

  it("reports premature termination", () => {
    expect(failedChecks(null, "max_steps")).toEqual([
      { kind: "TERMINATION", check: "conversation ended with max_steps" },
    ]);
  });

  it("ranks tasks by failure rate with their counted checks", () => {
    const tasks = failingTasks(mixedRun());
    expect(tasks.map((t) => [t.task_id, t.failures, t.trials])).toEqual([
      ["T2", 2, 4],
      ["T3", 1, 4],
    ]);
    expect(tasks[0]!.checks).toEqual([
      { kind: "DB", check: "final database differs from the gold database", count: 2 },
    ]);
  });
});

describe("bootstrap", () => {
  it("uses numpy's linear percentile", () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([0, 10], 2.5)).toBe(0.25);
  });

  it("collapses to the value when every task agrees", () => {
    expect(bootstrapMeanIntervals([[1], [1], [1]], { seed: 3 })).toEqual([{ low: 1, high: 1, level: 0.95 }]);
  });
});

describe("τ²'s action and database counts, and task order", () => {
  const action = {
    action_id: "a",
    name: "x",
    arguments: {},
    requestor: "assistant" as const,
    info: null,
    compare_args: null,
  };
  const sim = (task_id: string, reward: number, extra: Partial<RewardInfo>): ScoredSimulation => ({
    domain: "airline",
    task_id,
    termination_reason: "user_stop",
    reward_info: { reward, ...extra },
  });

  it("counts read and write gold actions and their matches, and database matches, over evaluable simulations", () => {
    const simulations: ScoredSimulation[] = [
      sim("2", 1, {
        db_check: { db_match: true, db_reward: 1 },
        action_checks: [
          { action, action_match: true, action_reward: 1, tool_type: "read" },
          { action, action_match: false, action_reward: 0, tool_type: "write" },
          { action, action_match: true, action_reward: 1, tool_type: "generic" },
        ],
      }),
      sim("10", 0, {
        db_check: { db_match: false, db_reward: 0 },
        action_checks: [{ action, action_match: true, action_reward: 1, tool_type: "write" }],
      }),
      sim("1", 0, {}),
      { domain: "airline", task_id: "3", termination_reason: "infrastructure_error", reward_info: null },
    ];
    const metrics = computeMetrics(simulations);
    expect(metrics).toMatchObject({
      total_read_actions: 1,
      correct_read_actions: 1,
      total_write_actions: 2,
      correct_write_actions: 1,
      db_match_count: 1,
      db_mismatch_count: 1,
      db_not_checked: 1,
    });
    // Tasks in the order of τ²'s groupby("task_id"): string order, not first seen.
    expect(taskOutcomes(simulations).map((o) => o.task_id)).toEqual(["1", "10", "2"]);
  });
});

describe("runs of many trials", () => {
  const run = (trials: number): ScoredSimulation[] =>
    ["a", "b"].flatMap((task) =>
      Array.from({ length: trials }, (_, trial) => ({
        domain: "airline",
        task_id: task,
        trial,
        termination_reason: "user_stop",
        reward_info: { reward: trial % 3 === 0 ? 0 : 1 },
      })),
    );
  // What that costs as trials grow is measured in bench/metrics-trials.ts (linear).
  it("reports pass^k up to k = 32", () => {
    const metrics = computeMetrics(run(8000), { numTrials: 8000, bootstrap: { resamples: 50 } });
    expect(Object.keys(metrics.pass_hat_ks).length).toBe(32);
    // Each k of a task: C(c, k) / C(n, k), exact.
    expect(metrics.pass_hat_ks["2"]).toBe(passHatK(8000, 5333, 2));
  });
});
