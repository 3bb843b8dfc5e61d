import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import type { Task } from "../core/task.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import { evaluateSimulation } from "../evaluation/evaluate-simulation.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { runSimulation, SimulationAbortedError } from "../orchestrator/orchestrator.js";
import { perturbConversation } from "../perturbations/perturb-conversation.js";
import type { ResolvedPerturbation } from "../perturbations/registry.js";
import type { RunJob } from "./execute-run.js";
import { conversationSetup, protocolValidation, type ConversationProtocol } from "./simulation-setup.js";

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
}

/**
 * The job of a τ² run: one conversation of the job's (task, trial) with the trial's seed, graded as
 * τ² grades it (`evaluate_simulation`, type ALL). The running cost is reported after each priced
 * model call.
 */
export function conversationJob(options: ConversationJobOptions): RunJob {
  return async ({ job, seed, signal, reportCost, onSimulationEvent }) => {
    const domain = options.domains.get(job.domain);
    const task = domain?.tasks.get(job.taskId);
    if (!domain || !task) {
      throw new Error(`job ${job.domain}/${job.taskId} is not among the run's tasks`);
    }
    const perturbed =
      options.perturbations && options.perturbations.length > 0
        ? perturbConversation(options.perturbations, { task, seed })
        : undefined;
    const setup = conversationSetup({
      data: domain.data,
      task,
      agent: options.agent,
      user: perturbed ? perturbed.user(options.user) : options.user,
      ...(perturbed?.toolBoundary ? { toolBoundary: perturbed.toolBoundary } : {}),
      solo: options.solo ?? false,
      ...(options.protocol ? { protocol: options.protocol } : {}),
      ...(options.toolOverrides ? { toolOverrides: options.toolOverrides } : {}),
      ...(options.maxDurationMs !== undefined ? { maxDurationMs: options.maxDurationMs } : {}),
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
      seed,
      trial: job.trial,
      signal,
    });
    let cost = 0;
    let costKnown = true;
    const run = await runSimulation(setup, (event) => {
      onSimulationEvent?.(event);
      if (event.type !== "usage" || !costKnown) return;
      if (event.cost === null) {
        costKnown = false;
        reportCost(null);
        return;
      }
      cost += event.cost;
      reportCost(cost);
    });
    // A hard stop can surface as a participant's failed call (an aborted request) rather than as an
    // abort of the conversation: either way the conversation is incomplete and must not be stored.
    if (signal.aborted) throw new SimulationAbortedError();
    // The judge's calls cost too: recorded with the reward (reward_info.info.judge_cost), counted in the spend.
    let judgeCost: number | null | undefined;
    const judge = options.judge;
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
      task,
      {
        newWorld: (o) => domain.data.newWorld(o),
        solo: options.solo ?? false,
        // The trajectory is replayed with the arguments checked as they were during the conversation.
        validation: protocolValidation(options.protocol),
      },
      pricedJudge,
    );
    // An agent that obeyed an injected instruction broke its policy, whatever the database says.
    const violations = perturbed?.violations(run.messages) ?? [];
    const graded =
      violations.length === 0
        ? reward
        : { ...reward, reward: 0, info: { ...reward.info, policy_violations: violations } };
    run.reward_info =
      judgeCost === undefined ? graded : { ...graded, info: { ...graded.info, judge_cost: judgeCost } };
    if (options.perturbations && options.perturbations.length > 0) {
      const info = (run as { info?: Record<string, unknown> }).info;
      Object.assign(run, { info: { ...info, perturbations: options.perturbations.map((p) => p.spec) } });
    }
    if (judgeCost === null) reportCost(null);
    else if (judgeCost !== undefined && costKnown) reportCost(cost + judgeCost);
    return run;
  };
}
