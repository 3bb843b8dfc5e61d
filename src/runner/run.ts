import type { Agent, UserSimulator } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import type { JobQueue } from "../core/job-queue.js";
import type { Judge } from "../core/judge.js";
import type { CheckpointStore, RunRecord, RunStore, ScoredSimulationRecord } from "../core/run-store.js";
import type { Task } from "../core/task.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { ResultsInput } from "../formats/tau2/results.js";
import { trialTallies } from "../metrics/adaptive-trials.js";
import { isSuccessful } from "../metrics/pass-hat-k.js";
import { computeRunMetrics, type RunMetrics } from "../metrics/run-metrics.js";
import { runResults } from "../store/run-results.js";
import { passkVersion } from "../version.js";
import { executeAdaptiveRun, type AdaptiveOutcome, type AdaptiveRound } from "./adaptive-run.js";
import { conversationJob } from "./conversation-job.js";
import { simulationCost } from "../metrics/simulation-cost.js";
import { executeRun, type ExecuteRunOptions, type RunJob, type RunOutcome } from "./execute-run.js";
import { checkThresholds, type Threshold, type ThresholdResult } from "./fail-under.js";
import { junitReport } from "./junit-report.js";
import { resultsFiles, writeResults } from "./results-writer.js";
import { storableConfig, type RunConfig } from "./run-spec.js";
import type { RunEvent } from "./run-events.js";
import { runInfo } from "./run-info.js";
import { planRun, trialSeeds, type RunPlan } from "./run-plan.js";
import type { ConversationProtocol } from "./simulation-setup.js";
import type { ResolvedPerturbation } from "../perturbations/registry.js";
import { checkFileTarget, writeFileAtomic } from "../core/write-file-atomic.js";
import type { ModelCallSink } from "../core/model-calls.js";
import type { ModelCallRecorder } from "./model-call-recorder.js";

/** Shown wherever a run of scripted participants reports (outputs say it is not a model's score). */
export const SCRIPTED_DEMO_NOTICE =
  "scripted demo: scripted:gold plays the task's gold actions — this is not a model's score";

/** The agent, user simulator and judge of a run, built by the caller (the composition root). */
export interface RunParticipants {
  agent: Agent;
  user: UserSimulator;
  judge?: Judge;
  protocol: ConversationProtocol;
  /** The call settings in effect, as results record them. */
  agentLlmArgs: Record<string, unknown>;
  userLlmArgs: Record<string, unknown>;
  toolOverrides?: ToolOverrides;
  /** Both sides are scripted: outputs say it is a scripted demo. */
  scriptedDemo: boolean;
  /** τ²'s global simulation guidelines the user simulator was given (recorded in the run info), or null. */
  userGuidelines: { guidelines: string; guidelinesWithTools: string } | null;
}

/** What runs one (task, trial) of a run: here by default; a coordinator hands jobs to remote workers. */
export type RunJobFactory = (context: {
  run: RunRecord;
  config: RunConfig;
  domains: ReadonlyMap<string, { data: DomainData; tasks: ReadonlyMap<string, Task> }>;
}) => RunJob;

export interface RunOptions {
  store: RunStore;
  /** The store's job queue (`SqliteJobQueue` for the SQLite store). */
  queue: JobQueue;
  /** The run's configuration, resolved (a resumed run's stored settings merged with those given). */
  config: RunConfig;
  /** Each domain of the run with its data and the tasks selected. */
  domains: ReadonlyMap<string, { data: DomainData; tasks: readonly Task[] }>;
  participants: RunParticipants;
  /** The stored run this continues; otherwise a new run is created. */
  existing?: RunRecord;
  /** An earlier results file whose simulations seed a new run (τ²'s resume from `--save-to`). */
  adopt?: { results: ResultsInput; runId?: string };
  label?: string | null;
  /** The process running it, recorded so that a second runner on the same machine is refused. */
  runner?: { pid: number; host: string; started_at: string };
  /** Write a JUnit XML report here. */
  junit?: string;
  thresholds?: readonly Threshold[];
  /** Graceful stop (first Ctrl-C): no new conversations; those in flight finish and are stored. */
  stopSignal?: AbortSignal;
  /** Hard stop (second Ctrl-C): conversations in flight are abandoned and run again on resume. */
  abortSignal?: AbortSignal;
  /** Attempts per (task, trial) that ends in an infrastructure error (τ²: 4). */
  maxAttempts?: number;
  runJob?: RunJobFactory;
  /** `--perturb`: applied to every conversation run in this process. */
  perturbations?: readonly ResolvedPerturbation[];
  /** Wraps the job that runs each conversation in this process (tracing, `--otel`). */
  wrapJob?: (job: RunJob) => RunJob;
  /**
   * Record the model calls of each conversation run in this process (the recorder must be among the
   * models' observers) and save them beside its result; `prune` drops those of results not kept.
   */
  modelCalls?: { recorder: ModelCallRecorder; sink: ModelCallSink & { prune?(runId: string): unknown } };
  /** Where conversations run in this process save their turns, when `config.checkpointTurns` is on. */
  checkpoints?: CheckpointStore;
  /**
   * Called with each event as it happens, before the generator yields it: a display that must keep
   * pace with the run (the generator's consumer runs only when the run gives way).
   */
  onEvent?: (event: RunSessionEvent) => void;
}

/** What happens during a run: the runner's events plus the run's own milestones. */
export type RunSessionEvent =
  | RunEvent
  /** The run is stored (created or continued): from here on it can be resumed. */
  | { type: "run-stored"; run: RunRecord; conversations: number; resumed: boolean; plan: RunPlan }
  | { type: "adaptive-round"; round: AdaptiveRound };

export interface RunSessionOutcome {
  run: RunRecord;
  plan: RunPlan;
  outcome: RunOutcome;
  adaptive?: AdaptiveOutcome;
  metrics: RunMetrics;
  simulations: ScoredSimulationRecord[];
  thresholds: ThresholdResult[];
  /** Results files and reports written. */
  written: string[];
  wallMs: number;
}

/** The τ² run info of one domain of the run (written into each results file). */
function infoOf(options: RunOptions, runId: string, domain: string): ResultsInput["info"] {
  const { config, participants, domains } = options;
  const texts = participants.protocol.name === "tau2" ? participants.protocol.texts : undefined;
  const data = domains.get(domain)!.data;
  const hasUserTools = [...domains.values()].some(({ data }) => (data.domain.user?.tools.length ?? 0) > 0);
  const guidelines = participants.userGuidelines;
  return runInfo({
    domain,
    policy: config.solo ? (data.soloPolicy ?? "") : data.policy,
    agent: {
      name: participants.agent.name,
      llm: participants.agent.model ?? config.agent.model,
      llmArgs: participants.agentLlmArgs,
    },
    user: {
      name: config.solo ? "dummy_user" : participants.user.name,
      llm: config.solo ? null : (participants.user.model ?? config.user.model),
      llmArgs: config.solo ? {} : participants.userLlmArgs,
      guidelines: guidelines ? (hasUserTools ? guidelines.guidelinesWithTools : guidelines.guidelines) : null,
    },
    numTrials: config.numTrials,
    maxSteps: config.maxSteps,
    maxErrors: config.maxErrors,
    seed: config.seed,
    version: `passk ${passkVersion()}`,
    passk: {
      run_id: runId,
      protocol: config.protocol,
      // The commit whose prompt and tool texts the models were shown (τ² protocol, models reading them).
      upstream_commit: texts?.commit ?? null,
      ...(config.retrievalConfig ? { retrieval_config: config.retrievalConfig } : {}),
      // Per domain: whether the tools' nested models carried the reference's descriptions.
      ...(texts
        ? {
            nested_model_descriptions: Object.fromEntries(
              [...domains.values()].map(({ data }) => [
                data.domain.name,
                texts.nestedModelDescriptions(data.domain),
              ]),
            ),
          }
        : {}),
      ...(participants.scriptedDemo ? { scripted_demo: true, notice: SCRIPTED_DEMO_NOTICE } : {}),
      config: storableConfig({ ...config, runner: null }),
    },
  });
}

/**
 * The stored info is the first domain's; a run over several domains keeps each one's environment too,
 * so that `export --domain` and `submit prepare` write each domain's file as `--save-to` does.
 */
function storedInfo(options: RunOptions, runId: string): Record<string, unknown> {
  const { domains } = options.config;
  const info = infoOf(options, runId, domains[0]!) as Record<string, unknown>;
  if (domains.length === 1) return info;
  const environments = Object.fromEntries(
    domains.map((domain) => [domain, infoOf(options, runId, domain).environment_info]),
  );
  return { ...info, passk: { ...(info.passk as Record<string, unknown>), environments } };
}

/** Store the run (create, continue or adopt) with its tasks; returns the stored record. */
function storeRun(options: RunOptions): RunRecord {
  const { store, config, adopt } = options;
  const stored = storableConfig({ ...config, runner: options.runner ?? null });
  return store.transaction(() => {
    if (options.existing) return store.updateRun(options.existing.id, { status: "running", config: stored });
    const adoptedId = adopt?.runId;
    const useAdoptedId = adoptedId !== undefined && !store.listRuns().some((r) => r.id === adoptedId);
    const created = store.createRun({
      ...(useAdoptedId ? { id: adoptedId } : {}),
      status: "running",
      label: options.label ?? (options.participants.scriptedDemo ? "scripted demo" : null),
      numTrials: config.numTrials,
      config: stored,
      timestamp: adopt?.results.timestamp ?? new Date().toISOString().replace("Z", ""),
    });
    store.updateRun(created.id, { info: storedInfo(options, created.id) });
    for (const [name, { tasks }] of options.domains) store.putTasks(created.id, name, tasks);
    for (const simulation of adopt?.results.simulations ?? []) {
      if (typeof simulation.trial === "number")
        store.putSimulation(created.id, config.domains[0]!, simulation);
    }
    return store.getRun(created.id);
  });
}

async function runSession(
  options: RunOptions,
  emit: (event: RunSessionEvent) => void,
): Promise<RunSessionOutcome> {
  const { store, queue, config, participants } = options;
  // Where the results go is checked before anything runs, not found wrong after the run is paid for.
  if (config.saveTo)
    for (const file of resultsFiles(config.saveTo, config.domains).values())
      checkFileTarget(file, "--save-to");
  if (options.junit) checkFileTarget(options.junit, "--junit");
  const plan = planRun({
    domains: [...options.domains].map(([domain, { tasks }]) => ({ domain, tasks: [...tasks] })),
    numTrials: config.numTrials,
    seed: config.seed,
  });
  const run = storeRun(options);
  // From here on the run exists (a failure, even of the queue below, leaves it to resume).
  emit({
    type: "run-stored",
    run,
    conversations: plan.jobs.length,
    resumed: options.existing !== undefined || options.adopt !== undefined,
    plan,
  });
  if (options.existing) await queue.recover(run.id);
  await queue.enqueue(run.id, plan.jobs);

  const previous = store
    .scoredSimulations(run.id)
    .filter((s) => s.termination_reason !== "infrastructure_error");
  const adaptive = config.adaptive ?? null;
  // Adaptive runs go past --num-trials; τ²'s trial seeds are a prefix-stable sequence, so trial t keeps
  // the seed it would have in a fixed run of more trials.
  const seeds = adaptive ? trialSeeds(config.seed, adaptive.maxTrials) : plan.trialSeeds;
  const domains = new Map(
    [...options.domains].map(([name, { data, tasks }]) => [
      name,
      { data, tasks: new Map(tasks.map((t) => [t.id, t])) },
    ]),
  );
  const local = conversationJob({
    domains,
    agent: participants.agent,
    user: participants.user,
    ...(participants.judge ? { judge: participants.judge } : {}),
    solo: config.solo,
    protocol: participants.protocol,
    ...(participants.toolOverrides ? { toolOverrides: participants.toolOverrides } : {}),
    maxSteps: config.maxSteps,
    maxErrors: config.maxErrors,
    ...(config.maxSimSeconds ? { maxDurationMs: config.maxSimSeconds * 1000 } : {}),
    ...(options.perturbations && options.perturbations.length > 0
      ? { perturbations: options.perturbations }
      : {}),
    ...(config.checkpointTurns && options.checkpoints ? { checkpoints: options.checkpoints } : {}),
  });
  const recorded = options.modelCalls
    ? options.modelCalls.recorder.recordRunJob(local, options.modelCalls.sink)
    : local;
  const runJob = options.runJob
    ? options.runJob({ run, config, domains })
    : options.wrapJob
      ? options.wrapJob(recorded)
      : recorded;
  const maxCost = config.maxCost ?? undefined;
  const started = performance.now();
  const runOptions: ExecuteRunOptions = {
    queue,
    runId: run.id,
    // No more workers than conversations to run.
    concurrency: Math.max(1, Math.min(config.maxConcurrency ?? 3, plan.jobs.length)),
    seedOf: (job) => seeds[job.trial]!,
    ...(maxCost !== undefined ? { maxCost } : {}),
    previous: {
      cost: previous.reduce((sum, s) => sum + (simulationCost(s) ?? 0), 0),
      successes: previous.filter((s) => isSuccessful(s.reward_info?.reward)).length,
    },
    ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    runJob,
    onEvent: emit,
  };
  let outcome: RunOutcome;
  let adaptiveOutcome: AdaptiveOutcome | undefined;
  if (adaptive) {
    adaptiveOutcome = await executeAdaptiveRun({
      ...runOptions,
      plan: {
        minTrials: config.numTrials,
        maxTrials: adaptive.maxTrials,
        targetHalfWidth: adaptive.targetCi,
      },
      tallies: () => trialTallies(store.scoredSimulations(run.id), plan.domains),
      onRound: (round) => emit({ type: "adaptive-round", round }),
    });
    outcome = adaptiveOutcome.outcome;
  } else {
    outcome = await executeRun(runOptions);
  }
  const wallMs = performance.now() - started;
  options.modelCalls?.sink.prune?.(run.id);
  store.updateRun(run.id, {
    status: outcome.reason === "completed" ? "completed" : "interrupted",
    config: storableConfig({ ...config, runner: null }),
  });
  if (outcome.setupError) {
    throw new ConfigError(
      `${outcome.setupError.message}\nthe run stopped: no conversation was graded with this set-up ` +
        `(${outcome.counts.done + outcome.counts.failed} of ${outcome.counts.total} stored). ` +
        `Fix it, then continue with \`passk run --resume ${run.id}\``,
      { cause: outcome.setupError },
    );
  }

  // Results: files, metrics, gates.
  const written: string[] = [];
  if (config.saveTo) {
    for (const [domain, file] of resultsFiles(config.saveTo, config.domains)) {
      const results = runResults(store, run.id, { domain });
      writeResults(file, { ...results, info: infoOf(options, run.id, domain) });
      written.push(file);
    }
  }
  const simulations = store.scoredSimulations(run.id);
  const metrics = computeRunMetrics(simulations, { numTrials: config.numTrials, bootstrap: { seed: 0 } });
  if (options.junit) {
    writeFileAtomic(
      options.junit,
      junitReport({
        name: `passk run ${run.id}${participants.scriptedDemo ? " (scripted demo)" : ""}`,
        tasks: plan.domains.flatMap((d) => d.tasks.map((t) => ({ domain: d.domain, taskId: t.id }))),
        simulations,
        numTrials: config.numTrials,
        timestamp: run.createdAt,
        properties: {
          run_id: run.id,
          agent: config.agent.model,
          user: config.user.model,
          num_trials: config.numTrials,
          seed: config.seed,
          ...(participants.scriptedDemo ? { scripted_demo: SCRIPTED_DEMO_NOTICE } : {}),
        },
      }),
    );
    written.push(options.junit);
  }
  return {
    run: store.getRun(run.id),
    plan,
    outcome,
    ...(adaptiveOutcome ? { adaptive: adaptiveOutcome } : {}),
    metrics,
    simulations,
    thresholds: options.thresholds?.length ? checkThresholds(metrics, options.thresholds) : [],
    written,
    wallMs,
  };
}

/**
 * One session of a run: store it (new, continued or adopted from a results file), queue its (task,
 * trial)s, run them (budget, stop signals, adaptive rounds), then write the results files and the JUnit
 * report and check the thresholds. It yields the run's events as they happen and returns the outcome;
 * nothing here prints. Each (task, trial) ends stored exactly once, whatever stops the session.
 *
 * @example
 * const session = run({ store, queue: new SqliteJobQueue(store), config, domains, participants });
 * for (let next = await session.next(); ; next = await session.next()) {
 *   if (next.done) { console.log(next.value.metrics.pass_hat_ks); break; }
 *   if (next.value.type === "job-end") console.log(next.value.job.taskId);
 * }
 */
export async function* run(options: RunOptions): AsyncGenerator<RunSessionEvent, RunSessionOutcome> {
  const pending: RunSessionEvent[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const session = runSession(options, (event) => {
    options.onEvent?.(event);
    pending.push(event);
    wake?.();
  }).finally(() => {
    finished = true;
    wake?.();
  });
  session.catch(() => undefined); // rethrown below, after the events before the failure are yielded
  for (;;) {
    while (pending.length > 0) yield pending.shift()!;
    if (finished) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  return await session;
}
