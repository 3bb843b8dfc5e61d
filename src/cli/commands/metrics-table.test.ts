import { describe, expect, it } from "vitest";
import { computeRunMetrics, type ScoredSimulation } from "../../metrics/run-metrics.js";
import { formatMetrics } from "./metrics-table.js";

function sim(task: string, agentCost: number | null, userCost: number | null): ScoredSimulation {
  return {
    domain: "mock",
    task_id: task,
    trial: 0,
    termination_reason: "user_stop",
    reward_info: { reward: 1 },
    agent_cost: agentCost,
    user_cost: userCost,
  };
}

/** The cost cells of the table's single row: agent $/sim and total $/sim. */
function costCells(simulations: ScoredSimulation[]): string[] {
  const row = formatMetrics(computeRunMetrics(simulations, { numTrials: 1 })).split("\n")[2]!;
  return row
    .trim()
    .split(/\s{2,}/)
    .slice(-2);
}

describe("formatMetrics: cost per conversation", () => {
  it("prints the averages when every price is known", () => {
    expect(costCells([sim("a", 0.5, 0.25), sim("b", 0.25, 0.25)])).toEqual(["0.3750", "0.6250"]);
  });

  it("says unknown, not an average of the known few, when some conversation's price is unknown", () => {
    // The agent made no model call in "a" (cost 0); its calls in "b" have no price.
    const simulations = [sim("a", 0, 0.25), sim("b", null, 0.25)];
    expect(computeRunMetrics(simulations).unknown_agent_costs).toBe(1);
    expect(costCells(simulations)).toEqual(["unknown", "unknown"]);
    expect(costCells([sim("a", 0.5, null), sim("b", 0.5, 0.25)])).toEqual(["0.5000", "unknown"]);
  });
});
