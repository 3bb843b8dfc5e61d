import type { Agent, UserSimulator } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import { toolSpecs, type ToolOverrides } from "../env/tool-schema.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { SimulationSetup } from "../orchestrator/orchestrator.js";

export interface ConversationOptions {
  data: DomainData;
  task: Task;
  agent: Agent;
  user: UserSimulator;
  solo?: boolean;
  /** `--tool-spec`: what the models are told about tools. */
  toolOverrides?: ToolOverrides;
  maxSteps?: number;
  maxErrors?: number;
  seed?: number;
  trial?: number;
  simulationId?: string;
  signal?: AbortSignal;
}

/**
 * Everything one conversation needs, from a domain's data and the chosen participants: a fresh world,
 * the policy (solo policy in solo mode), and the tool lists each side sees (in solo mode the agent
 * also gets the customer's tools).
 */
export function conversationSetup(options: ConversationOptions): SimulationSetup {
  const { data, task } = options;
  const solo = options.solo ?? false;
  if (solo && !task.ticket) {
    throw new ConfigError(
      `task "${task.id}" has no ticket, so it cannot run in --solo mode (solo agents work from the ticket alone)`,
    );
  }
  const policy = solo ? data.soloPolicy : data.policy;
  if (policy === undefined)
    throw new ConfigError(`domain ${data.domain.name} has no solo policy, so it cannot run in --solo mode`);
  const agentTools = solo
    ? [...data.domain.agent.tools, ...(data.domain.user?.tools ?? [])]
    : data.domain.agent.tools;
  return {
    task,
    world: data.newWorld({ solo }),
    agent: options.agent,
    ...(solo ? {} : { user: options.user }),
    policy,
    agentTools: toolSpecs(agentTools, options.toolOverrides),
    userTools: toolSpecs(data.domain.user?.tools ?? [], options.toolOverrides),
    solo,
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.trial !== undefined ? { trial: options.trial } : {}),
    ...(options.simulationId !== undefined ? { simulationId: options.simulationId } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}
