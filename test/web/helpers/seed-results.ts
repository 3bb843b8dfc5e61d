import type { Agent } from "../../../src/core/agent.js";
import type { Results } from "../../../src/core/simulation.js";
import type { Task } from "../../../src/core/task.js";
import { goldAgent } from "../../../src/agents/gold-agent.js";
import { startAgent, taskReadingAgent } from "../../../src/core/task-reading-agent.js";
import { toolSpecs } from "../../../src/env/tool-schema.js";
import { evaluateSimulation } from "../../../src/evaluation/evaluate-simulation.js";
import type { DomainData } from "../../../src/formats/tau2/domain-data.js";
import { runSimulation } from "../../../src/orchestrator/simulate.js";
import { goldUser } from "../../../src/users/gold-user.js";

/** The gold agent minus its last state-changing call: the conversation ends well, the database does not. */
export function forgetfulGoldAgent(data: DomainData): Agent {
  const writes = new Set(data.domain.agent.tools.filter((t) => t.mutatesState).map((t) => t.name));
  return taskReadingAgent({ name: "forgetful-gold" }, (init, given) => {
    const actions = given.evaluation_criteria?.actions ?? [];
    let last = -1;
    actions.forEach((a, i) => {
      if (a.requestor === "assistant" && writes.has(a.name)) last = i;
    });
    const task: Task =
      last < 0 || !given.evaluation_criteria
        ? given
        : {
            ...given,
            evaluation_criteria: {
              ...given.evaluation_criteria,
              actions: actions.filter((_, i) => i !== last),
            },
          };
    return startAgent(goldAgent, init, task);
  });
}

/**
 * A τ²-style results file made by playing gold conversations (keyless), where `fails(taskId, trial)`
 * picks the trials played by the forgetful agent instead. Every simulation is graded as τ² grades it.
 */
export async function buildResults(
  data: DomainData,
  options: {
    taskIds: readonly string[];
    trials: number;
    fails: (taskId: string, trial: number) => boolean;
    model?: string;
    start?: Date;
  },
): Promise<Results> {
  const start = options.start ?? new Date("2025-06-01T12:00:00Z");
  let tick = 0;
  const now = () => new Date(start.getTime() + 1000 * tick++);
  const tasks = options.taskIds.map((id) => data.task(id));
  const simulations: Results["simulations"] = [];
  for (const task of tasks) {
    for (let trial = 0; trial < options.trials; trial++) {
      const agent = options.fails(task.id, trial) ? forgetfulGoldAgent(data) : goldAgent;
      const run = await runSimulation({
        task,
        world: data.newWorld(),
        agent,
        user: goldUser,
        policy: data.policy,
        agentTools: toolSpecs(data.domain.agent.tools),
        userTools: toolSpecs(data.domain.user?.tools ?? []),
        trial,
        seed: 300 + trial,
        simulationId: `${task.id}-trial-${trial}`,
        now,
      });
      run.reward_info = await evaluateSimulation(run, task, { newWorld: (o) => data.newWorld(o) });
      run.agent_cost = 0.01 * (trial + 1);
      run.user_cost = 0.002;
      simulations.push(run);
    }
  }
  return {
    timestamp: start.toISOString(),
    info: {
      git_commit: null,
      num_trials: options.trials,
      max_steps: 200,
      max_errors: 10,
      user_info: { implementation: "user_simulator", llm: "scripted:gold" },
      agent_info: { implementation: "llm_agent", llm: options.model ?? "scripted:gold" },
      environment_info: { domain_name: data.domain.name },
      seed: 300,
    },
    tasks,
    simulations,
  };
}
