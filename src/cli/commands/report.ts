import { existsSync } from "node:fs";
import type { Command } from "commander";
import { z } from "zod";
import { loadPriceOverrides, modelPricing, type PriceOverrides } from "../../llm/cost.js";
import { parseModelSpec } from "../../llm/model-spec.js";
import { createDefaultProviderRegistry } from "../../llm/provider-registry.js";
import {
  tokenUsage,
  type ParticipantRates,
  type TokenCounts,
  type TokenRates,
  type TokenUsageSummary,
  type UsageSimulation,
} from "../../metrics/token-usage.js";
import { computeRunMetrics, failingTasks, taskOutcomes } from "../../metrics/run-metrics.js";
import { taskStatistics, type TaskStatistics } from "../../metrics/statistics.js";
import type { Review } from "../../review/blame.js";
import { notTheAgentsKeys } from "../../review/review-run.js";
import { describeBlame } from "./review.js";
import { describeAdaptive } from "../../metrics/adaptive-trials.js";
import { RunConfigSchema } from "../../runner/run-spec.js";
import type { SimulationNote } from "../../core/simulation-note.js";
import { sqliteSimulationNotes } from "../../store/simulation-notes.js";
import { println, wholeNumber, type CliContext } from "../context.js";
import { formatFailingTasks, formatMetrics } from "./metrics-table.js";
import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import {
  isScriptedDemo,
  loadRunSource,
  sourceAgentCostCounted,
  withStore,
  withStoreOption,
  type RunSource,
} from "./run-source.js";
import {
  describeComparability,
  tau2Comparability,
  type Tau2Comparability,
} from "../../runner/tau2-comparability.js";
import { baseSplitIds } from "../domain-flags.js";
import { formatRobustnessTable, storedRobustnessRows } from "./robustness-table.js";
import { isVoiceResultsDir } from "../../formats/tau2/voice-results.js";
import { reportVoiceRun } from "./interaction-metrics-report.js";

interface ReportOptions {
  json?: boolean;
  store?: string;
  domain?: string;
  top: string;
  seed: string;
}

/** `passk report RUN_ID|FILE`: the metrics of a stored run or of a τ² results file. */
export function registerReport(program: Command, context: CliContext): void {
  withStoreOption(
    program
      .command("report")
      .description(
        "Metrics of a run (a run id from the store, or a τ²-bench results file): average reward, pass^k with " +
          "bootstrap intervals, pass@k, cost, termination reasons, and the tasks that fail most with their failed checks; " +
          "for a voice run directory (results.json + simulations/ with ticks), its interaction metrics",
      )
      .argument("<run>", "run id (or unique prefix) in the store, a results JSON file, or a run directory")
      .option("--json", "print the metrics and failing tasks as JSON")
      .option("--domain <name>", "only this domain (for a results file: its domain if the file does not say)")
      .option("--top <n>", "how many failing tasks to list", "10")
      .option("--seed <n>", "seed of the bootstrap resampling", "0"),
  ).action((ref: string, options: ReportOptions) => {
    // A voice run (the reference's directory format, simulations with ticks): its interaction metrics.
    if (existsSync(ref) && isVoiceResultsDir(ref)) return reportVoiceRun(context, ref, options.json === true);
    const seed = wholeNumber("--seed", options.seed, 2 ** 32 - 1);
    const top = wholeNumber("--top", options.top);
    const report = gatherReport(context, ref, options, seed);
    if (options.json) printReportJson(context, report);
    else printReport(context, report, top);
  });
}

/** Everything `passk report` says of a run, computed before anything is printed. */
function gatherReport(context: CliContext, ref: string, options: ReportOptions, seed: number) {
  const source = loadRunSource(context, ref, options);
  const metrics = computeRunMetrics(source.simulations, {
    numTrials: source.numTrials,
    bootstrap: { seed },
  });
  const failing = failingTasks(source.simulations);
  const comparability = sourceComparability(context, source);
  const tasks = taskStatistics(taskOutcomes(source.simulations));
  const tokens = tokenUsage(usageSimulations(context, source, options), participantRates(source));
  // With reviews: the same metrics with the failures that were not the agent's left out.
  const excluded = notTheAgentsKeys(source.reviews ?? []);
  const agentOnly =
    excluded.size > 0
      ? computeRunMetrics(
          source.simulations.filter(
            (s) => !excluded.has(`${s.domain}\u0000${s.task_id}\u0000${s.trial ?? 0}`),
          ),
          { numTrials: source.numTrials, bootstrap: { seed } },
        )
      : undefined;
  // A run measured with and without perturbations: the robustness table (stored runs only).
  const { robustness, taskIssues } = source.run
    ? withStore(context, options.store, { create: false }, (store) => ({
        robustness: storedRobustnessRows(store, source.run!.id),
        // Notes flagging a task issue (written in the web app's explorer).
        taskIssues: sqliteSimulationNotes(store)
          .list(source.run!.id)
          .filter((note) => note.taskIssue),
      }))
    : { robustness: [], taskIssues: [] };
  return {
    source,
    metrics,
    failing,
    comparability,
    tasks,
    tokens,
    excluded,
    agentOnly,
    robustness,
    taskIssues,
  };
}

type Report = ReturnType<typeof gatherReport>;

/** `--json`: the report as one JSON object. */
function printReportJson(context: CliContext, report: Report): void {
  const {
    source,
    comparability,
    metrics,
    agentOnly,
    excluded,
    tasks,
    tokens,
    failing,
    robustness,
    taskIssues,
  } = report;
  const demo = isScriptedDemo(source) ? { scripted_demo: true } : {};
  println(
    context,
    JSON.stringify(
      {
        source: source.label,
        ...demo,
        tau2_comparability: comparability,
        metrics,
        ...(agentOnly
          ? { metrics_excluding_not_the_agents_failures: agentOnly, excluded_simulations: excluded.size }
          : {}),
        task_statistics: tasks,
        token_usage: tokens,
        failing_tasks: failing,
        ...(robustness.length > 0 ? { robustness } : {}),
        ...(taskIssues.length > 0
          ? {
              task_issues: taskIssues.map((note) => ({
                domain: note.domain,
                task_id: note.taskId,
                trial: note.trial,
                category: note.category,
                text: note.text,
              })),
            }
          : {}),
      },
      null,
      2,
    ),
  );
}

/** The report for a terminal: coverage, comparability, metrics, tokens, blame, stability, failing tasks. */
function printReport(context: CliContext, report: Report, top: number): void {
  const {
    source,
    comparability,
    metrics,
    agentOnly,
    excluded,
    tasks,
    tokens,
    failing,
    robustness,
    taskIssues,
  } = report;
  if (isScriptedDemo(source)) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  const coverage = partialCoverageLabel(gradingCoverage(metrics));
  println(
    context,
    `${source.label}: ${source.simulations.length} simulations${coverage ? ` · ${coverage}` : ""}`,
  );
  for (const [domain, verdict] of Object.entries(comparability))
    println(context, `${domain}: ${describeComparability(verdict)}`);
  println(context);
  const costOptions = { agentCostCounted: sourceAgentCostCounted(source) };
  println(context, formatMetrics(metrics, costOptions));
  if (agentOnly) {
    println(context);
    println(
      context,
      `as measured above; below, without the ${excluded.size} failure(s) \`passk review\` placed on the simulated customer, the task or the infrastructure:`,
    );
    println(context, formatMetrics(agentOnly, costOptions));
  }
  const tokenLines = describeTokenUsage(tokens);
  if (tokenLines.length > 0) {
    println(context);
    for (const line of tokenLines) println(context, line);
  }
  if (source.reviews && source.reviews.length > 0)
    println(context, `review: ${describeBlame(source.reviews as Array<{ review: Review }>)}`);
  const adaptive = RunConfigSchema.safeParse(source.run?.config).data?.adaptive;
  if (adaptive) println(context, describeAdaptive(tasks, { minTrials: source.numTrials ?? 1, ...adaptive }));
  println(context, describeTaskStability(tasks));
  if (taskIssues.length > 0) println(context, describeTaskIssues(taskIssues));
  if (robustness.length > 0) {
    println(context);
    println(context, formatRobustnessTable(robustness));
  }
  println(context);
  println(context, formatFailingTasks(failing, top));
}

/** One line naming the simulations a note flags as a task issue (the first five), with their categories. */
export function describeTaskIssues(notes: readonly SimulationNote[]): string {
  const simulations = new Map<string, string[]>();
  for (const note of notes) {
    const key = `${note.taskId} trial ${note.trial}`;
    const categories = simulations.get(key) ?? [];
    if (note.category && !categories.includes(note.category)) categories.push(note.category);
    simulations.set(key, categories);
  }
  const shown = [...simulations]
    .slice(0, 5)
    .map(([key, categories]) => (categories.length > 0 ? `${key} (${categories.join(", ")})` : key));
  const more = simulations.size > 5 ? `, and ${simulations.size - 5} more` : "";
  return `task issues flagged in notes: ${simulations.size} simulation${simulations.size === 1 ? "" : "s"}: ${shown.join(", ")}${more}`;
}

/** Per domain of the run: can its numbers stand beside the τ²-bench leaderboard's? */
export function sourceComparability(
  context: CliContext,
  source: RunSource,
): Record<string, Tau2Comparability> {
  const info = source.file?.results.info ?? source.run?.info ?? null;
  const dataDir = (info as { passk?: { config?: { data?: unknown } } } | null)?.passk?.config?.data;
  const domains = [...new Set(source.simulations.map((s) => s.domain))].sort();
  return Object.fromEntries(
    domains.map((domain) => {
      const simulations = source.simulations.filter((s) => s.domain === domain);
      const base = baseSplitIds(context, domain, typeof dataDir === "string" ? dataDir : undefined);
      return [
        domain,
        tau2Comparability({
          domain,
          info,
          taskIds: simulations.map((s) => s.task_id),
          numTrials: source.numTrials,
          rewardInfos: simulations.map((s) => s.reward_info),
          ...(base ? { baseTaskIds: base } : {}),
        }),
      ];
    }),
  );
}

/** How many tasks always pass, always fail, or are flaky (pass in some trials and fail in others). */
export function describeTaskStability(tasks: readonly TaskStatistics[]): string {
  const flaky = tasks.filter((t) => t.flaky);
  const always = tasks.filter((t) => t.successes === t.trials).length;
  const never = tasks.filter((t) => t.successes === 0).length;
  const line = `tasks: ${always} always pass, ${never} always fail, ${flaky.length} flaky (pass in some trials, fail in others)`;
  if (flaky.length === 0) return line;
  const shown = flaky
    .slice(0, 5)
    .map(
      (t) =>
        `${t.task_id} ${t.successes}/${t.trials} [95% CI ${t.interval.low.toFixed(2)}, ${t.interval.high.toFixed(2)}]`,
    );
  return `${line}: ${shown.join("; ")}${flaky.length > 5 ? "; …" : ""}`;
}

/** Every simulation of the source with its messages (whose usage the token counts read). */
function usageSimulations(
  context: CliContext,
  source: RunSource,
  options: { store?: string; domain?: string },
): UsageSimulation[] {
  if (source.file) {
    // A results file's simulations, in the order (and with the domain) the scored ones were read.
    return source.file.results.simulations.map((simulation, i) => ({
      ...simulation,
      domain: source.simulations[i]?.domain ?? "",
    }));
  }
  const run = source.run;
  if (!run) return [];
  return withStore(context, options.store, { create: false }, (store) =>
    store
      .getSimulations(run.id, options.domain !== undefined ? { domain: options.domain } : {})
      .map(({ domain, simulation }) => ({ ...simulation, domain })),
  );
}

/** What the report reads of a run's info to price its models again: the specs, base URLs and price file. */
const PricedInfoSchema = z.looseObject({
  agent_info: z.looseObject({ llm: z.string().nullish() }).nullish(),
  user_info: z.looseObject({ llm: z.string().nullish() }).nullish(),
  passk: z
    .looseObject({
      config: z
        .looseObject({
          models: z
            .looseObject({
              agentLlmBaseUrl: z.string().optional(),
              userLlmBaseUrl: z.string().optional(),
              prices: z.string().optional(),
            })
            .optional(),
        })
        .optional(),
    })
    .nullish(),
});

/**
 * The rates the run's agent and customer models are priced at, at the time of the run: the price table
 * (and the run's `--prices` file, when it is still there). Null for a model the table does not know, a
 * scripted participant or your own agent.
 */
function participantRates(source: RunSource): ParticipantRates {
  const info = PricedInfoSchema.safeParse(source.file?.results.info ?? source.run?.info ?? null);
  if (!info.success) return { agent: null, user: null };
  const models = info.data.passk?.config?.models;
  let overrides: PriceOverrides | undefined;
  try {
    if (models?.prices !== undefined && existsSync(models.prices))
      overrides = loadPriceOverrides(models.prices);
  } catch {
    // A price file that no longer reads leaves the table's prices.
  }
  const stamp = Date.parse(source.file?.results.timestamp ?? source.run?.timestamp ?? "");
  const at = Number.isNaN(stamp) ? new Date() : new Date(stamp);
  return {
    agent: modelRates(info.data.agent_info?.llm, models?.agentLlmBaseUrl, overrides, at),
    user: modelRates(info.data.user_info?.llm, models?.userLlmBaseUrl, overrides, at),
  };
}

function modelRates(
  spec: string | null | undefined,
  baseUrl: string | undefined,
  overrides: PriceOverrides | undefined,
  at: Date,
): TokenRates | null {
  if (spec === null || spec === undefined) return null;
  const registry = createDefaultProviderRegistry();
  let parsed: { provider: string; model: string };
  try {
    parsed = parseModelSpec(spec, registry.ids);
  } catch {
    return null; // scripted:gold, module:<path>
  }
  const provider = registry.get(parsed.provider);
  const pricing = modelPricing({
    ...parsed,
    lookup: provider.priceLookup(
      baseUrl ?? (typeof provider.defaultBaseUrl === "string" ? provider.defaultBaseUrl : ""),
    ),
    ...(overrides ? { overrides } : {}),
    at,
  });
  return pricing === null
    ? null
    : {
        input_mtok: pricing.inputMtok,
        cache_read_mtok: pricing.cacheReadMtok,
        cache_write_mtok: pricing.cacheWriteMtok,
      };
}

/** The tokens, cost and caching lines of the report; none when no model call recorded usage. */
export function describeTokenUsage(usage: TokenUsageSummary): string[] {
  const { mean, total } = usage;
  if (total.agent.calls + total.user.calls === 0) return [];
  const count = (value: number) => Math.round(value).toLocaleString("en-US");
  const usd = (value: number) => `$${value.toFixed(4)}`;
  const side = (name: string, tokens: TokenCounts) =>
    `  ${name.padEnd(8)} ${count(tokens.calls)} calls  input ${count(tokens.input)} ` +
    `(cache read ${count(tokens.cache_read)}, cache write ${count(tokens.cache_write)})  output ${count(tokens.output)}`;
  const lines = [
    `tokens per conversation (mean over ${usage.conversations} conversations, infrastructure errors included):`,
    side("agent", mean.agent),
    side("customer", mean.user),
    mean.cost === null || total.cost === null
      ? "cost per conversation: unknown (a model has no price)"
      : `cost per conversation: ${usd(mean.cost)} (${usd(total.cost)} in all)`,
  ];
  const cached =
    total.agent.cache_read + total.agent.cache_write + total.user.cache_read + total.user.cache_write;
  if (cached === 0) lines.push("prompt caching: no cached tokens reported");
  else if (mean.caching_saving === null || total.caching_saving === null)
    lines.push("prompt caching: the saving is unknown (a model has no price)");
  else
    lines.push(
      `prompt caching saved ${usd(mean.caching_saving)} per conversation (${usd(total.caching_saving)} in all` +
        (total.saving_share === null
          ? ""
          : `, ${(total.saving_share * 100).toFixed(0)}% of the cost without it`) +
        "): cached tokens at the full input rate minus what they cost",
    );
  return lines;
}
