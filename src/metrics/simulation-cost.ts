import type { SimulationRunInput } from "../formats/tau2/results.js";

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
