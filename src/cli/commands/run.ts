import { existsSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { TaskSchema, type Task } from "../../core/task.js";
import type { DomainData } from "../../formats/tau2/domain-data.js";
import { computeRunMetrics, type RunMetrics } from "../../metrics/run-metrics.js";
import { isSuccessful } from "../../metrics/pass-hat-k.js";
import { conversationJob } from "../../runner/conversation-job.js";
import {
  executeRun,
  simulationCost,
  type ExecuteRunOptions,
  type RunJob,
  type RunOutcome,
} from "../../runner/execute-run.js";
import { executeAdaptiveRun, type AdaptiveOutcome } from "../../runner/adaptive-run.js";
import { describeAdaptive, trialTallies } from "../../metrics/adaptive-trials.js";
import {
  checkRobustnessThresholds,
  checkThresholds,
  parseRobustnessThresholds,
  parseThresholds,
  splitThresholds,
  type Threshold,
} from "../../runner/fail-under.js";
import type { PerturbationDefinition } from "../../perturbations/perturbation.js";
import { builtinPerturbations, createPerturbationRegistry } from "../../perturbations/registry.js";
import { formatRobustnessTable, storedRobustnessRows } from "./robustness-table.js";
import { perturbationLabel } from "../../runner/robustness-pairs.js";
import { junitReport } from "../../runner/junit-report.js";
import { describeBlame, reviewStoredRun } from "./review.js";
import { resultsFiles, writeResults } from "../../runner/results-writer.js";
import { storableConfig, type RunConfig } from "../../runner/run-config.js";
import { runInfo } from "../../runner/run-info.js";
import { planRun, selectTasksOfDomains, trialSeeds } from "../../runner/run-plan.js";
import { formatDuration } from "../../runner/run-progress.js";
import { writeFileAtomic } from "../../runner/write-file-atomic.js";
import { readUserGuidelines } from "../../users/create-user.js";
import { SqliteJobQueue } from "../../store/sqlite-job-queue.js";
import { runResults } from "../../store/run-results.js";
import { resolveStorePath } from "../../store/store-location.js";
import { passkVersion } from "../../version.js";
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
import { startCliTracing, withOtelOption } from "../otel-option.js";
import type { Tracing } from "../../observability/start-tracing.js";
import { fixed, formatMetrics } from "./metrics-table.js";
import { sourceComparability } from "./report.js";
import { describeComparability } from "../../runner/tau2-comparability.js";
import { openStore, withStoreOption } from "./run-source.js";
import { importAgentModule, importPerturbationModule } from "../domain-modules.js";
import { progressDisplay, type ProgressMode } from "./run-progress-display.js";
import {
  checkNotRunningElsewhere,
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

function costLine(metrics: RunMetrics, spent: number): string {
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

/** The options of `passk run` (shared by `passk robustness`, which runs several such runs). */
export function withRunOptions(command: Command): Command {
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
          "wall-clock limit of one conversation; past it, it ends as an infrastructure error (default: none)",
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

/** Load `--perturbation-module`s (given now, or recorded with a resumed run) into the registry. */
export async function loadPerturbations(context: CliContext, files: readonly string[]): Promise<void> {
  const registry = context.perturbations;
  const definitions = new Set<PerturbationDefinition>(builtinPerturbations);
  for (const name of registry?.names ?? []) definitions.add(registry!.get(name)!);
  // A module imported again gives the same values: the set keeps each definition once.
  for (const file of files)
    for (const definition of await importPerturbationModule(file)) definitions.add(definition);
  context.perturbations = createPerturbationRegistry([...definitions]);
}

export async function runCommand(
  flags: RunFlags,
  command: Command,
  context: CliContext,
): Promise<{ code: number; runId?: string }> {
  if (flags.perturbationModule && flags.perturbationModule.length > 0)
    await loadPerturbations(context, flags.perturbationModule);
  const numbers = parseFlagNumbers(flags);
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
    // A resumed run of a team's own perturbations loads their modules again.
    if (config.perturbation_modules && config.perturbation_modules.length > 0)
      await loadPerturbations(context, config.perturbation_modules);
    const registry = context.perturbations ?? createPerturbationRegistry();
    const perturbations = (config.perturbations ?? []).map((spec) => registry.resolve(spec));
    if (resolved.existing) checkNotRunningElsewhere(resolved.existing);
    const datas = config.domains.map((name) =>
      loadDomain(context, name, {
        data: config.data,
        // Only a domain with configurations takes one (banking_knowledge's retrieval config).
        ...(config.retrieval_config && context.domains.get(name)?.configs
          ? {
              retrievalConfig: config.retrieval_config,
              ...(config.models.upstream !== undefined ? { upstream: config.models.upstream } : {}),
              ...(config.models.rerankerLlm !== undefined ? { rerankerLlm: config.models.rerankerLlm } : {}),
              ...(config.models.rerankerLlmBaseUrl !== undefined
                ? { rerankerLlmBaseUrl: config.models.rerankerLlmBaseUrl }
                : {}),
            }
          : {}),
      }),
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
    const adaptive = resolveAdaptive(flags, numbers, config.num_trials, storedConfig?.adaptive);
    const resolvedConfig: RunConfig = {
      ...config,
      max_concurrency: concurrency,
      max_cost: maxCost ?? null,
      max_sim_seconds: maxSimSeconds ?? null,
      adaptive,
    };
    // A resumed run of a team's own agent loads its module again (the flag was not repeated).
    const agentSpec = resolvedConfig.models.agentLlm;
    if (agentSpec.startsWith("module:") && !context.agentModules?.has(agentSpec))
      context.agentModules = new Map([
        ...(context.agentModules ?? []),
        [agentSpec, await importAgentModule(agentSpec.slice("module:".length))],
      ]);
    tracing = await startCliTracing(flags, context);
    const participants = participantsFromFlags(
      modelFlagsOf(resolvedConfig),
      context,
      firstData.dataDir,
      datas.map((d) => d.domain),
      tracing ? { observer: tracing.modelCalls } : {},
    );
    const texts = participants.protocol.name === "tau2" ? participants.protocol.texts : undefined;
    resolvedConfig.scripted_demo = participants.scriptedDemo;
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
    const plan = planRun({
      domains: [...domains].map(([domain, { tasks }]) => ({ domain, tasks })),
      numTrials: resolvedConfig.num_trials,
      seed: resolvedConfig.seed,
    });

    // The τ² run info, recorded with the run (and written into every results file).
    const guidelines = participants.scriptedDemo ? null : readUserGuidelines(firstData.dataDir);
    const hasUserTools = [...domains.values()].some(({ data }) => (data.domain.user?.tools.length ?? 0) > 0);
    const version = `passk ${passkVersion()}`;
    const infoOf = (runId: string, domain: string) =>
      runInfo({
        domain,
        policy: resolvedConfig.solo
          ? (domains.get(domain)!.data.soloPolicy ?? "")
          : domains.get(domain)!.data.policy,
        agent: {
          name: participants.agent.name,
          llm: participants.agent.model ?? resolvedConfig.models.agentLlm,
          llmArgs: participants.agentLlmArgs,
        },
        user: {
          name: resolvedConfig.solo ? "dummy_user" : participants.user.name,
          llm: resolvedConfig.solo ? null : (participants.user.model ?? resolvedConfig.models.userLlm),
          llmArgs: resolvedConfig.solo ? {} : participants.userLlmArgs,
          guidelines: guidelines
            ? hasUserTools
              ? guidelines.guidelinesWithTools
              : guidelines.guidelines
            : null,
        },
        numTrials: resolvedConfig.num_trials,
        maxSteps: resolvedConfig.max_steps,
        maxErrors: resolvedConfig.max_errors,
        seed: resolvedConfig.seed,
        version,
        passk: {
          run_id: runId,
          protocol: resolvedConfig.protocol,
          // The commit whose prompt and tool texts the models were shown (τ² protocol, models reading them).
          upstream_commit: texts?.commit ?? null,
          ...(resolvedConfig.retrieval_config ? { retrieval_config: resolvedConfig.retrieval_config } : {}),
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
          ...(participants.scriptedDemo ? { scripted_demo: true, notice: SCRIPTED_DEMO_BANNER } : {}),
          config: storableConfig({ ...resolvedConfig, runner: null }),
        },
      });

    // The stored info is the first domain's; a run over several domains keeps each one's environment
    // too, so that `export --domain` and `submit prepare` write each domain's file as `--save-to` does.
    const storedInfo = (runId: string): Record<string, unknown> => {
      const info = infoOf(runId, resolvedConfig.domains[0]!) as Record<string, unknown>;
      if (resolvedConfig.domains.length === 1) return info;
      const environments = Object.fromEntries(
        resolvedConfig.domains.map((domain) => [domain, infoOf(runId, domain).environment_info]),
      );
      return { ...info, passk: { ...(info.passk as Record<string, unknown>), environments } };
    };

    // Nothing has been spent yet; from here on the run exists in the store.
    const runner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
    const run = store.transaction(() => {
      if (resolved.existing) {
        return store.updateRun(resolved.existing.run.id, {
          status: "running",
          config: storableConfig({ ...resolvedConfig, runner }),
        });
      }
      const adoptedId = resolved.adopt?.runId;
      const useAdoptedId = adoptedId !== undefined && !store.listRuns().some((r) => r.id === adoptedId);
      const created = store.createRun({
        ...(useAdoptedId ? { id: adoptedId } : {}),
        status: "running",
        label: flags.label ?? (participants.scriptedDemo ? "scripted demo" : null),
        numTrials: resolvedConfig.num_trials,
        config: storableConfig({ ...resolvedConfig, runner }),
        timestamp: resolved.adopt?.results.timestamp ?? new Date().toISOString().replace("Z", ""),
      });
      store.updateRun(created.id, {
        info: storedInfo(created.id),
      });
      for (const [name, { tasks }] of domains) store.putTasks(created.id, name, tasks);
      if (resolved.adopt) {
        for (const simulation of resolved.adopt.results.simulations ?? []) {
          if (typeof simulation.trial === "number")
            store.putSimulation(created.id, resolvedConfig.domains[0]!, simulation);
        }
      }
      return store.getRun(created.id);
    });
    runCreated = true;
    runId = run.id;
    const queue = new SqliteJobQueue(store, { maxAttempts: numbers.maxAttempts });
    if (resolved.existing) await queue.recover(run.id);
    await queue.enqueue(run.id, plan.jobs);

    const previous = store
      .scoredSimulations(run.id)
      .filter((s) => s.termination_reason !== "infrastructure_error");
    const prefix = participants.scriptedDemo ? "[scripted demo] " : "";
    if (participants.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
    context.stderr.write(
      `${prefix}${resolved.existing || resolved.adopt ? "resuming" : "starting"} run ${run.id}: ${plan.jobs.length} conversations ` +
        `(${[...domains].map(([d, { tasks }]) => `${d} ${tasks.length} tasks`).join(", ")} × ${resolvedConfig.num_trials} trial${resolvedConfig.num_trials === 1 ? "" : "s"}), ` +
        `concurrency ${concurrency}${maxCost !== undefined ? `, budget $${maxCost}` : ""}; store ${store.file}\n`,
    );
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
    const started = performance.now();
    let outcome: RunOutcome;
    let adaptiveOutcome: AdaptiveOutcome | undefined;
    // Adaptive runs go past --num-trials; τ²'s trial seeds are a prefix-stable sequence, so trial t
    // keeps the seed it would have in a fixed run of more trials.
    const seeds = adaptive ? trialSeeds(resolvedConfig.seed, adaptive.max_trials) : plan.trialSeeds;
    // With --otel, each conversation is a trace.
    const traced = (job: RunJob): RunJob =>
      tracing
        ? tracing.traceRunJob(job, ({ job: { runId, domain, taskId, trial }, seed }) => ({
            runId,
            domain,
            taskId,
            trial,
            seed,
            agentLlm: resolvedConfig.models.agentLlm,
            ...(resolvedConfig.solo ? {} : { userLlm: resolvedConfig.models.userLlm }),
            protocol: resolvedConfig.protocol,
          }))
        : job;
    try {
      const runOptions: ExecuteRunOptions = {
        queue,
        runId: run.id,
        // No more workers than conversations to run.
        concurrency: Math.max(1, Math.min(concurrency, plan.jobs.length)),
        seedOf: (job) => seeds[job.trial]!,
        ...(maxCost !== undefined ? { maxCost } : {}),
        previous: {
          cost: previous.reduce((sum, s) => sum + (simulationCost(s) ?? 0), 0),
          successes: previous.filter((s) => isSuccessful(s.reward_info?.reward)).length,
        },
        stopSignal: stop.signal,
        abortSignal: abort.signal,
        runJob: traced(
          conversationJob({
            domains: new Map(
              [...domains].map(([name, { data, tasks }]) => [
                name,
                { data, tasks: new Map(tasks.map((t) => [t.id, t])) },
              ]),
            ),
            agent: participants.agent,
            user: participants.user,
            ...(participants.judge ? { judge: participants.judge } : {}),
            solo: resolvedConfig.solo,
            protocol: participants.protocol,
            ...(participants.toolOverrides ? { toolOverrides: participants.toolOverrides } : {}),
            maxSteps: resolvedConfig.max_steps,
            maxErrors: resolvedConfig.max_errors,
            ...(maxSimSeconds !== undefined ? { maxDurationMs: maxSimSeconds * 1000 } : {}),
            ...(perturbations.length > 0 ? { perturbations } : {}),
          }),
        ),
        onEvent: (event) => {
          display.onEvent(event);
          if (event.type === "budget-reached") {
            display.note(
              `budget reached: $${event.spent.toFixed(4)} of $${event.maxCost} spent; no new conversations (${event.inFlight} still running)`,
            );
          } else if (event.type === "cost-unknown") {
            display.note(
              `cost unknown: a model's price is not in the price table, so costs${maxCost !== undefined ? " and --max-cost" : ""} undercount; pass --prices FILE`,
            );
          }
        },
      };
      if (adaptive) {
        adaptiveOutcome = await executeAdaptiveRun({
          ...runOptions,
          plan: {
            minTrials: resolvedConfig.num_trials,
            maxTrials: adaptive.max_trials,
            targetHalfWidth: adaptive.target_ci,
          },
          tallies: () => trialTallies(store.scoredSimulations(run.id), plan.domains),
          onRound: ({ round, interval, added }) => {
            if (added > 0)
              display.note(
                `adaptive round ${round + 1}: mean success ${fixed(interval.estimate, 3)} ± ${fixed(interval.halfWidth, 3)} ` +
                  `after ${interval.trials} trials (target ± ${adaptive.target_ci}); ${added} more trials queued`,
              );
          },
        });
        outcome = adaptiveOutcome.outcome;
      } else {
        outcome = await executeRun(runOptions);
      }
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      display.stop();
      participants.cache?.close();
    }
    const wallMs = performance.now() - started;
    const finalStatus = outcome.reason === "completed" ? "completed" : "interrupted";
    store.updateRun(run.id, {
      status: finalStatus,
      config: storableConfig({ ...resolvedConfig, runner: null }),
    });
    if (outcome.setupError) {
      throw new ConfigError(
        `${outcome.setupError.message}\nthe run stopped: no conversation was graded with this set-up ` +
          `(${outcome.counts.done + outcome.counts.failed} of ${outcome.counts.total} stored). ` +
          `Fix it, then continue with \`passk run --resume ${run.id}\``,
        { cause: outcome.setupError },
      );
    }

    // Results: files, table, gates.
    const written: string[] = [];
    if (resolvedConfig.save_to) {
      for (const [domain, file] of resultsFiles(resolvedConfig.save_to, resolvedConfig.domains)) {
        const results = runResults(store, run.id, { domain });
        writeResults(file, { ...results, info: infoOf(run.id, domain) });
        written.push(file);
      }
    }
    const simulations = store.scoredSimulations(run.id);
    const metrics = computeRunMetrics(simulations, {
      numTrials: resolvedConfig.num_trials,
      bootstrap: { seed: 0 },
    });
    if (flags.junit) {
      writeFileAtomic(
        flags.junit,
        junitReport({
          name: `passk run ${run.id}${participants.scriptedDemo ? " (scripted demo)" : ""}`,
          tasks: plan.domains.flatMap((d) => d.tasks.map((t) => ({ domain: d.domain, taskId: t.id }))),
          simulations,
          numTrials: resolvedConfig.num_trials,
          timestamp: run.createdAt,
          properties: {
            run_id: run.id,
            agent: resolvedConfig.models.agentLlm,
            user: resolvedConfig.models.userLlm,
            num_trials: resolvedConfig.num_trials,
            seed: resolvedConfig.seed,
            ...(participants.scriptedDemo ? { scripted_demo: SCRIPTED_DEMO_BANNER } : {}),
          },
        }),
      );
      written.push(flags.junit);
    }

    println(context);
    println(context, `${prefix}${describeMetricsHeader(resolvedConfig, run)}`);
    println(context, formatMetrics(metrics));
    const comparability = sourceComparability(context, {
      label: `run ${run.id}`,
      numTrials: resolvedConfig.num_trials,
      simulations,
      run: store.getRun(run.id),
    });
    for (const [domain, verdict] of Object.entries(comparability))
      println(context, `${domain}: ${describeComparability(verdict)}`);
    println(context, costLine(metrics, outcome.spent));
    // A perturbed run beside its clean baseline (the newest completed run configured the same but clean).
    const robustnessRows =
      perturbations.length > 0 && outcome.reason === "completed" ? storedRobustnessRows(store, run.id) : [];
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
      const { reviews } = await reviewStoredRun(context, store, run.id, {
        ...(resolvedConfig.models.judgeLlm ? { judgeLlm: resolvedConfig.models.judgeLlm } : {}),
        ...(resolvedConfig.models.judgeLlmBaseUrl
          ? { judgeLlmBaseUrl: resolvedConfig.models.judgeLlmBaseUrl }
          : {}),
      });
      println(context, `review: ${describeBlame(reviews)} (details: \`passk review ${run.id}\`)`);
    }
    const unfinished = outcome.counts.queued + outcome.counts.claimed;
    const stopLine =
      outcome.reason === "completed"
        ? `completed: ${outcome.counts.total} conversations stored in ${formatDuration(wallMs)} (this session ran ${outcome.completed})`
        : outcome.reason === "budget_reached"
          ? `stopped: budget of $${maxCost} reached ($${outcome.spent.toFixed(4)} spent); ${unfinished} conversations not run. ` +
            `Continue with \`passk run --resume ${run.id} --max-cost <more>\``
          : `interrupted: ${unfinished} conversations not run. Continue with \`passk run --resume ${run.id}\``;
    println(context, `${prefix}${stopLine}`);
    for (const file of written) println(context, `wrote ${file}`);
    if (participants.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);

    let code: number = outcome.reason === "interrupted" ? RUN_EXIT.interrupted : RUN_EXIT.ok;
    if (thresholds.length + robustnessThresholds.length > 0) {
      const results = [
        ...checkThresholds(metrics, thresholds),
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
        .getSimulations(run.id)
        .map((s) => (s.simulation.info as { error?: unknown } | null | undefined)?.error)
        .find((e): e is string => typeof e === "string");
      context.stderr.write(
        `error: nothing could be graded: all ${simulations.length} conversations ended without a gradable result ` +
          `(${Object.entries(metrics.termination_reasons)
            .map(([reason, n]) => `${reason} ${n}`)
            .join(", ")})${first ? `; the first said: ${first}` : ""}. Fix the cause (provider, --timeout, ` +
          `base URL), then continue with \`passk run --resume ${run.id}\`.\n`,
      );
      code = Math.max(code, RUN_EXIT.nothingGraded);
    }
    return { code, runId: run.id };
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
