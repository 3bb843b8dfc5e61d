import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { TaskSchema, type Task } from "../../core/task.js";
import type { DomainData } from "../../formats/tau2/domain-data.js";
import { resolveDataDir } from "../../formats/tau2/data-dir.js";
import { readResultsFile, type ResultsInput } from "../../formats/tau2/results.js";
import { computeRunMetrics, type RunMetrics } from "../../metrics/run-metrics.js";
import { isSuccessful } from "../../metrics/pass-hat-k.js";
import { conversationJob } from "../../runner/conversation-job.js";
import { executeRun, simulationCost, type RunOutcome } from "../../runner/execute-run.js";
import { checkThresholds, parseThresholds, type Threshold } from "../../runner/fail-under.js";
import { junitReport } from "../../runner/junit-report.js";
import { resultsFiles, writeResults } from "../../runner/results-writer.js";
import {
  identityDifferences,
  RunConfigSchema,
  type RunConfig,
  type RunModels,
} from "../../runner/run-config.js";
import { runInfo } from "../../runner/run-info.js";
import { planRun, selectRunTasks } from "../../runner/run-plan.js";
import { formatDuration } from "../../runner/run-progress.js";
import { writeFileAtomic } from "../../runner/write-file-atomic.js";
import { readUserGuidelines } from "../../users/create-user.js";
import { SqliteJobQueue } from "../../store/sqlite-job-queue.js";
import { runResults } from "../../store/run-results.js";
import type { RunRecord, Store } from "../../store/store.js";
import { loadDomain, println, withDataOption, type CliContext } from "../context.js";
import {
  participantsFromFlags,
  SCRIPTED_DEMO_BANNER,
  withModelFlags,
  type ModelFlags,
} from "../model-flags.js";
import { fixed, formatMetrics } from "./metrics-table.js";
import { openStore, withStoreOption } from "./run-source.js";
import { progressDisplay, type ProgressMode } from "./run-progress-display.js";

interface RunFlags extends Partial<ModelFlags> {
  domain?: string[];
  data?: string;
  numTrials: string;
  numTasks?: string;
  taskIds?: string[];
  taskSplitName: string;
  maxConcurrency: string;
  seed: string;
  maxSteps: string;
  maxErrors: string;
  maxAttempts: string;
  solo?: boolean;
  maxCost?: string;
  saveTo?: string;
  store?: string;
  resume?: string;
  label?: string;
  failUnder?: string[];
  junit?: string;
  progress: string;
  progressInterval: string;
}

/** Exit codes a CI script can branch on. */
export const RUN_EXIT = { ok: 0, belowThreshold: 1, interrupted: 130 } as const;

const int = (flag: string, min: number) =>
  z.coerce
    .number({ error: () => `${flag} must be a whole number ≥ ${min}` })
    .int({ error: `${flag} must be a whole number ≥ ${min}` })
    .min(min, { error: `${flag} must be a whole number ≥ ${min}` });

const FlagNumbersSchema = z.object({
  numTrials: int("--num-trials", 1),
  numTasks: int("--num-tasks", 1).optional(),
  maxConcurrency: int("--max-concurrency", 1),
  seed: z.coerce.number().int({ error: "--seed must be a whole number" }),
  maxSteps: int("--max-steps", 1),
  maxErrors: int("--max-errors", 1),
  maxAttempts: int("--max-attempts", 1),
  maxCost: z.coerce
    .number({ error: () => "--max-cost must be an amount of USD, e.g. 5 or 2.50" })
    .positive({ error: "--max-cost must be more than 0 USD" })
    .optional(),
  progressInterval: z.coerce.number().positive({ error: "--progress-interval must be seconds > 0" }),
  progress: z.enum(["auto", "bar", "lines", "none"], {
    error: () => "--progress must be one of auto, bar, lines, none",
  }),
});

function parseFlagNumbers(flags: RunFlags): z.infer<typeof FlagNumbersSchema> {
  const parsed = FlagNumbersSchema.safeParse(flags);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join("; "));
  return parsed.data;
}

const MODEL_KEYS = [
  "agentLlm",
  "agentLlmBaseUrl",
  "agentLlmArgs",
  "userLlm",
  "userLlmBaseUrl",
  "userLlmArgs",
  "judgeLlm",
  "judgeLlmBaseUrl",
  "judgeLlmArgs",
  "agentPromptTemplate",
  "toolSpec",
  "prices",
  "cache",
  "timeout",
  "maxRetries",
] as const satisfies ReadonlyArray<keyof RunModels>;
const FILE_KEYS = new Set(["agentPromptTemplate", "toolSpec", "prices"]);

/** The run configuration the flags describe (a new run, or one to compare with a stored run). */
function configFromFlags(
  flags: RunFlags,
  numbers: z.infer<typeof FlagNumbersSchema>,
  dataDir: string,
): RunConfig {
  if (!flags.domain || flags.domain.length === 0) {
    throw new ConfigError("--domain is required (or --resume RUN_ID to continue a stored run)");
  }
  if (!flags.agentLlm) {
    throw new ConfigError(
      "--agent-llm is required (e.g. openai:gpt-4.1, or scripted:gold for a keyless demo), or --resume RUN_ID",
    );
  }
  const models: Record<string, string | boolean> = {};
  for (const key of MODEL_KEYS) {
    const value = flags[key];
    if (value === undefined) continue;
    // Files are recorded by absolute path so that a resume from another directory finds them.
    models[key] = FILE_KEYS.has(key) && typeof value === "string" ? path.resolve(value) : value;
  }
  const config: RunConfig = {
    kind: "passk-run",
    version: 1,
    domains: [...new Set(flags.domain)],
    data: dataDir,
    selection: {
      split: flags.taskSplitName,
      task_ids: flags.taskIds ?? null,
      num_tasks: numbers.numTasks ?? null,
    },
    num_trials: numbers.numTrials,
    seed: numbers.seed,
    max_steps: numbers.maxSteps,
    max_errors: numbers.maxErrors,
    solo: flags.solo ?? false,
    models: { ...(models as RunModels), userLlm: flags.userLlm ?? "scripted:gold" },
    save_to: flags.saveTo ? path.resolve(flags.saveTo) : null,
    scripted_demo: false,
  };
  return config;
}

function modelFlagsOf(config: RunConfig): ModelFlags {
  const flags: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(config.models)) if (value !== undefined) flags[key] = value;
  return flags as unknown as ModelFlags;
}

/** Flags that set what a run measures; on `--resume` they may only repeat the stored values. */
const IDENTITY_FLAG_OF_OPTION: Record<string, string> = {
  domain: "--domain",
  data: "--data",
  taskSplitName: "--task-split-name",
  taskIds: "--task-ids",
  numTasks: "--num-tasks",
  numTrials: "--num-trials",
  seed: "--seed",
  maxSteps: "--max-steps",
  maxErrors: "--max-errors",
  solo: "--solo",
  agentLlm: "--agent-llm",
  agentLlmBaseUrl: "--agent-llm-base-url",
  agentLlmArgs: "--agent-llm-args",
  userLlm: "--user-llm",
  userLlmBaseUrl: "--user-llm-base-url",
  userLlmArgs: "--user-llm-args",
  judgeLlm: "--judge-llm",
  judgeLlmBaseUrl: "--judge-llm-base-url",
  judgeLlmArgs: "--judge-llm-args",
  agentPromptTemplate: "--agent-prompt-template",
  toolSpec: "--tool-spec",
};

interface ResolvedRun {
  config: RunConfig;
  /** The stored run to continue, if any. */
  existing?: RunRecord;
  /** A results file (from an earlier `--save-to`) whose simulations seed a new run. */
  adopt?: { file: string; results: ResultsInput; runId?: string };
}

/** Which run this command continues or starts, checked against what is stored. */
function resolveRun(
  store: Store,
  flags: RunFlags,
  command: Command,
  numbers: z.infer<typeof FlagNumbersSchema>,
  context: CliContext,
): ResolvedRun {
  const given = new Set(
    Object.keys(IDENTITY_FLAG_OF_OPTION)
      .filter((option) => command.getOptionValueSource(option) === "cli")
      .map((option) => IDENTITY_FLAG_OF_OPTION[option]!),
  );
  if (flags.resume) {
    const run = store.getRun(flags.resume);
    const parsed = RunConfigSchema.safeParse(run.config);
    if (!parsed.success) {
      throw new ConfigError(
        `run ${run.id} was not started by \`passk run\` (status ${run.status}${run.config.imported_from ? `, imported from ${String(run.config.imported_from)}` : ""}); only such runs can be resumed.`,
      );
    }
    const stored = parsed.data;
    if (given.size > 0) {
      const asGiven = configFromFlags(
        {
          ...flags,
          domain: flags.domain ?? stored.domains,
          agentLlm: flags.agentLlm ?? stored.models.agentLlm,
        },
        numbers,
        given.has("--data") ? path.resolve(flags.data!) : stored.data,
      );
      const differences = identityDifferences(stored, asGiven, given);
      if (differences.length > 0) {
        throw new ConfigError(
          `--resume ${run.id} continues the run as it was configured; these flags differ from it:\n  ${differences.join("\n  ")}\n` +
            "Drop them (the stored configuration is used), or start a new run without --resume.",
        );
      }
    }
    const saveTo = flags.saveTo ? path.resolve(flags.saveTo) : stored.save_to;
    return { config: { ...stored, save_to: saveTo }, existing: run };
  }

  const config = configFromFlags(flags, numbers, resolveDataDir(flags.data, context.env));
  if (!config.save_to) return { config };
  const sameFile = store.listRuns().filter((run) => {
    const parsed = RunConfigSchema.safeParse(run.config);
    return parsed.success && parsed.data.save_to === config.save_to;
  });
  const existing = sameFile[0];
  if (existing) {
    const stored = RunConfigSchema.parse(existing.config);
    const differences = identityDifferences(stored, config);
    if (differences.length > 0) {
      throw new ConfigError(
        `--save-to ${config.save_to} belongs to run ${existing.id}, which was configured differently:\n  ${differences.join("\n  ")}\n` +
          `Pass another --save-to to start a new run, or \`passk run --resume ${existing.id}\` to continue that one.`,
      );
    }
    return { config, existing };
  }
  if (!existsSync(config.save_to)) return { config };
  // The file exists but the store has no run for it (another store, or a deleted one): continue
  // from the simulations the file holds, as τ² resumes from its --save-to file.
  const file = readResultsFile(config.save_to);
  const section = (file.raw.info as { passk?: { config?: unknown; run_id?: unknown } }).passk;
  const fromFile = RunConfigSchema.safeParse(section?.config);
  if (!fromFile.success) {
    throw new ConfigError(
      `--save-to ${config.save_to} already holds results that \`passk run\` did not write (no passk run configuration in its info); ` +
        "pass another --save-to, or move the file away.",
    );
  }
  const differences = identityDifferences(fromFile.data, config);
  if (differences.length > 0) {
    throw new ConfigError(
      `--save-to ${config.save_to} holds a run configured differently:\n  ${differences.join("\n  ")}\n` +
        "Pass another --save-to to start a new run, or repeat the flags of that run to continue it.",
    );
  }
  return {
    config,
    adopt: {
      file: config.save_to,
      results: file.raw,
      ...(typeof section?.run_id === "string" ? { runId: section.run_id } : {}),
    },
  };
}

/** passk's version, recorded in results as τ² records its git commit. */
function passkVersion(): string {
  try {
    const file = path.resolve(import.meta.dirname, "..", "..", "..", "package.json");
    return `passk ${(JSON.parse(readFileSync(file, "utf8")) as { version: string }).version}`;
  } catch {
    return "passk";
  }
}

function parseArgs(json: string | undefined): Record<string, unknown> {
  if (!json) return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Refuse to run a run that another live process on this machine is running. */
function checkNotRunningElsewhere(run: RunRecord): void {
  const runner = RunConfigSchema.safeParse(run.config).data?.runner;
  if (run.status !== "running" || !runner || runner.host !== hostname() || runner.pid === process.pid) return;
  try {
    process.kill(runner.pid, 0);
  } catch {
    return; // that process is gone (killed, crashed): safe to take over
  }
  throw new ConfigError(
    `run ${run.id} is being run by process ${runner.pid} on this machine (since ${runner.started_at}); ` +
      "wait for it, or stop it (Ctrl-C) before resuming.",
  );
}

function describeMetricsHeader(config: RunConfig, run: RunRecord): string {
  const who = config.scripted_demo
    ? "scripted:gold (agent and user)"
    : `agent ${config.models.agentLlm}, user ${config.models.userLlm}`;
  return `run ${run.id} · ${config.domains.join(", ")} · ${who} · ${config.num_trials} trial(s) · seed ${config.seed}`;
}

function costLine(metrics: RunMetrics, spent: number): string {
  if (metrics.avg_total_cost === null && spent === 0) {
    return "cost: unknown (the models' prices are not in the price table; pass --prices FILE)";
  }
  const perConversation =
    metrics.avg_total_cost === null
      ? "unknown (some model prices are unknown; see --prices)"
      : `$${fixed(metrics.avg_total_cost, 4)}`;
  return `cost: $${spent.toFixed(4)} in all, ${perConversation} per conversation`;
}

export function registerRun(program: Command, context: CliContext): void {
  const command = withStoreOption(
    withModelFlags(
      withDataOption(
        program
          .command("run")
          .description(
            "Run tasks × trials concurrently (resumable, cost-capped), store every simulation, and report " +
              "pass^k — the reliability of an agent, as τ²-bench measures it",
          ),
      )
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
          "attempts per (task, trial) when it ends in an infrastructure error",
          "3",
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
        ),
    ),
  );
  // `--agent-llm` comes from the stored run on --resume, so it is checked by hand.
  command.options.find((o) => o.long === "--agent-llm")?.makeOptionMandatory(false);
  command.action(async (flags: RunFlags) => {
    process.exitCode = await runCommand(flags, command, context);
  });
}

async function runCommand(flags: RunFlags, command: Command, context: CliContext): Promise<number> {
  const numbers = parseFlagNumbers(flags);
  // Everything that can be wrong is checked before the first model call: the store, the run, the
  // domains and tasks, the models and their keys, the thresholds.
  const store = openStore(context, flags.store, { create: true });
  try {
    const resolved = resolveRun(store, flags, command, numbers, context);
    const { config } = resolved;
    if (resolved.existing) checkNotRunningElsewhere(resolved.existing);
    const domains = new Map<string, { data: DomainData; tasks: Task[] }>();
    for (const name of config.domains) {
      const data = loadDomain(context, name, { data: config.data });
      let tasks: Task[];
      if (resolved.existing) {
        tasks = store.getTasks(resolved.existing.id, name).map((t) => TaskSchema.parse(t.task));
      } else {
        tasks = selectRunTasks(
          data,
          {
            split: config.selection.split ?? undefined,
            ...(config.selection.task_ids ? { taskIds: config.selection.task_ids } : {}),
            ...(config.selection.num_tasks !== null ? { numTasks: config.selection.num_tasks } : {}),
          },
          { splitIsDefault: command.getOptionValueSource("taskSplitName") !== "cli" && !resolved.adopt },
        );
      }
      domains.set(name, { data, tasks });
    }
    const firstData = domains.values().next().value!.data;
    // Concurrency and budget are remembered: a resume that does not repeat them keeps the run's.
    const storedConfig = resolved.existing
      ? RunConfigSchema.safeParse(resolved.existing.config).data
      : undefined;
    const concurrency =
      command.getOptionValueSource("maxConcurrency") === "cli"
        ? numbers.maxConcurrency
        : (storedConfig?.max_concurrency ?? numbers.maxConcurrency);
    const maxCost = numbers.maxCost ?? storedConfig?.max_cost ?? undefined;
    const resolvedConfig: RunConfig = { ...config, max_concurrency: concurrency, max_cost: maxCost ?? null };
    const participants = participantsFromFlags(modelFlagsOf(resolvedConfig), context, firstData.dataDir);
    resolvedConfig.scripted_demo = participants.scriptedDemo;
    const thresholds: Threshold[] = parseThresholds(flags.failUnder ?? [], {
      numTrials: resolvedConfig.num_trials,
      domains: resolvedConfig.domains,
    });
    if (resolvedConfig.solo) {
      for (const [name, { data, tasks }] of domains) {
        if (data.soloPolicy === undefined)
          throw new ConfigError(`domain ${name} has no solo policy, so it cannot run in --solo mode`);
        const noTicket = tasks.filter((t) => !t.ticket).map((t) => t.id);
        if (noTicket.length > 0)
          throw new ConfigError(
            `--solo needs tasks with a ticket; ${name} tasks without one: ${noTicket.slice(0, 5).join(", ")}`,
          );
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
    const infoOf = (runId: string, domain: string) =>
      runInfo({
        domain,
        policy: resolvedConfig.solo
          ? (domains.get(domain)!.data.soloPolicy ?? "")
          : domains.get(domain)!.data.policy,
        agent: {
          name: participants.agent.name,
          llm: participants.agent.model ?? resolvedConfig.models.agentLlm,
          llmArgs: parseArgs(resolvedConfig.models.agentLlmArgs),
        },
        user: {
          name: resolvedConfig.solo ? "dummy_user" : participants.user.name,
          llm: resolvedConfig.solo ? null : (participants.user.model ?? resolvedConfig.models.userLlm),
          llmArgs: parseArgs(resolvedConfig.models.userLlmArgs),
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
        version: passkVersion(),
        passk: {
          run_id: runId,
          ...(participants.scriptedDemo ? { scripted_demo: true, notice: SCRIPTED_DEMO_BANNER } : {}),
          config: { ...resolvedConfig, runner: null },
        },
      });

    // Nothing has been spent yet; from here on the run exists in the store.
    const runner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
    const run = store.transaction(() => {
      if (resolved.existing) {
        return store.updateRun(resolved.existing.id, {
          status: "running",
          config: { ...resolvedConfig, runner },
        });
      }
      const adoptedId = resolved.adopt?.runId;
      const useAdoptedId = adoptedId !== undefined && !store.listRuns().some((r) => r.id === adoptedId);
      const created = store.createRun({
        ...(useAdoptedId ? { id: adoptedId } : {}),
        status: "running",
        label: flags.label ?? (participants.scriptedDemo ? "scripted demo" : null),
        numTrials: resolvedConfig.num_trials,
        config: { ...resolvedConfig, runner },
        timestamp: resolved.adopt?.results.timestamp ?? new Date().toISOString().replace("Z", ""),
      });
      store.updateRun(created.id, {
        info: infoOf(created.id, resolvedConfig.domains[0]!) as Record<string, unknown>,
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
        `(${[...domains].map(([d, { tasks }]) => `${d} ${tasks.length} tasks`).join(", ")} × ${resolvedConfig.num_trials} trials), ` +
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
    try {
      outcome = await executeRun({
        queue,
        runId: run.id,
        concurrency,
        seedOf: (job) => plan.trialSeeds[job.trial]!,
        ...(maxCost !== undefined ? { maxCost } : {}),
        previous: {
          cost: previous.reduce((sum, s) => sum + (simulationCost(s) ?? 0), 0),
          successes: previous.filter((s) => isSuccessful(s.reward_info?.reward)).length,
        },
        stopSignal: stop.signal,
        abortSignal: abort.signal,
        runJob: conversationJob({
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
          ...(participants.toolOverrides ? { toolOverrides: participants.toolOverrides } : {}),
          maxSteps: resolvedConfig.max_steps,
          maxErrors: resolvedConfig.max_errors,
        }),
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
      });
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      display.stop();
      participants.cache?.close();
    }
    const wallMs = performance.now() - started;
    const finalStatus = outcome.reason === "completed" ? "completed" : "interrupted";
    store.updateRun(run.id, { status: finalStatus, config: { ...resolvedConfig, runner: null } });

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
    println(context, costLine(metrics, outcome.spent));
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
    if (thresholds.length > 0) {
      const results = checkThresholds(metrics, thresholds);
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
    return code;
  } finally {
    store.close();
  }
}
