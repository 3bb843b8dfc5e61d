import type { SimulationRunInput } from "../formats/tau2/results.js";
import type { RunMetrics } from "./run-metrics.js";

/**
 * The cost of a graded simulation: agent + user, plus what else it cost ({@link costBesidesParticipants}),
 * or null when any of them is unknown.
 */
export function simulationCost(
  simulation: Pick<SimulationRunInput, "agent_cost" | "user_cost"> & {
    reward_info?: { info?: Record<string, unknown> | null } | null;
  },
): number | null {
  const { agent_cost: agent, user_cost: user } = simulation;
  if (agent === null || agent === undefined || user === null || user === undefined) return null;
  const besides = costBesidesParticipants(simulation.reward_info?.info);
  return besides === null ? null : agent + user + (besides ?? 0);
}

/**
 * What a simulation cost besides its agent and customer, as recorded in `reward_info.info`: the NL
 * judge's calls (`judge_cost`) and its tools' own model calls (`tool_model_cost`, banking_knowledge's
 * reranker). Undefined when neither ran, null when one is unknown.
 */
export function costBesidesParticipants(
  info: Record<string, unknown> | null | undefined,
): number | null | undefined {
  let total: number | undefined;
  for (const key of ["judge_cost", "tool_model_cost"]) {
    if (!info || !(key in info)) continue;
    const cost = info[key];
    if (typeof cost !== "number") return null;
    total = (total ?? 0) + cost;
  }
  return total;
}

/**
 * A run's cost line: what it spent, per conversation when every price is known; never a known figure
 * where a price is missing. `agentCounted` is false when the agent pays for its own calls (it runs
 * elsewhere).
 */
export function describeRunCost(metrics: RunMetrics, spent: number, agentCounted: boolean): string {
  if (!agentCounted)
    return metrics.unknown_user_costs > 0
      ? "cost: the agent's n/a (it runs elsewhere and pays for its own model calls); the customer's unknown (pass --prices FILE)"
      : `cost: the agent's n/a (it runs elsewhere and pays for its own model calls); $${spent.toFixed(4)} in all for passk's own model calls (the customer's, the judge's)`;
  const unknown = metrics.unknown_agent_costs + metrics.unknown_user_costs > 0;
  if ((metrics.avg_total_cost === null || unknown) && spent === 0) {
    return "cost: unknown (the models' prices are not in the price table; pass --prices FILE)";
  }
  if (metrics.avg_total_cost === null || unknown) {
    return `cost: unknown — at least $${spent.toFixed(4)} in all; some model prices are unknown (pass --prices FILE)`;
  }
  return `cost: $${spent.toFixed(4)} in all, $${metrics.avg_total_cost.toFixed(4)} per conversation`;
}
