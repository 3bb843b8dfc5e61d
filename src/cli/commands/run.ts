import { existsSync, rmSync } from "node:fs";
import { Option, type Command } from "commander";
import { isRemoteAgentSpec } from "../../agents/remote/index.js";
import { ConfigError } from "../../core/errors.js";
import { parseRedisUrl, type RedisAddress } from "../../distributed/redis-url.js";
import { describeAdaptive, trialTallies } from "../../metrics/adaptive-trials.js";
import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import { describeRunCost } from "../../metrics/simulation-cost.js";
import type { Tracing } from "../../observability/start-tracing.js";
import { RunConfigSchema, type RunConfig } from "../../runner/run-spec.js";
import type { RunSessionEvent } from "../../runner/run.js";
import { resumeRun, startRun, type LaunchOutcome, type StartRunOptions } from "../../runner/start-run.js";
import { describeComparability } from "../../runner/tau2-comparability.js";
import { describeGates, describeNothingGraded, describeRunEnd } from "../../runner/run-verdict.js";
import { describeRunHeader, describeRunStart, runComparability } from "../../runner/run-report.js";
import { resolveStorePath } from "../../store/store-location.js";
import type { Store } from "../../store/store.js";
import { println, runOptionsOf, systemFailure, withDataOption, type CliContext } from "../context.js";
import { domainDataOf, withRetrievalConfigOption } from "../domain-flags.js";
import { SCRIPTED_DEMO_BANNER, withModelFlags } from "../model-flags.js";
import { startCliTracing, withOtelOption } from "../otel-option.js";
import { fixed, formatMetrics, formatRobustnessTable } from "./metrics-table.js";
import { describeBlame } from "../../review/blame.js";
import { reviewStoredRun } from "./review.js";
import { progressDisplay } from "./run-progress-display.js";
import {
  parseFlagNumbers,
  runChangesOfFlags,
  runSpecOfFlags,
  type FlagNumbers,
  type RunFlags,
} from "./run-resolve.js";
import { openStore, withStoreOption } from "./run-source.js";
import { voiceRunCommand, withVoiceOptions, type VoiceRunFlags } from "./voice-run.js";

/** Exit codes a CI script can branch on. */
export const RUN_EXIT = { ok: 0, belowThreshold: 1, nothingGraded: 3, interrupted: 130 } as const;

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

interface RunCommandState {
  numbers: FlagNumbers;
  store: Store;
  tracing?: Tracing;
  runId?: string;
  /** The terminal's progress display, from the moment the run is stored. */
  display?: ReturnType<typeof progressDisplay>;
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
  const numbers = parseFlagNumbers(flags);
  // A distributed run checks its queue before anything is stored: a wrong URL leaves nothing behind.
  const queueAddress = flags.queue !== undefined ? parseRedisUrl(flags.queue) : undefined;
  // The queue's client is loaded for distributed runs only (it costs a local run's start seconds).
  if (queueAddress)
    await (await import("../../distributed/bullmq-connection.js")).checkRedisReachable(queueAddress);
  else if (numbers.localWorkers > 0)
    throw new ConfigError("--local-workers applies to distributed runs: add --queue redis://HOST:PORT");
  const storePath = resolveStorePath(flags.store, context.env);
  const storeIsNew = !existsSync(storePath);
  const state: RunCommandState = { numbers, store: openStore(context, flags.store, { create: true }) };
  try {
    state.tracing = await startCliTracing(flags, context);
    const session = await runSession(flags, command, context, state, queueAddress);
    return await reportRun(flags, context, state, session);
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
    state.display?.stop();
    // Spans reach the collector before the process exits (a failed or interrupted run included).
    await state.tracing?.shutdown();
    state.store.close();
    // Bad input leaves nothing behind: a store this command created for a run that never started goes.
    if (storeIsNew && state.runId === undefined) {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${storePath}${suffix}`, { force: true });
    }
  }
}

/**
 * The flags as a run spec (or, with `--resume`, the settings typed again), run by the library until it
 * completes, its budget is spent or it is stopped. Ctrl-C once: no new conversations, those in flight
 * finish and are stored. Twice: stop them now.
 */
async function runSession(
  flags: RunFlags,
  command: Command,
  context: CliContext,
  state: RunCommandState,
  queueAddress: RedisAddress | undefined,
): Promise<LaunchOutcome> {
  const stop = new AbortController();
  const abort = new AbortController();
  const onSignal = () => {
    if (!stop.signal.aborted) {
      state.display?.note(
        "stopping: no new conversations; waiting for those in flight (Ctrl-C again to stop them now)",
      );
      stop.abort();
    } else if (!abort.signal.aborted) {
      state.display?.note("stopping now: conversations in flight are abandoned and will run again on resume");
      abort.abort();
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const options: Omit<StartRunOptions, "agent"> = {
    ...runOptionsOf(context),
    store: state.store,
    ...(flags.failUnder ? { failUnder: flags.failUnder } : {}),
    ...(flags.junit ? { junit: flags.junit } : {}),
    ...(state.tracing ? { tracing: state.tracing } : {}),
    ...(queueAddress ? { distribute: (config) => distribute(context, state, queueAddress, config) } : {}),
    signal: stop.signal,
    abortSignal: abort.signal,
    onNote: (text) => context.stderr.write(`${text}\n`),
    // The display follows the run as it happens.
    onEvent: runEventPrinter(context, state),
  };
  try {
    if (flags.resume)
      return await resumeRun(flags.resume, {
        ...options,
        changes: runChangesOfFlags(flags, command, state.numbers),
        ...(flags.label !== undefined ? { label: flags.label } : {}),
      });
    return await startRun(runSpecOfFlags(flags, command, state.numbers), options);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** `--queue`: the run's conversations go to workers through the queue, `--local-workers` of them here. */
async function distribute(
  context: CliContext,
  state: RunCommandState,
  address: RedisAddress,
  config: RunConfig,
) {
  // Loaded for distributed runs only (the queue's client costs a local run's start seconds).
  const { queueDistribution } = await import("../../distributed/queue-distribution.js");
  const prefix = config.scriptedDemo ? "[scripted demo] " : "";
  const note = (text: string) => context.stderr.write(`${prefix}${text}\n`);
  return queueDistribution({
    address,
    onNote: note,
    localWorkers: state.numbers.localWorkers,
    worker: { ...runOptionsOf(context), onNote: note, ...(state.tracing ? { tracing: state.tracing } : {}) },
  })(config);
}

/** What the terminal shows of the run's events as they happen. */
function runEventPrinter(context: CliContext, state: RunCommandState): (event: RunSessionEvent) => void {
  let config: RunConfig | undefined;
  return (event) => {
    if (event.type === "run-stored") {
      state.runId = event.run.id;
      const stored = RunConfigSchema.parse(event.run.config);
      config = stored;
      const prefix = stored.scriptedDemo ? "[scripted demo] " : "";
      state.display = progressDisplay({
        stream: context.stderr,
        mode: state.numbers.progress,
        intervalMs: state.numbers.progressInterval * 1000,
        prefix,
      });
      if (config.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
      context.stderr.write(`${prefix}${describeRunStart(event, stored, state.store.file)}\n`);
      return;
    }
    const display = state.display;
    if (!display || !config) return;
    const { maxCost, adaptive } = config;
    if (event.type === "adaptive-round") {
      const { round, interval, added } = event.round;
      if (added > 0 && adaptive)
        display.note(
          `adaptive round ${round + 1}: mean success ${fixed(interval.estimate, 3)} ± ${fixed(interval.halfWidth, 3)} ` +
            `after ${interval.trials} trials (target ± ${adaptive.targetCi}); ${added} more trials queued`,
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
  session: LaunchOutcome,
): Promise<{ code: number; runId: string }> {
  state.display?.stop();
  const { store } = state;
  const { config, perturbations, outcome, metrics, simulations, plan, written } = session;
  const { adaptive } = config;
  const stored = session.run;
  const prefix = config.scriptedDemo ? "[scripted demo] " : "";
  println(context);
  const coverage = partialCoverageLabel(gradingCoverage(metrics, outcome.counts.total));
  println(context, `${prefix}${describeRunHeader(config, stored)}${coverage ? ` · ${coverage}` : ""}`);
  const agentCounted = !isRemoteAgentSpec(config.agent.model);
  println(context, formatMetrics(metrics, { agentCostCounted: agentCounted }));
  const comparability = runComparability(
    { numTrials: config.numTrials, simulations, run: stored },
    { domainData: domainDataOf(context) },
  );
  for (const [domain, verdict] of Object.entries(comparability))
    println(context, `${domain}: ${describeComparability(verdict)}`);
  println(context, describeRunCost(metrics, outcome.spent, agentCounted));
  const { verdict } = session;
  if (verdict.robustness.length > 0) println(context, formatRobustnessTable(verdict.robustness));
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
        minTrials: config.numTrials,
        ...adaptive,
      }),
    );
  if (flags.review) {
    const { reviews } = await reviewStoredRun(context, store, stored.id, {
      ...(config.judge ? { judgeLlm: config.judge.model } : {}),
      ...(config.judge?.baseUrl ? { judgeLlmBaseUrl: config.judge.baseUrl } : {}),
    });
    println(context, `review: ${describeBlame(reviews)} (details: \`passk review ${stored.id}\`)`);
  }
  println(context, `${prefix}${describeRunEnd(session, config.maxCost)}`);
  for (const file of written) println(context, `wrote ${file}`);
  if (config.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  return {
    code: Math.max(gateCode(context, session), nothingGradedCode(context, session)),
    runId: stored.id,
  };
}

/** `--fail-under`: each gate printed PASS or FAIL; an incomplete run fails them too. */
function gateCode(context: CliContext, session: LaunchOutcome): number {
  for (const line of describeGates(session.verdict)) println(context, line);
  if (session.outcome.reason === "interrupted") return RUN_EXIT.interrupted;
  return session.verdict.belowThreshold ? RUN_EXIT.belowThreshold : RUN_EXIT.ok;
}

/** A run that graded nothing measured nothing: never "completed" with exit 0. */
function nothingGradedCode(context: CliContext, session: LaunchOutcome): number {
  const nothing = session.verdict.nothingGraded;
  if (!nothing) return RUN_EXIT.ok;
  context.stderr.write(`error: ${describeNothingGraded(nothing, session.run.id)}\n`);
  return RUN_EXIT.nothingGraded;
}
