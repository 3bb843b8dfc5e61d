import { describe, expect, it } from "vitest";
import { simulationCost } from "./simulation-cost.js";

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
