import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import type { CheckpointStore, ConversationKey, TurnCheckpoint } from "../core/run-store.js";
import type { Task } from "../core/task.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import type { World } from "../env/world.js";
import { evaluateSimulation } from "../evaluation/evaluate-simulation.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { SimulationAbortedError } from "../core/errors.js";
import { runSimulation } from "../orchestrator/simulate.js";
import { CheckpointMismatchError } from "../orchestrator/resume-checkpoint.js";
import { countingToolModelSpend } from "../llm/tool-model-spend.js";
import { gradeWithViolations, perturbConversation } from "../perturbations/perturb-conversation.js";
import type { ResolvedPerturbation } from "../perturbations/registry.js";
import type { SimulationEvent } from "../orchestrator/events.js";
import type { RewardInfo, SimulationRun } from "../core/simulation.js";
import { costBesidesParticipants } from "../metrics/simulation-cost.js";
import type { RunJob } from "./execute-run.js";
import {
  conversationSetup,
  protocolValidation,
  type ConversationOptions,
  type ConversationProtocol,
} from "./simulation-setup.js";

export interface ConversationJobOptions {
  /** Each domain of the run with its data, and the run's tasks of it by id. */
  domains: ReadonlyMap<string, { data: DomainData; tasks: ReadonlyMap<string, Task> }>;
  agent: Agent;
  user: UserSimulator;
  /** Judges NL assertions; without it that component is reported as not evaluated. */
  judge?: Judge;
  solo?: boolean;
  protocol?: ConversationProtocol;
  toolOverrides?: ToolOverrides;
  maxSteps?: number;
  maxErrors?: number;
  /** `--max-sim-seconds`, in milliseconds. */
  maxDurationMs?: number;
  /** `--perturb`: applied to every conversation, seeded by its task and trial seed. */
  perturbations?: readonly ResolvedPerturbation[];
  /** `--checkpoint-turns`: where each conversation's progress is saved and continued from. */
  checkpoints?: CheckpointStore;
}

/** One conversation, from set-up to grade: {@link ConversationOptions} plus the judge and a listener. */
export interface RunConversationOptions extends ConversationOptions {
  /** Judges NL assertions; its cost is recorded with the reward (`reward_info.info.judge_cost`). */
  judge?: Judge;
  onEvent?: (event: SimulationEvent) => void;
  /** `--perturb`: applied to the conversation, seeded by its task and seed; recorded in its info. */
  perturbations?: readonly ResolvedPerturbation[];
  /**
   * `--checkpoint-turns`: the conversation's progress is saved after each turn, and an interrupted one
   * continues from its last saved turn — when both participants can (`resumesFromHistory`).
   */
  checkpoints?: { store: CheckpointStore; key: ConversationKey };
  /** Sees the conversation's world before it starts (a live view of its databases: the playground). */
  onWorld?: (world: World) => void;
}

/**
 * The conversation pipeline every caller shares (the runner, its workers, `passk simulate`): set the
 * conversation up (world, policy, tools), run it, and grade it as τ² grades it (`evaluate_simulation`,
 * type ALL), the judge's cost recorded with the reward.
 */
export async function runConversation(
  options: RunConversationOptions,
): Promise<SimulationRun & { reward_info: RewardInfo }> {
  const { judge, onEvent, perturbations, checkpoints, onWorld, ...conversation } = options;
  const perturbed =
    perturbations && perturbations.length > 0
      ? perturbConversation(perturbations, { task: options.task, seed: options.seed ?? 0 })
      : undefined;
  const user = perturbed ? perturbed.user(conversation.user) : conversation.user;
  const resumable =
    checkpoints !== undefined &&
    cannotContinueFromHistory({ agent: conversation.agent, user, solo: conversation.solo ?? false })
      .length === 0;
  const simulate = (resume: TurnCheckpoint | undefined) => {
    const setup = conversationSetup({
      ...conversation,
      user,
      ...(perturbed?.toolBoundary ? { toolBoundary: perturbed.toolBoundary } : {}),
    });
    onWorld?.(setup.world);
    // What the world held outside it (banking_knowledge's shell sandbox) is released when it ends.
    return runSimulation(
      {
        ...setup,
        ...(resume ? { resume } : {}),
        ...(resumable
          ? { checkpoint: (c: TurnCheckpoint) => checkpoints.store.save(checkpoints.key, c) }
          : {}),
      },
      onEvent,
    ).finally(() => conversation.data.endConversation(setup.world));
  };
  const resume = resumable ? await loadCheckpoint(checkpoints) : undefined;
  // The tools' own model calls (banking_knowledge's reranker) are counted to this conversation.
  const { result: run, spend: toolSpend } = await countingToolModelSpend(async () => {
    try {
      return await simulate(resume);
    } catch (error) {
      // Checked before anyone was called: the checkpoint is dropped and the conversation runs again
      // from its start.
      if (!(error instanceof CheckpointMismatchError)) throw error;
      await clearCheckpoint(checkpoints!);
      return await simulate(undefined);
    }
  });
  // A hard stop can surface as a participant's failed call (an aborted request) rather than as an
  // abort of the conversation: either way the conversation is incomplete and must not be graded.
  if (options.signal?.aborted) throw new SimulationAbortedError();
  let judgeCost: number | null | undefined;
  const pricedJudge: Judge | undefined = judge && {
    judge: (input) =>
      judge.judge({
        ...input,
        onCost: (callCost) => {
          judgeCost = judgeCost === null || callCost === null ? null : (judgeCost ?? 0) + callCost;
        },
      }),
  };
  const reward = await evaluateSimulation(
    run,
    options.task,
    {
      newWorld: (o) => options.data.newWorld(o),
      solo: options.solo ?? false,
      // The trajectory is replayed with the arguments checked as they were during the conversation.
      validation: protocolValidation(options.protocol),
    },
    pricedJudge,
  );
  // An agent that obeyed an injected instruction broke its policy, whatever the database says.
  const graded = gradeWithViolations(reward, perturbed?.violations(run.messages) ?? []);
  // A finished conversation needs its checkpoint no more; one that failed on infrastructure keeps it,
  // so that its re-run continues where it stopped.
  if (resumable && run.termination_reason !== "infrastructure_error") await clearCheckpoint(checkpoints);
  const info = (run as { info?: Record<string, unknown> }).info;
  return {
    ...run,
    ...(perturbations && perturbations.length > 0
      ? { info: { ...info, perturbations: perturbations.map((p) => p.spec) } }
      : {}),
    reward_info:
      judgeCost === undefined && toolSpend.calls === 0
        ? graded
        : {
            ...graded,
            info: {
              ...graded.info,
              ...(judgeCost !== undefined ? { judge_cost: judgeCost } : {}),
              // Beside the judge's: what else the conversation cost than its agent and customer.
              ...(toolSpend.calls > 0 ? { tool_model_cost: toolSpend.cost } : {}),
            },
          },
  };
}

/**
 * The participants of a conversation that cannot continue it from its history (`resumesFromHistory`),
 * named: a turn checkpoint is used only when there are none (the customer does not count in solo mode).
 */
export function cannotContinueFromHistory(participants: {
  agent: Agent;
  user: UserSimulator;
  solo: boolean;
}): string[] {
  const { agent, user, solo } = participants;
  return [
    ...(agent.resumesFromHistory ? [] : [`the agent ${agent.name}`]),
    ...(solo || user.resumesFromHistory ? [] : [`the customer ${user.name}`]),
  ];
}

/** A conversation's saved progress; a store that cannot be read gives none (the conversation starts over). */
async function loadCheckpoint(checkpoints: {
  store: CheckpointStore;
  key: ConversationKey;
}): Promise<TurnCheckpoint | undefined> {
  try {
    return await checkpoints.store.load(checkpoints.key);
  } catch {
    return undefined;
  }
}

async function clearCheckpoint(checkpoints: { store: CheckpointStore; key: ConversationKey }): Promise<void> {
  try {
    await checkpoints.store.clear(checkpoints.key);
  } catch {
    // Left behind, it is replaced by the next attempt's or expires; the result stands.
  }
}

/**
 * The job of a τ² run: one conversation of the job's (task, trial) with the trial's seed, graded
 * ({@link runConversation}). The running cost is reported after each priced model call.
 */
export function conversationJob(options: ConversationJobOptions): RunJob {
  return async ({ job, seed, signal, reportCost, onSimulationEvent }) => {
    const domain = options.domains.get(job.domain);
    const task = domain?.tasks.get(job.taskId);
    if (!domain || !task) {
      throw new Error(`job ${job.domain}/${job.taskId} is not among the run's tasks`);
    }
    let cost = 0;
    let costKnown = true;
    const run = await runConversation({
      data: domain.data,
      task,
      agent: options.agent,
      user: options.user,
      ...(options.judge ? { judge: options.judge } : {}),
      ...(options.perturbations && options.perturbations.length > 0
        ? { perturbations: options.perturbations }
        : {}),
      solo: options.solo ?? false,
      ...(options.protocol ? { protocol: options.protocol } : {}),
      ...(options.toolOverrides ? { toolOverrides: options.toolOverrides } : {}),
      ...(options.maxDurationMs !== undefined ? { maxDurationMs: options.maxDurationMs } : {}),
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
      ...(options.checkpoints
        ? {
            checkpoints: {
              store: options.checkpoints,
              key: { runId: job.runId, domain: job.domain, taskId: job.taskId, trial: job.trial },
            },
          }
        : {}),
      seed,
      trial: job.trial,
      signal,
      onEvent: (event) => {
        onSimulationEvent?.(event);
        if (event.type !== "usage" || !costKnown) return;
        if (event.cost === null) {
          costKnown = false;
          reportCost(null);
          return;
        }
        cost += event.cost;
        reportCost(cost);
      },
    });
    // The judge's calls and the tools' own cost too: counted in the spend.
    const extraCost = costBesidesParticipants(run.reward_info.info as Record<string, unknown> | null);
    if (extraCost === null) reportCost(null);
    else if (extraCost !== undefined && costKnown) reportCost(cost + extraCost);
    return run;
  };
}
