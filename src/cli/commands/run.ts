import { isRemoteAgentSpec } from "../../agents/remote/index.js";
import { existsSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { Option, type Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { TaskSchema, type Task } from "../../core/task.js";
import type { DomainData } from "../../formats/tau2/domain-data.js";
import type { RunMetrics } from "../../metrics/run-metrics.js";
import { run, type RunSessionOutcome } from "../../runner/run.js";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { createCallLimiter, parseCallLimits } from "../../llm/call-limits.js";
import { checkRedisReachable } from "../../distributed/bullmq-connection.js";
import type { ConversationWorker } from "../../distributed/conversation-worker.js";
import { openDispatcher, type Dispatcher } from "../../distributed/dispatcher.js";
import { parseRedisUrl } from "../../distributed/redis-url.js";
import { configEndpoints, startWorkerHere } from "./worker.js";
import { describeAdaptive, trialTallies } from "../../metrics/adaptive-trials.js";
import {
  checkRobustnessThresholds,
  parseRobustnessThresholds,
  parseThresholds,
  splitThresholds,
  type Threshold,
} from "../../runner/fail-under.js";
import { createPerturbationRegistry } from "../../perturbations/registry.js";
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
import type { RunRecord } from "../../store/store.js";
import {
  loadDomain,
  println,
  systemFailure,
  withDataOption,
  withRetrievalConfigOption,
  type CliContext,
} from "../context.js";
import { participantsFromFlags, SCRIPTED_DEMO_BANNER, withModelFlags } from "../model-flags.js";
import { fixed, formatMetrics } from "./metrics-table.js";
import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import { sourceComparability } from "./report.js";
import { describeComparability } from "../../runner/tau2-comparability.js";
import { openStore, withStoreOption } from "./run-source.js";
import { importAgentModule, loadPerturbations } from "../domain-modules.js";
import { progressDisplay, type ProgressMode } from "./run-progress-display.js";
import {
  checkNotRunningElsewhere,
  domainLoadOptions,
  modelFlagsOf,
  parseFlagNumbers,
  resolveAdaptive,
  resolveRun,
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
  const command = withRunOptions(
    program
      .command("run")
      .description(
        "Run tasks × trials concurrently (resumable, cost-capped), store every simulation, and report " +
          "pass^k — the reliability of an agent, as τ²-bench measures it",
      ),
  );
  // `--agent-llm` comes from the stored run on --resume, so it is checked by hand.
  command.options.find((o) => o.long === "--agent-llm")?.makeOptionMandatory(false);
  command.action(async (flags: RunFlags) => {
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
      withRetrievalConfigOption(withDataOption(withOtelOption(command)))
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
        )
        .option(
          "--progress <mode>",
          "progress display: auto (bar on a terminal, lines otherwise), bar, lines, none",
          "auto",
        )
        .option(
          "--progress-interval <seconds>",
          "seconds between progress lines when not on a terminal",
          "10",
        )
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
        ),
    ),
  );
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
  if (queueAddress) await checkRedisReachable(queueAddress);
  else if (numbers.localWorkers > 0)
    throw new ConfigError("--local-workers applies to distributed runs: add --queue redis://HOST:PORT");
  // Everything that can be wrong is checked before the first model call: the store, the run, the
  // domains and tasks, the models and their keys, the thresholds.
  const storePath = resolveStorePath(flags.store, context.env);
  const storeIsNew = !existsSync(storePath);
  const store = openStore(context, flags.store, { create: true });
  let runCreated = false;
  let runId: string | undefined;
  let tracing: Tracing | undefined;
  try {
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
    const datas = config.domains.map((name) =>
      loadDomain(context, name, domainLoadOptions(context, config, name, config.data)),
    );
    const selected = resolved.existing
      ? config.domains.map((name) =>
          store.getTasks(resolved.existing!.run.id, name).map((t) => TaskSchema.parse(t.task)),
        )
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
    const domains = new Map<string, { data: DomainData; tasks: Task[] }>(
      config.domains.map((name, i) => [name, { data: datas[i]!, tasks: selected[i]! }]),
    );
    const firstData = domains.values().next().value!.data;
    // Concurrency and budget are remembered: a resume that does not repeat them keeps the run's.
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
    // A resumed run of a team's own agent loads its module again (the flag was not repeated).
    const agentSpec = resolvedConfig.models.agentLlm;
    if (agentSpec.startsWith("module:") && !context.agentModules?.has(agentSpec))
      context.agentModules = new Map([
        ...(context.agentModules ?? []),
        [agentSpec, await importAgentModule(agentSpec.slice("module:".length))],
      ]);
    tracing = await startCliTracing(flags, context);
    // The model calls behind each turn of the conversations run here, kept beside the results.
    const recorder = queueAddress
      ? undefined
      : new ModelCallRecorder({ secrets: environmentSecrets(context.env) });
    const observer = combineObservers([tracing?.modelCalls, recorder]);
    const participants = participantsFromFlags(
      modelFlagsOf(resolvedConfig),
      context,
      firstData.dataDir,
      datas.map((d) => d.domain),
      {
        ...(observer ? { observer } : {}),
        // In a distributed run the workers limit their calls together, through Redis.
        ...(resolvedConfig.limits && !queueAddress
          ? { limiter: createCallLimiter(resolvedConfig.limits, (o) => new RateLimiterMemory(o), "local") }
          : {}),
      },
    );
    resolvedConfig.scripted_demo = participants.scriptedDemo;
    if (resolvedConfig.checkpoint_turns) {
      const cannot = cannotContinueFromHistory({
        agent: participants.agent,
        user: participants.user,
        solo: resolvedConfig.solo,
      });
      // Said, not refused: the run is the same, only an interruption costs more.
      if (cannot.length > 0)
        context.stderr.write(
          `--checkpoint-turns: ${cannot.join(" and ")} cannot continue a conversation from its history, so an interrupted conversation starts over (passk's LLM agent and customer can)\n`,
        );
    }
    const gates = splitThresholds(flags.failUnder ?? []);
    const thresholds: Threshold[] = parseThresholds(gates.run, {
      numTrials: resolvedConfig.num_trials,
      domains: resolvedConfig.domains,
    });
    const robustnessThresholds = parseRobustnessThresholds(
      gates.robustness,
      perturbations.map((p) => p.definition.name),
    );
    if (resolvedConfig.solo) {
      for (const [name, entry] of domains) {
        if (entry.data.soloPolicy === undefined)
          throw new ConfigError(`domain ${name} has no solo policy, so it cannot run in --solo mode`);
        // As τ²: a solo agent works from the ticket, so tasks without one are left out, and said so.
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
    const runner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
    const prefix = participants.scriptedDemo ? "[scripted demo] " : "";
    const display = progressDisplay({
      stream: context.stderr,
      mode: numbers.progress as ProgressMode,
      intervalMs: numbers.progressInterval * 1000,
      prefix,
    });

    // Ctrl-C once: no new conversations, those in flight finish and are stored. Twice: stop them now.
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
    let session: RunSessionOutcome;
    let dispatcher: Dispatcher | undefined;
    let localWorker: ConversationWorker | undefined;
    try {
      if (queueAddress) {
        // Sentences about the queue are shown whatever the progress display (a refused job, Redis away).
        dispatcher = await openDispatcher({
          address: queueAddress,
          onNote: (text) => context.stderr.write(`${prefix}${text}\n`),
        });
        if (numbers.localWorkers > 0)
          localWorker = await startWorkerHere(context, {
            address: queueAddress,
            concurrency: numbers.localWorkers,
            lockMs: 30_000,
            // Its credentials go where this run's own flags point, nowhere a job names.
            allowedEndpoints: configEndpoints(resolvedConfig).map((e) => e.origin),
            quiet: true,
            ...(tracing ? { tracing } : {}),
          });
      }
      const events = run({
        ...(dispatcher ? { runJob: dispatcher.runJob } : {}),
        store,
        queue: new SqliteJobQueue(store, { maxAttempts: numbers.maxAttempts }),
        checkpoints: new SqliteCheckpointStore(store),
        ...(recorder ? { modelCalls: { recorder, sink: new SqliteModelCallStore(store) } } : {}),
        config: resolvedConfig,
        domains,
        participants: {
          ...participants,
          userGuidelines: participants.scriptedDemo ? null : readUserGuidelines(firstData.dataDir),
        },
        ...(resolved.existing ? { existing: resolved.existing.run } : {}),
        ...(resolved.adopt ? { adopt: resolved.adopt } : {}),
        ...(flags.label !== undefined ? { label: flags.label } : {}),
        runner,
        ...(flags.junit ? { junit: flags.junit } : {}),
        thresholds,
        ...(perturbations.length > 0 ? { perturbations } : {}),
        // With --otel, each conversation run here is a trace (those of --local-workers too, above).
        ...(tracing ? { wrapJob: traceRunConversations(tracing, resolvedConfig) } : {}),
        maxAttempts: numbers.maxAttempts,
        stopSignal: stop.signal,
        abortSignal: abort.signal,
        // The display follows the run as it happens (the events the generator yields are left unread).
        onEvent: (event) => {
          if (event.type === "run-stored") {
            runCreated = true;
            runId = event.run.id;
            if (participants.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
            context.stderr.write(
              `${prefix}${event.resumed ? "resuming" : "starting"} run ${event.run.id}: ${event.conversations} conversations ` +
                `(${[...domains].map(([d, { tasks }]) => `${d} ${tasks.length} tasks`).join(", ")} × ${resolvedConfig.num_trials} trial${resolvedConfig.num_trials === 1 ? "" : "s"}), ` +
                `concurrency ${concurrency}${maxCost !== undefined ? `, budget $${maxCost}` : ""}; store ${store.file}\n`,
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
        },
      });
      for (let next = await events.next(); ; next = await events.next()) {
        if (next.done) {
          session = next.value;
          break;
        }
      }
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      display.stop();
      await localWorker?.close();
      await dispatcher?.close();
      participants.cache?.close();
    }
    const { outcome, metrics, simulations, plan, wallMs, written } = session;
    const stored = session.run;

    println(context);
    const coverage = partialCoverageLabel(gradingCoverage(metrics, outcome.counts.total));
    println(
      context,
      `${prefix}${describeMetricsHeader(resolvedConfig, stored)}${coverage ? ` · ${coverage}` : ""}`,
    );
    const agentCounted = !isRemoteAgentSpec(resolvedConfig.models.agentLlm);
    println(context, formatMetrics(metrics, { agentCostCounted: agentCounted }));
    const comparability = sourceComparability(context, {
      label: `run ${stored.id}`,
      numTrials: resolvedConfig.num_trials,
      simulations,
      run: stored,
    });
    for (const [domain, verdict] of Object.entries(comparability))
      println(context, `${domain}: ${describeComparability(verdict)}`);
    println(context, costLine(metrics, outcome.spent, agentCounted));
    // A perturbed run beside its clean baseline (the newest completed run configured the same but clean).
    const robustnessRows =
      perturbations.length > 0 && outcome.reason === "completed"
        ? storedRobustnessRows(store, stored.id)
        : [];
    if (robustnessRows.length > 0) println(context, formatRobustnessTable(robustnessRows));
    else if (perturbations.length > 0)
      println(
        context,
        "robustness: no completed clean run with the same configuration in the store to compare with " +
          "(run the same command without --perturb, or use `passk robustness`)",
      );
    if (adaptive) {
      const tallies = trialTallies(simulations, plan.domains);
      println(context, describeAdaptive(tallies, { minTrials: resolvedConfig.num_trials, ...adaptive }));
    }
    if (flags.review) {
      const { reviews } = await reviewStoredRun(context, store, stored.id, {
        ...(resolvedConfig.models.judgeLlm ? { judgeLlm: resolvedConfig.models.judgeLlm } : {}),
        ...(resolvedConfig.models.judgeLlmBaseUrl
          ? { judgeLlmBaseUrl: resolvedConfig.models.judgeLlmBaseUrl }
          : {}),
      });
      println(context, `review: ${describeBlame(reviews)} (details: \`passk review ${stored.id}\`)`);
    }
    const unfinished = outcome.counts.queued + outcome.counts.claimed;
    const stopLine =
      outcome.reason === "completed"
        ? `completed: ${outcome.counts.total} conversations stored in ${formatDuration(wallMs)} (this session ran ${outcome.completed})`
        : outcome.reason === "budget_reached"
          ? `stopped: budget of $${maxCost} reached ($${outcome.spent.toFixed(4)} spent); ${unfinished} conversations not run. ` +
            `Continue with \`passk run --resume ${stored.id} --max-cost <more>\``
          : outcome.reason === "cost_uncountable"
            ? `stopped: --max-cost $${maxCost} can no longer be checked (a provider reported impossible token usage; $${outcome.spent.toFixed(4)} counted); ${unfinished} conversations not run. ` +
              `Continue with \`passk run --resume ${stored.id}\` once the provider reports usage correctly`
            : `interrupted: ${unfinished} conversations not run. Continue with \`passk run --resume ${stored.id}\``;
    println(context, `${prefix}${stopLine}`);
    for (const file of written) println(context, `wrote ${file}`);
    if (participants.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);

    let code: number = outcome.reason === "interrupted" ? RUN_EXIT.interrupted : RUN_EXIT.ok;
    if (thresholds.length + robustnessThresholds.length > 0) {
      const results = [
        ...session.thresholds,
        ...checkRobustnessThresholds(robustnessRows, robustnessThresholds),
      ];
      for (const r of results) {
        println(
          context,
          `${r.passed ? "PASS" : "FAIL"} ${r.threshold.text}: ${r.value === null ? "-" : r.value.toFixed(4)}${r.reason && !r.passed ? ` (${r.reason})` : ""}`,
        );
      }
      const incomplete = unfinished > 0;
      if (incomplete) println(context, `FAIL the run is incomplete (${unfinished} conversations not run)`);
      if (results.some((r) => !r.passed) || incomplete) code = Math.max(code, RUN_EXIT.belowThreshold);
      if (code === RUN_EXIT.belowThreshold)
        code = outcome.reason === "interrupted" ? RUN_EXIT.interrupted : code;
    }
    // A run that graded nothing measured nothing: never "completed" with exit 0.
    if (simulations.length > 0 && metrics.total_simulations === 0 && outcome.reason !== "interrupted") {
      const first = store
        .getSimulations(stored.id)
        .map((s) => (s.simulation.info as { error?: unknown } | null | undefined)?.error)
        .find((e): e is string => typeof e === "string");
      context.stderr.write(
        `error: nothing could be graded: all ${simulations.length} conversations ended without a gradable result ` +
          `(${Object.entries(metrics.termination_reasons)
            .map(([reason, n]) => `${reason} ${n}`)
            .join(", ")})${first ? `; the first said: ${first}` : ""}. Fix the cause (provider, --timeout, ` +
          `base URL), then continue with \`passk run --resume ${stored.id}\`.\n`,
      );
      code = Math.max(code, RUN_EXIT.nothingGraded);
    }
    return { code, runId: stored.id };
  } catch (error) {
    // A full disk, a store gone read-only: what was stored stays; say how to go on with this run.
    const known = runId !== undefined ? systemFailure(error) : undefined;
    if (known === undefined) throw error;
    throw new ConfigError(
      `${known.replace(/ \(a run continues with .*\)\.$/, ".")} Run ${runId} keeps every conversation stored so far: ` +
        `continue it with \`passk run --resume ${runId}\`.`,
      { cause: error },
    );
  } finally {
    // Spans reach the collector before the process exits (a failed or interrupted run included).
    await tracing?.shutdown();
    store.close();
    // Bad input leaves nothing behind: a store this command created for a run that never started goes.
    if (storeIsNew && !runCreated) {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${storePath}${suffix}`, { force: true });
    }
  }
}
