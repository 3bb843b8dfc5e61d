import { z } from "zod";
import { readAgentPromptTemplates } from "../agents/agent-prompt.js";
import type { UserSimulator } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import type { RewardInfo } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import { builtinDomains } from "../domains/registry.js";
import { loadPriceOverrides } from "../llm/index.js";
import type { Tracing } from "../observability/start-tracing.js";
import type { SimulationEvent } from "../orchestrator/events.js";
import { createPerturbationRegistry, resolvePerturbations } from "../perturbations/registry.js";
import { buildParticipants } from "./build.js";
import { runConversation } from "./conversation-job.js";
import { loadDomainData, readToolSpecFile, type AssemblyOptions } from "./run-assembly.js";
import { CONVERSATION_SETTINGS, RunSpecSchema } from "./run-spec.js";
import type { ConversationProtocol } from "./simulation-setup.js";

// One conversation of one task, as `passk simulate` and `passk chat` have it: a run's participants,
// protocol, perturbations and grading, for trial 0 with the spec's seed.

/** What one conversation is: a run's settings, for one task of one domain. */
export const SimulationSpecSchema = RunSpecSchema.pick({
  ...CONVERSATION_SETTINGS,
  agent: true,
  user: true,
  perturbations: true,
  maxErrors: true,
  seed: true,
  solo: true,
}).extend({
  domain: z.string().min(1, { error: "the domain's name, e.g. airline" }),
  taskId: z.string().min(1, { error: "the task's id" }),
});
export type SimulationSpec = z.input<typeof SimulationSpecSchema>;

export interface SimulateConversationOptions extends AssemblyOptions {
  /** A person plays the customer (a terminal): no simulated customer is built. */
  person?: UserSimulator;
  /** Trace the conversation and its model calls (OpenTelemetry). */
  tracing?: Tracing;
  /** The participants are built and the conversation is about to start. */
  onStart?: (start: { task: Task; scriptedDemo: boolean }) => void;
  /** Each event of the conversation as it happens. */
  onEvent?: (event: SimulationEvent) => void;
}

export interface SimulatedConversation {
  simulation: Awaited<ReturnType<typeof runConversation>> & { reward_info: RewardInfo };
  protocol: ConversationProtocol;
  /** Agent and customer are both scripted: the conversation shows the harness, not a model. */
  scriptedDemo: boolean;
}

/** Run one conversation of one task and grade it; a conversation a provider broke ends `infrastructure_error`. */
export async function simulateConversation(
  spec: SimulationSpec,
  options: SimulateConversationOptions = {},
): Promise<SimulatedConversation> {
  const parsed = SimulationSpecSchema.safeParse(spec);
  if (!parsed.success)
    throw new ConfigError(
      `simulation spec: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const s = parsed.data;
  if (!s.agent) throw new ConfigError("simulation spec: agent: a model spec, e.g. openai:gpt-4.1");
  const env = options.env ?? process.env;
  const priceOverrides = s.prices !== undefined ? loadPriceOverrides(s.prices) : undefined;
  const { retrievalConfig, retrievalConfigKwargs, upstream, reranker } = s;
  const data = loadDomainData(
    s.domain,
    { dataDir: s.dataDir, retrievalConfig, retrievalConfigKwargs, upstream, reranker },
    {
      env,
      domains: options.domains ?? builtinDomains,
      ...(options.catalog ? { catalog: options.catalog } : {}),
      ...(priceOverrides ? { priceOverrides } : {}),
    },
  );
  data.assertConversable();
  const task = data.task(s.taskId);
  const participants = buildParticipants({
    agent: s.agent,
    ...(s.user ? { user: s.user } : {}),
    ...(s.judge ? { judge: s.judge } : {}),
    ...(s.protocol ? { protocol: s.protocol } : {}),
    ...(s.upstream !== undefined ? { upstream: s.upstream } : {}),
    dataDir: data.dataDir,
    domains: [data.domain],
    env,
    timeoutSeconds: s.timeoutSeconds,
    maxAttempts: s.maxRetries,
    ...(s.agentPromptTemplate
      ? { agentPromptTemplates: readAgentPromptTemplates(s.agentPromptTemplate) }
      : {}),
    ...(s.toolSpec ? { toolOverrides: readToolSpecFile(s.toolSpec) } : {}),
    ...(priceOverrides ? { priceOverrides } : {}),
    ...(s.cache ? { cache: s.cache } : {}),
    ...(s.promptCache === false ? { promptCache: false } : {}),
    ...(s.maxAgentMessageBytes !== undefined ? { maxAgentMessageBytes: s.maxAgentMessageBytes } : {}),
    ...(options.agentModules ? { agentModules: options.agentModules } : {}),
    ...(options.tracing ? { observer: options.tracing.modelCalls } : {}),
    noCustomer: options.person !== undefined || s.solo,
  });
  try {
    // The conversation meets the perturbations as a run's would (seeded by task and seed).
    const perturbations = resolvePerturbations(
      options.perturbations ?? createPerturbationRegistry(),
      s.perturbations ?? [],
      "--perturb",
    );
    options.onStart?.({ task, scriptedDemo: participants.scriptedDemo });
    const trace = options.tracing?.conversation({
      domain: data.domain.name,
      taskId: task.id,
      trial: 0,
      seed: s.seed,
      agentLlm: s.agent.model,
      ...(s.solo ? {} : { userLlm: options.person ? "human" : (s.user?.model ?? "scripted:gold") }),
      protocol: participants.protocol.name,
    });
    const converse = () =>
      runConversation({
        data,
        task,
        agent: participants.agent,
        user: options.person ?? participants.user,
        ...(participants.judge ? { judge: participants.judge } : {}),
        ...(perturbations.length > 0 ? { perturbations } : {}),
        solo: s.solo,
        protocol: participants.protocol,
        ...(participants.toolOverrides ? { toolOverrides: participants.toolOverrides } : {}),
        maxSteps: s.maxSteps,
        maxErrors: s.maxErrors,
        seed: s.seed,
        onEvent: (event) => {
          trace?.onEvent(event);
          options.onEvent?.(event);
        },
      });
    let simulation: Awaited<ReturnType<typeof converse>>;
    try {
      simulation = await (trace ? trace.run(converse) : converse());
    } catch (error) {
      trace?.end({ error });
      throw error;
    }
    trace?.end({ run: simulation });
    return { simulation, protocol: participants.protocol, scriptedDemo: participants.scriptedDemo };
  } finally {
    participants.cache?.close();
  }
}
