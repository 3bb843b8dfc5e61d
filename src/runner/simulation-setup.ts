import type { Agent, UserSimulator } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import type { ToolBoundary } from "../core/perturbation.js";
import type { Task } from "../core/task.js";
import type { LlmToolSpec } from "../core/llm.js";
import { toolSpecs, type ToolOverrides } from "../env/tool-schema.js";
import type { ArgumentValidation } from "../env/world.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { ReferenceTexts } from "../formats/tau2/upstream/reference-texts.js";
import type { SimulationSetup } from "../orchestrator/simulate.js";

/**
 * How a conversation is run. `tau2`: as τ²-bench runs it — the reference's tool texts (`texts`, needed
 * whenever a model reads them), tool arguments passed to the tools raw, the reference's turn rules.
 * `passk`: passk's own tool descriptions, arguments validated strictly with errors the model can act
 * on, passk's turn rules (see `SimulationSetup.protocol`).
 */
export type ConversationProtocol = { name: "passk" } | { name: "tau2"; texts?: ReferenceTexts };

/** How tool arguments are checked under a protocol (the evaluator's replay must check them alike). */
export function protocolValidation(protocol: ConversationProtocol | undefined): ArgumentValidation {
  return protocol?.name === "tau2" ? "lenient" : "strict";
}

export interface ConversationOptions {
  data: DomainData;
  task: Task;
  agent: Agent;
  user: UserSimulator;
  solo?: boolean;
  /** Default: passk's protocol. */
  protocol?: ConversationProtocol;
  /** `--tool-spec`: what the models are told about tools (over the protocol's texts). */
  toolOverrides?: ToolOverrides;
  /** `--max-sim-seconds`, in milliseconds. */
  maxDurationMs?: number;
  maxSteps?: number;
  maxErrors?: number;
  seed?: number;
  trial?: number;
  simulationId?: string;
  signal?: AbortSignal;
  /** Perturbations at the world boundary (`--perturb`). */
  toolBoundary?: ToolBoundary;
  /** Clock of the conversation's timestamps (injectable for deterministic tests). */
  now?: () => Date;
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
  const policy = solo ? data.soloPolicy : data.policyFor(task);
  if (policy === undefined)
    throw new ConfigError(`domain ${data.domain.name} has no solo policy, so it cannot run in --solo mode`);
  const protocol = options.protocol ?? { name: "passk" };
  const texts = protocol.name === "tau2" ? protocol.texts : undefined;
  // The world is built for the task: which tools each side is offered may depend on it and on the
  // domain's configuration (banking_knowledge's retrieval tools, a task's `user_tools`).
  const world = data.newWorld({ solo, validation: protocolValidation(protocol), task });
  const sideSpecs = (side: "agent" | "user"): LlmToolSpec[] => {
    const tools = world.offeredTools(side);
    const specs = texts ? texts.toolSpecs(data.domain, side, tools) : toolSpecs(tools);
    if (!options.toolOverrides) return specs;
    return specs.map((spec) => {
      const override = options.toolOverrides!.get(spec.name);
      return override ? { name: spec.name, ...override } : spec;
    });
  };
  const userTools = sideSpecs("user");
  return {
    task,
    world,
    agent: options.agent,
    ...(solo ? {} : { user: options.user }),
    policy,
    agentTools: solo ? [...sideSpecs("agent"), ...userTools] : sideSpecs("agent"),
    userTools,
    solo,
    protocol: protocol.name,
    ...(options.maxDurationMs !== undefined ? { maxDurationMs: options.maxDurationMs } : {}),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.trial !== undefined ? { trial: options.trial } : {}),
    ...(options.simulationId !== undefined ? { simulationId: options.simulationId } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.toolBoundary ? { toolBoundary: options.toolBoundary } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
}
