import { describe, expect, it } from "vitest";
import type { RunMetrics } from "./run-metrics.js";
import { describeRunCost, simulationCost } from "./simulation-cost.js";

describe("simulationCost", () => {
  it("adds the agent's, the user's and the NL judge's cost; unknown if any is unknown", () => {
    expect(simulationCost({ agent_cost: 0.5, user_cost: 0.25 })).toBe(0.75);
    expect(simulationCost({ agent_cost: 0.5, user_cost: null })).toBeNull();
    const judged = (judge_cost: number | null) => ({
      agent_cost: 0.5,
      user_cost: 0.25,
      reward_info: { info: { judge_cost } },
    });
    expect(simulationCost(judged(0.125))).toBe(0.875);
    expect(simulationCost(judged(null))).toBeNull();
  });

  it("adds what the tools' own model calls cost (the reranker), with the judge's", () => {
    const info = (extra: Record<string, number | null>) => ({
      agent_cost: 0.5,
      user_cost: 0.25,
      reward_info: { info: extra },
    });
    expect(simulationCost(info({ tool_model_cost: 0.0625 }))).toBe(0.8125);
    expect(simulationCost(info({ tool_model_cost: 0.0625, judge_cost: 0.125 }))).toBe(0.9375);
    expect(simulationCost(info({ tool_model_cost: null, judge_cost: 0.125 }))).toBeNull();
  });
});

describe("describeRunCost", () => {
  const metrics = (avg: number | null, unknownAgent = 0, unknownUser = 0) =>
    ({
      avg_total_cost: avg,
      unknown_agent_costs: unknownAgent,
      unknown_user_costs: unknownUser,
    }) as RunMetrics;

  it("says the spend and the cost per conversation only when every price is known", () => {
    expect(describeRunCost(metrics(0.0125), 0.25, true)).toBe(
      "cost: $0.2500 in all, $0.0125 per conversation",
    );
    expect(describeRunCost(metrics(0.0125, 1), 0.25, true)).toBe(
      "cost: unknown — at least $0.2500 in all; some model prices are unknown (pass --prices FILE)",
    );
    expect(describeRunCost(metrics(null, 2), 0, true)).toBe(
      "cost: unknown (the models' prices are not in the price table; pass --prices FILE)",
    );
  });

  it("never counts a remote agent's calls, which it pays for itself", () => {
    expect(describeRunCost(metrics(null), 0.01, false)).toMatch(
      /^cost: the agent's n\/a .*; \$0\.0100 in all for passk's own model calls/,
    );
    expect(describeRunCost(metrics(null, 0, 1), 0.01, false)).toMatch(
      /the customer's unknown \(pass --prices FILE\)$/,
    );
  });
});
