import { isRemoteAgentSpec } from "../../agents/remote/index.js";
import { existsSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { Option, type Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { TaskSchema, type Task } from "../../core/task.js";
import type { DomainData } from "../../formats/tau2/domain-data.js";
import type { RunMetrics } from "../../metrics/run-metrics.js";
import { run, type RunSessionEvent, type RunSessionOutcome } from "../../runner/run.js";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { createCallLimiter, parseCallLimits } from "../../llm/call-limits.js";
import type { ConversationWorker } from "../../distributed/conversation-worker.js";
import type { Dispatcher } from "../../distributed/dispatcher.js";
import { parseRedisUrl, type RedisAddress } from "../../distributed/redis-url.js";
import { describeAdaptive, trialTallies } from "../../metrics/adaptive-trials.js";
import {
  checkRobustnessThresholds,
  parseRobustnessThresholds,
  parseThresholds,
  splitThresholds,
  type RobustnessThreshold,
  type Threshold,
} from "../../runner/fail-under.js";
import { createPerturbationRegistry, type ResolvedPerturbation } from "../../perturbations/registry.js";
import { formatRobustnessTable, storedRobustnessRows } from "./robustness-table.js";
import { perturbationLabel } from "../../runner/robustness-pairs.js";
import { startCliTracing, traceRunConversations, withOtelOption } from "../otel-option.js";
import type { Tracing } from "../../observability/start-tracing.js";
import { describeBlame, reviewStoredRun } from "./review.js";
import type { RunConfig } from "../../runner/run-config.js";
import { selectTasksOfDomains } from "../../runner/run-plan.js";
import { formatDuration } from "../../runner/run-progress.js";
import { readUserGuidelines } from "../../users/create-user.js";
import { cannotContinueFromHistory } from "../../runner/conversation-job.js";
import { SqliteCheckpointStore } from "../../store/sqlite-checkpoint-store.js";
import { SqliteModelCallStore } from "../../store/model-call-store.js";
import { ModelCallRecorder } from "../../runner/model-call-recorder.js";
import { combineObservers } from "../../llm/model-call-observer.js";
import { environmentSecrets } from "../../observability/span-text.js";
import { SqliteJobQueue } from "../../store/sqlite-job-queue.js";
import { resolveStorePath } from "../../store/store-location.js";
import type { RunRecord, Store } from "../../store/store.js";
import {
  loadDomain,
  println,
  systemFailure,
  withDataOption,
  withRetrievalConfigOption,
  type CliContext,
} from "../context.js";
import {
  participantsFromFlags,
  SCRIPTED_DEMO_BANNER,
  withModelFlags,
  type Participants,
} from "../model-flags.js";
import { fixed, formatMetrics } from "./metrics-table.js";
import { voiceRunCommand, withVoiceOptions, type VoiceRunFlags } from "./voice-run.js";
import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import { sourceComparability } from "./report.js";
import { describeComparability } from "../../runner/tau2-comparability.js";
import { openStore, withStoreOption } from "./run-source.js";
import { importAgentModule, loadPerturbations } from "../domain-modules.js";
import { progressDisplay, type ProgressMode } from "./run-progress-display.js";
import { checkNotRunningElsewhere, type ResolvedRun } from "../../runner/resume.js";
import {
  domainLoadOptions,
  modelFlagsOf,
  parseFlagNumbers,
  resolveAdaptive,
  resolveRun,
  type FlagNumbers,
  type RunFlags,
} from "./run-resolve.js";

/** Exit codes a CI script can branch on. */
export const RUN_EXIT = { ok: 0, belowThreshold: 1, nothingGraded: 3, interrupted: 130 } as const;

function describeMetricsHeader(config: RunConfig, run: RunRecord): string {
  const who = config.scripted_demo
    ? "scripted:gold (agent and user)"
    : `agent ${config.models.agentLlm}, user ${config.models.userLlm}`;
  const perturbed = perturbationLabel(config);
  return `run ${run.id} · ${config.domains.join(", ")} · ${who} · ${config.num_trials} trial(s) · seed ${config.seed} · ${config.protocol === "tau2" ? "τ²" : "passk"} protocol${perturbed ? ` · perturbed: ${perturbed}` : ""}`;
}

function costLine(metrics: RunMetrics, spent: number, agentCounted: boolean): string {
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
  return `cost: $${spent.toFixed(4)} in all, $${fixed(metrics.avg_total_cost, 4)} per conversation`;
}

export function registerRun(program: Command, context: CliContext): void {
  const command = withVoiceOptions(
    withRunOptions(
      program
        .command("run")
        .description(
          "Run tasks × trials concurrently (resumable, cost-capped), store every simulation, and report " +
            "pass^k — the reliability of an agent, as τ²-bench measures it",
        ),
    ),
  );
  // `--agent-llm` comes from the stored run on --resume, so it is checked by hand.
  command.options.find((o) => o.long === "--agent-llm")?.makeOptionMandatory(false);
  command.action(async (flags: RunFlags & VoiceRunFlags) => {
    if (flags.voice) {
      process.exitCode = await voiceRunCommand(flags, context);
      return;
    }
    process.exitCode = (await runCommand(flags, command, context)).code;
  });
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * Which of `--checkpoint-turns` and `--no-checkpoint-turns` each command was given (commander keeps
 * only the last as one boolean, so both are noted as they are parsed).
 */
const checkpointFlagsGiven = new WeakMap<Command, Set<string>>();

/** The options of `passk run` (shared by `passk robustness`, which runs several such runs). */
export function withRunOptions(command: Command): Command {
  for (const flag of ["checkpoint-turns", "no-checkpoint-turns"])
    command.on(`option:${flag}`, () =>
      checkpointFlagsGiven.set(command, new Set(checkpointFlagsGiven.get(command)).add(flag)),
    );
  return withStoreOption(
    withModelFlags(
      withRunScaleOptions(withRetrievalConfigOption(withDataOption(withOtelOption(command))))
        .option(
          "--domain <name>",
          "domain (repeat or comma-separate for several: --domain airline,retail)",
          (value: string, previous: string[] | undefined) => [
            ...(previous ?? []),
            ...value
              .split(",")
              .map((d) => d.trim())
              .filter(Boolean),
          ],
        )
        .option("--num-trials <k>", "trials per task (pass^k is computed for k = 1…K)", "1")
        .option("--num-tasks <n>", "only the first N tasks of the selection")
        .option("--task-ids <id...>", "only these task ids")
        .option("--task-split-name <name>", "task split (base, train, test, small, full…)", "base")
        .option("--max-concurrency <n>", "conversations at once", "3")
        .option("--seed <n>", "run seed; each trial's seed derives from it as in τ²-bench", "300")
        .option("--max-steps <n>", "stop a conversation after this many steps", "200")
        .option("--max-errors <n>", "stop a conversation after this many tool errors", "10")
        .option(
          "--max-attempts <n>",
          "attempts per (task, trial) when it ends in an infrastructure error (τ²: 1 + 3 retries)",
          "4",
        )
        .option(
          "--max-sim-seconds <s>",
          "wall-clock limit of one conversation; past it, it ends as an infrastructure error (default: 3600)",
        )
        .option(
          "--checkpoint-turns",
          "save each conversation's progress after every turn: one interrupted (a killed worker or process, an infrastructure error) continues from its last turn instead of starting over",
        )
        .option(
          "--no-checkpoint-turns",
          "do not save turns (the default; turns off a stored run's --checkpoint-turns)",
        )
        .option("--solo", "solo mode: the agent works from the task's ticket with the customer's tools")
        .option("--max-cost <usd>", "budget of the run: no new conversation starts once it is spent")
        .option("--save-to <file>", "write the official τ²-bench results JSON here (re-running resumes it)")
        .option("--resume <run-id>", "continue a stored run (after a crash, Ctrl-C or the budget)")
        .option("--label <text>", "a label shown by `passk runs list`")
        .option(
          "--fail-under <metric=min...>",
          "exit 1 when a metric is below its minimum, e.g. pass^4=0.8 avg_reward=0.9 airline:pass^1=0.6",
        )
        .option(
          "--adaptive",
          "after --num-trials per task, add trials where they narrow the interval of the mean success rate most, until --target-ci",
        )
        .option("--target-ci <half-width>", "adaptive: stop at this 95% half-width, e.g. 0.05 (default)")
        .option(
          "--max-trials <n>",
          "adaptive: at most this many trials per task (default 4 × --num-trials, ≥ 8)",
        )
        .option(
          "--review",
          "after the run, say who caused each failure (as `passk review`); --judge-llm reviews what no check places",
        )
        .option(
          "--junit <file>",
          "write a JUnit XML report: one test case per task, failures with their failed checks",
        ),
    ),
  );
}

/** How `passk run` shows its progress, spreads its conversations and limits its calls, and what it perturbs. */
function withRunScaleOptions(command: Command): Command {
  return command
    .option(
      "--progress <mode>",
      "progress display: auto (bar on a terminal, lines otherwise), bar, lines, none",
      "auto",
    )
    .option("--progress-interval <seconds>", "seconds between progress lines when not on a terminal", "10")
    .option(
      "--queue <url>",
      "run across machines: hand conversations to `passk worker`s through Redis or Valkey at this URL, e.g. redis://127.0.0.1:6379",
    )
    .option("--local-workers <n>", "with --queue: this process runs this many conversations too", "0")
    .option(
      "--max-concurrent-requests <target=n...>",
      "at most N model calls at once per provider or model spec, across all workers, e.g. openai=8",
    )
    .option(
      "--requests-per-minute <target=n...>",
      "at most N model calls a minute per provider or model spec, across all workers, e.g. anthropic=50",
    )
    .option(
      "--tokens-per-minute <target=n...>",
      "at most N tokens a minute per provider or model spec, across all workers, e.g. openai:gpt-4.1=30000",
    )
    .addOption(
      new Option("--limit-window <seconds>", "length of the rate limits' minute (for tests)")
        .default("60")
        .hideHelp(),
    )
    .option(
      "--perturb <spec>",
      "perturb every conversation, e.g. tool-faults:rate=0.2 or persona:trait=terse (repeatable; see README, Robustness)",
      collect,
    )
    .option(
      "--perturbation-module <file>",
      "a module exporting your own perturbations (definePerturbation), for --perturb to name (repeatable)",
      collect,
    );
}

/** A run ready to start: its configuration as it will run, its tasks, its participants and its gates. */
interface PreparedRun {
  resolved: ResolvedRun;
  config: RunConfig;
  domains: Map<string, { data: DomainData; tasks: Task[] }>;
  perturbations: ResolvedPerturbation[];
  participants: Participants;
  recorder: ModelCallRecorder | undefined;
  thresholds: Threshold[];
  robustnessThresholds: RobustnessThreshold[];
  adaptive: RunConfig["adaptive"];
  maxCost: number | undefined;
}

interface RunCommandState {
  numbers: FlagNumbers;
  queueAddress: RedisAddress | undefined;
  store: Store;
  tracing?: Tracing;
  runId?: string;
}

export async function runCommand(
  flags: RunFlags,
  command: Command,
  context: CliContext,
): Promise<{ code: number; runId?: string }> {
  if (checkpointFlagsGiven.get(command)?.size === 2)
    throw new ConfigError(
      "--checkpoint-turns and --no-checkpoint-turns contradict each other: give one of them",
    );
  if (flags.perturbationModule && flags.perturbationModule.length > 0)
    await loadPerturbations(context, flags.perturbationModule);
  const numbers = parseFlagNumbers(flags);
  // A distributed run checks its queue before anything is stored: a wrong URL leaves nothing behind.
  const queueAddress = flags.queue !== undefined ? parseRedisUrl(flags.queue) : undefined;
  // The queue's client is loaded for distributed runs only (it costs a local run's start seconds).
  if (queueAddress)
    await (await import("../../distributed/bullmq-connection.js")).checkRedisReachable(queueAddress);
  else if (numbers.localWorkers > 0)
    throw new ConfigError("--local-workers applies to distributed runs: add --queue redis://HOST:PORT");
  // Everything that can be wrong is checked before the first model call: the store, the run, the
  // domains and tasks, the models and their keys, the thresholds.
  const storePath = resolveStorePath(flags.store, context.env);
  const storeIsNew = !existsSync(storePath);
  const state: RunCommandState = {
    numbers,
    queueAddress,
    store: openStore(context, flags.store, { create: true }),
  };
  try {
    const prepared = await prepareRun(flags, command, context, state);
    const session = await executeRun(flags, context, state, prepared);
    return await reportRun(flags, context, state, prepared, session);
  } catch (error) {
    // A full disk, a store gone read-only: what was stored stays; say how to go on with this run.
    const { runId } = state;
    const known = runId !== undefined ? systemFailure(error) : undefined;
    if (known === undefined) throw error;
    throw new ConfigError(
      `${known.replace(/ \(a run continues with .*\)\.$/, ".")} Run ${runId} keeps every conversation stored so far: ` +
        `continue it with \`passk run --resume ${runId}\`.`,
      { cause: error },
    );
  } finally {
    // Spans reach the collector before the process exits (a failed or interrupted run included).
    await state.tracing?.shutdown();
    state.store.close();
    // Bad input leaves nothing behind: a store this command created for a run that never started goes.
    if (storeIsNew && state.runId === undefined) {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${storePath}${suffix}`, { force: true });
    }
  }
}

/** Which run, on which tasks, with which participants and gates: everything checked, nothing spent. */
async function prepareRun(
  flags: RunFlags,
  command: Command,
  context: CliContext,
  state: RunCommandState,
): Promise<PreparedRun> {
  const { numbers, store, queueAddress } = state;
  const resolved = resolveRun(store, flags, command, numbers, context);
  const { config } = resolved;
  if (!resolved.existing && flags.retrievalConfig === undefined)
    for (const name of config.domains) {
      const note = context.domains.get(name)?.configs?.defaultNote?.();
      if (note) context.stderr.write(`note: ${note}\n`);
    }
  // A resumed run of a team's own perturbations loads their modules again.
  if (config.perturbation_modules && config.perturbation_modules.length > 0)
    await loadPerturbations(context, config.perturbation_modules);
  const registry = context.perturbations ?? createPerturbationRegistry();
  const perturbations = (config.perturbations ?? []).map((spec) => registry.resolve(spec));
  if (resolved.existing) checkNotRunningElsewhere(resolved.existing);
  const domains = runDomains(context, command, store, resolved);
  const runConfig = configAsRun(flags, command, numbers, resolved);
  // A resumed run of a team's own agent loads its module again (the flag was not repeated).
  const agentSpec = runConfig.models.agentLlm;
  if (agentSpec.startsWith("module:") && !context.agentModules?.has(agentSpec))
    context.agentModules = new Map([
      ...(context.agentModules ?? []),
      [agentSpec, await importAgentModule(agentSpec.slice("module:".length))],
    ]);
  state.tracing = await startCliTracing(flags, context);
  // The model calls behind each turn of the conversations run here, kept beside the results.
  const recorder = queueAddress
    ? undefined
    : new ModelCallRecorder({ secrets: environmentSecrets(context.env) });
  const observer = combineObservers([state.tracing?.modelCalls, recorder]);
  const datas = [...domains.values()].map((d) => d.data);
  const participants = participantsFromFlags(
    modelFlagsOf(runConfig),
    context,
    datas[0]!.dataDir,
    datas.map((d) => d.domain),
    {
      ...(observer ? { observer } : {}),
      // In a distributed run the workers limit their calls together, through Redis.
      ...(runConfig.limits && !queueAddress
        ? { limiter: createCallLimiter(runConfig.limits, (o) => new RateLimiterMemory(o), "local") }
        : {}),
    },
  );
  runConfig.scripted_demo = participants.scriptedDemo;
  if (runConfig.checkpoint_turns) noteCheckpointLimits(context, runConfig, participants);
  const gates = splitThresholds(flags.failUnder ?? []);
  const thresholds = parseThresholds(gates.run, {
    numTrials: runConfig.num_trials,
    domains: runConfig.domains,
  });
  const robustnessThresholds = parseRobustnessThresholds(
    gates.robustness,
    perturbations.map((p) => p.definition.name),
  );
  if (runConfig.solo) keepTicketedTasks(context, domains);
  return {
    resolved,
    config: runConfig,
    domains,
    perturbations,
    participants,
    recorder,
    thresholds,
    robustnessThresholds,
    adaptive: runConfig.adaptive,
    maxCost: runConfig.max_cost ?? undefined,
  };
}

/** Each domain's data and the tasks the run runs on it (a resumed run: the tasks it stored). */
function runDomains(
  context: CliContext,
  command: Command,
  store: Store,
  resolved: ResolvedRun,
): Map<string, { data: DomainData; tasks: Task[] }> {
  const { config, existing } = resolved;
  const datas = config.domains.map((name) =>
    loadDomain(context, name, domainLoadOptions(context, config, name, config.data)),
  );
  const selected = existing
    ? config.domains.map((name) => store.getTasks(existing.run.id, name).map((t) => TaskSchema.parse(t.task)))
    : selectTasksOfDomains(
        datas,
        {
          split: config.selection.split ?? undefined,
          ...(config.selection.task_ids ? { taskIds: config.selection.task_ids } : {}),
          ...(config.selection.num_tasks !== null ? { numTasks: config.selection.num_tasks } : {}),
        },
        { splitIsDefault: command.getOptionValueSource("taskSplitName") !== "cli" && !resolved.adopt },
      );
  for (const data of datas) data.assertConversable();
  return new Map(config.domains.map((name, i) => [name, { data: datas[i]!, tasks: selected[i]! }]));
}

/** The run's configuration with this session's settings (a resume that does not repeat them keeps the run's). */
function configAsRun(
  flags: RunFlags,
  command: Command,
  numbers: FlagNumbers,
  resolved: ResolvedRun,
): RunConfig {
  const { config } = resolved;
  const storedConfig = resolved.existing?.config;
  const concurrency =
    command.getOptionValueSource("maxConcurrency") === "cli"
      ? numbers.maxConcurrency
      : (storedConfig?.max_concurrency ?? numbers.maxConcurrency);
  const maxCost = numbers.maxCost ?? storedConfig?.max_cost ?? undefined;
  const maxSimSeconds = numbers.maxSimSeconds ?? storedConfig?.max_sim_seconds ?? undefined;
  const checkpointTurns = flags.checkpointTurns ?? storedConfig?.checkpoint_turns ?? false;
  const adaptive = resolveAdaptive(flags, numbers, config.num_trials, storedConfig?.adaptive);
  const resolvedConfig: RunConfig = {
    ...config,
    max_concurrency: concurrency,
    max_cost: maxCost ?? null,
    max_sim_seconds: maxSimSeconds ?? null,
    // Recorded only when on: the configurations of runs without it stay as they were.
    ...(checkpointTurns ? { checkpoint_turns: true } : { checkpoint_turns: undefined }),
    adaptive,
    limits:
      parseCallLimits(
        {
          "--max-concurrent-requests": flags.maxConcurrentRequests,
          "--requests-per-minute": flags.requestsPerMinute,
          "--tokens-per-minute": flags.tokensPerMinute,
        },
        numbers.limitWindow,
      ) ??
      storedConfig?.limits ??
      null,
  };
  return resolvedConfig;
}

/** Said, not refused: the run is the same, only an interruption costs more. */
function noteCheckpointLimits(context: CliContext, config: RunConfig, participants: Participants): void {
  const cannot = cannotContinueFromHistory({
    agent: participants.agent,
    user: participants.user,
    solo: config.solo,
  });
  if (cannot.length > 0)
    context.stderr.write(
      `--checkpoint-turns: ${cannot.join(" and ")} cannot continue a conversation from its history, so an interrupted conversation starts over (passk's LLM agent and customer can)\n`,
    );
}

/** As τ²: a solo agent works from the ticket, so tasks without one are left out, and said so. */
function keepTicketedTasks(
  context: CliContext,
  domains: Map<string, { data: DomainData; tasks: Task[] }>,
): void {
  for (const [name, entry] of domains) {
    if (entry.data.soloPolicy === undefined)
      throw new ConfigError(`domain ${name} has no solo policy, so it cannot run in --solo mode`);
    const withTicket = entry.tasks.filter((t) => t.ticket);
    if (withTicket.length === 0)
      throw new ConfigError(
        `--solo needs tasks with a ticket, and none of the selected ${name} tasks has one`,
      );
    if (withTicket.length < entry.tasks.length) {
      context.stderr.write(
        `--solo: running ${withTicket.length} of ${entry.tasks.length} ${name} tasks (the others have no ticket)\n`,
      );
      entry.tasks = withTicket;
    }
  }
}

/**
 * Run the prepared run until it completes, its budget is spent or it is stopped. Ctrl-C once: no new
 * conversations, those in flight finish and are stored. Twice: stop them now.
 */
async function executeRun(
  flags: RunFlags,
  context: CliContext,
  state: RunCommandState,
  prepared: PreparedRun,
): Promise<RunSessionOutcome> {
  const { numbers, store, queueAddress, tracing } = state;
  const { config, participants, resolved, recorder, perturbations } = prepared;
  const prefix = participants.scriptedDemo ? "[scripted demo] " : "";
  const display = progressDisplay({
    stream: context.stderr,
    mode: numbers.progress as ProgressMode,
    intervalMs: numbers.progressInterval * 1000,
    prefix,
  });
  const stop = new AbortController();
  const abort = new AbortController();
  const onSignal = () => {
    if (!stop.signal.aborted) {
      display.note(
        "stopping: no new conversations; waiting for those in flight (Ctrl-C again to stop them now)",
      );
      stop.abort();
    } else if (!abort.signal.aborted) {
      display.note("stopping now: conversations in flight are abandoned and will run again on resume");
      abort.abort();
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let queue: { dispatcher: Dispatcher; localWorker?: ConversationWorker } | undefined;
  try {
    if (queueAddress) queue = await openQueue(context, state, config, prefix);
    const events = run({
      ...(queue ? { runJob: queue.dispatcher.runJob } : {}),
      store,
      queue: new SqliteJobQueue(store, { maxAttempts: numbers.maxAttempts }),
      checkpoints: new SqliteCheckpointStore(store),
      ...(recorder ? { modelCalls: { recorder, sink: new SqliteModelCallStore(store) } } : {}),
      config,
      domains: prepared.domains,
      participants: {
        ...participants,
        userGuidelines: participants.scriptedDemo
          ? null
          : readUserGuidelines([...prepared.domains.values()][0]!.data.dataDir),
      },
      ...(resolved.existing ? { existing: resolved.existing.run } : {}),
      ...(resolved.adopt ? { adopt: resolved.adopt } : {}),
      ...(flags.label !== undefined ? { label: flags.label } : {}),
      runner: { pid: process.pid, host: hostname(), started_at: new Date().toISOString() },
      ...(flags.junit ? { junit: flags.junit } : {}),
      thresholds: prepared.thresholds,
      ...(perturbations.length > 0 ? { perturbations } : {}),
      // With --otel, each conversation run here is a trace (those of --local-workers too).
      ...(tracing ? { wrapJob: traceRunConversations(tracing, config) } : {}),
      maxAttempts: numbers.maxAttempts,
      stopSignal: stop.signal,
      abortSignal: abort.signal,
      // The display follows the run as it happens (the events the generator yields are left unread).
      onEvent: runEventPrinter(context, state, prepared, display, prefix),
    });
    for (let next = await events.next(); ; next = await events.next()) if (next.done) return next.value;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    display.stop();
    await queue?.localWorker?.close();
    await queue?.dispatcher.close();
    participants.cache?.close();
  }
}

/** `--queue`: the dispatcher that hands conversations to workers, and `--local-workers` here. */
async function openQueue(
  context: CliContext,
  state: RunCommandState,
  config: RunConfig,
  prefix: string,
): Promise<{ dispatcher: Dispatcher; localWorker?: ConversationWorker }> {
  const address = state.queueAddress!;
  const { openDispatcher } = await import("../../distributed/dispatcher.js");
  const { configEndpoints, startWorkerHere } = await import("./worker.js");
  // Sentences about the queue are shown whatever the progress display (a refused job, Redis away).
  const dispatcher = await openDispatcher({
    address,
    onNote: (text) => context.stderr.write(`${prefix}${text}\n`),
  });
  if (state.numbers.localWorkers === 0) return { dispatcher };
  const localWorker = await startWorkerHere(context, {
    address,
    concurrency: state.numbers.localWorkers,
    lockMs: 30_000,
    // Its credentials go where this run's own flags point, nowhere a job names.
    allowedEndpoints: configEndpoints(config).map((e) => e.origin),
    quiet: true,
    ...(state.tracing ? { tracing: state.tracing } : {}),
  });
  return { dispatcher, localWorker };
}

/** What the terminal shows of the run's events as they happen. */
function runEventPrinter(
  context: CliContext,
  state: RunCommandState,
  prepared: PreparedRun,
  display: ReturnType<typeof progressDisplay>,
  prefix: string,
): (event: RunSessionEvent) => void {
  const { config, domains, participants, adaptive, maxCost } = prepared;
  return (event) => {
    if (event.type === "run-stored") {
      state.runId = event.run.id;
      if (participants.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
      context.stderr.write(
        `${prefix}${event.resumed ? "resuming" : "starting"} run ${event.run.id}: ${event.conversations} conversations ` +
          `(${[...domains].map(([d, { tasks }]) => `${d} ${tasks.length} tasks`).join(", ")} × ${config.num_trials} trial${config.num_trials === 1 ? "" : "s"}), ` +
          `concurrency ${config.max_concurrency}${maxCost !== undefined ? `, budget $${maxCost}` : ""}; store ${state.store.file}\n`,
      );
      return;
    }
    if (event.type === "adaptive-round") {
      const { round, interval, added } = event.round;
      if (added > 0 && adaptive)
        display.note(
          `adaptive round ${round + 1}: mean success ${fixed(interval.estimate, 3)} ± ${fixed(interval.halfWidth, 3)} ` +
            `after ${interval.trials} trials (target ± ${adaptive.target_ci}); ${added} more trials queued`,
        );
      return;
    }
    display.onEvent(event);
    if (event.type === "budget-reached") {
      display.note(
        `budget reached: $${event.spent.toFixed(4)} of $${event.maxCost} spent; no new conversations (${event.inFlight} still running)`,
      );
    } else if (event.type === "cost-uncountable") {
      display.note(
        `--max-cost can no longer be checked: ${event.message}; no new conversations (${event.inFlight} still running)`,
      );
    } else if (event.type === "cost-unknown") {
      display.note(
        `cost unknown: a model's price is not in the price table, so costs${maxCost !== undefined ? " and --max-cost" : ""} undercount; pass --prices FILE`,
      );
    }
  };
}

/** Print what the run measured and how it ended; the exit code says whether it met its gates. */
async function reportRun(
  flags: RunFlags,
  context: CliContext,
  state: RunCommandState,
  prepared: PreparedRun,
  session: RunSessionOutcome,
): Promise<{ code: number; runId: string }> {
  const { store } = state;
  const { config, participants, perturbations, adaptive } = prepared;
  const { outcome, metrics, simulations, plan, written } = session;
  const stored = session.run;
  const prefix = participants.scriptedDemo ? "[scripted demo] " : "";
  println(context);
  const coverage = partialCoverageLabel(gradingCoverage(metrics, outcome.counts.total));
  println(context, `${prefix}${describeMetricsHeader(config, stored)}${coverage ? ` · ${coverage}` : ""}`);
  const agentCounted = !isRemoteAgentSpec(config.models.agentLlm);
  println(context, formatMetrics(metrics, { agentCostCounted: agentCounted }));
  const comparability = sourceComparability(context, {
    label: `run ${stored.id}`,
    numTrials: config.num_trials,
    simulations,
    run: stored,
  });
  for (const [domain, verdict] of Object.entries(comparability))
    println(context, `${domain}: ${describeComparability(verdict)}`);
  println(context, costLine(metrics, outcome.spent, agentCounted));
  // A perturbed run beside its clean baseline (the newest completed run configured the same but clean).
  const robustnessRows =
    perturbations.length > 0 && outcome.reason === "completed" ? storedRobustnessRows(store, stored.id) : [];
  if (robustnessRows.length > 0) println(context, formatRobustnessTable(robustnessRows));
  else if (perturbations.length > 0)
    println(
      context,
      "robustness: no completed clean run with the same configuration in the store to compare with " +
        "(run the same command without --perturb, or use `passk robustness`)",
    );
  if (adaptive)
    println(
      context,
      describeAdaptive(trialTallies(simulations, plan.domains), {
        minTrials: config.num_trials,
        ...adaptive,
      }),
    );
  if (flags.review) {
    const { reviews } = await reviewStoredRun(context, store, stored.id, {
      ...(config.models.judgeLlm ? { judgeLlm: config.models.judgeLlm } : {}),
      ...(config.models.judgeLlmBaseUrl ? { judgeLlmBaseUrl: config.models.judgeLlmBaseUrl } : {}),
    });
    println(context, `review: ${describeBlame(reviews)} (details: \`passk review ${stored.id}\`)`);
  }
  println(context, `${prefix}${stopLine(session, prepared.maxCost)}`);
  for (const file of written) println(context, `wrote ${file}`);
  if (participants.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  const gated = gateCode(context, session, prepared, robustnessRows);
  return { code: Math.max(gated, nothingGradedCode(context, store, session)), runId: stored.id };
}

/** How the run ended, and how to go on with it. */
function stopLine(session: RunSessionOutcome, maxCost: number | undefined): string {
  const { outcome, wallMs } = session;
  const id = session.run.id;
  const unfinished = outcome.counts.queued + outcome.counts.claimed;
  switch (outcome.reason) {
    case "completed":
      return `completed: ${outcome.counts.total} conversations stored in ${formatDuration(wallMs)} (this session ran ${outcome.completed})`;
    case "budget_reached":
      return (
        `stopped: budget of $${maxCost} reached ($${outcome.spent.toFixed(4)} spent); ${unfinished} conversations not run. ` +
        `Continue with \`passk run --resume ${id} --max-cost <more>\``
      );
    case "cost_uncountable":
      return (
        `stopped: --max-cost $${maxCost} can no longer be checked (a provider reported impossible token usage; $${outcome.spent.toFixed(4)} counted); ${unfinished} conversations not run. ` +
        `Continue with \`passk run --resume ${id}\` once the provider reports usage correctly`
      );
    default:
      return `interrupted: ${unfinished} conversations not run. Continue with \`passk run --resume ${id}\``;
  }
}

/** `--fail-under`: each gate printed PASS or FAIL; an incomplete run fails them too. */
function gateCode(
  context: CliContext,
  session: RunSessionOutcome,
  prepared: PreparedRun,
  robustnessRows: ReturnType<typeof storedRobustnessRows>,
): number {
  const { outcome } = session;
  const interrupted = outcome.reason === "interrupted";
  let code: number = interrupted ? RUN_EXIT.interrupted : RUN_EXIT.ok;
  if (prepared.thresholds.length + prepared.robustnessThresholds.length === 0) return code;
  const results = [
    ...session.thresholds,
    ...checkRobustnessThresholds(robustnessRows, prepared.robustnessThresholds),
  ];
  for (const r of results)
    println(
      context,
      `${r.passed ? "PASS" : "FAIL"} ${r.threshold.text}: ${r.value === null ? "-" : r.value.toFixed(4)}${r.reason && !r.passed ? ` (${r.reason})` : ""}`,
    );
  const unfinished = outcome.counts.queued + outcome.counts.claimed;
  if (unfinished > 0) println(context, `FAIL the run is incomplete (${unfinished} conversations not run)`);
  if (results.some((r) => !r.passed) || unfinished > 0) code = Math.max(code, RUN_EXIT.belowThreshold);
  if (code === RUN_EXIT.belowThreshold && interrupted) code = RUN_EXIT.interrupted;
  return code;
}

/** A run that graded nothing measured nothing: never "completed" with exit 0. */
function nothingGradedCode(context: CliContext, store: Store, session: RunSessionOutcome): number {
  const { outcome, metrics, simulations } = session;
  if (simulations.length === 0 || metrics.total_simulations > 0 || outcome.reason === "interrupted")
    return RUN_EXIT.ok;
  const id = session.run.id;
  const first = store
    .getSimulations(id)
    .map((s) => (s.simulation.info as { error?: unknown } | null | undefined)?.error)
    .find((e): e is string => typeof e === "string");
  context.stderr.write(
    `error: nothing could be graded: all ${simulations.length} conversations ended without a gradable result ` +
      `(${Object.entries(metrics.termination_reasons)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(", ")})${first ? `; the first said: ${first}` : ""}. Fix the cause (provider, --timeout, ` +
      `base URL), then continue with \`passk run --resume ${id}\`.\n`,
  );
  return RUN_EXIT.nothingGraded;
}
