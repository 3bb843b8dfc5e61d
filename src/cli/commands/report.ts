import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { SimulationNote } from "../../core/simulation-note.js";
import { describeAdaptive } from "../../metrics/adaptive-trials.js";
import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import type { TaskStatistics } from "../../metrics/statistics.js";
import type { TokenCounts, TokenUsageSummary } from "../../metrics/token-usage.js";
import type { Review } from "../../review/blame.js";
import { isVoiceResultsDir } from "../../formats/tau2/voice-results.js";
import { runComparability, runReport, runReportJson, type RunReport } from "../../runner/run-report.js";
import { agentCostCounted, sourceInfo, type RunSource } from "../../runner/run-source.js";
import { describeComparability, type Tau2Comparability } from "../../runner/tau2-comparability.js";
import { resolveStorePath } from "../../store/store-location.js";
import { println, wholeNumber, type CliContext } from "../context.js";
import { domainDataOf } from "../domain-flags.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { reportVoiceRun } from "./interaction-metrics-report.js";
import { formatFailingTasks, formatMetrics, formatRobustnessTable } from "./metrics-table.js";
import { describeBlame } from "./review.js";
import { withStoreOption } from "./run-source.js";

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
    const report = runReport(ref, {
      store: resolveStorePath(options.store, context.env),
      ...(options.domain !== undefined ? { domain: options.domain } : {}),
      seed,
      domainData: domainDataOf(context),
    });
    if (options.json) println(context, JSON.stringify(runReportJson(report), null, 2));
    else printReport(context, report, top);
  });
}

/** Per domain of the run: can its numbers stand beside the τ²-bench leaderboard's? */
export function sourceComparability(
  context: CliContext,
  source: RunSource,
): Record<string, Tau2Comparability> {
  return runComparability(source, { domainData: domainDataOf(context) });
}

/** The report for a terminal: coverage, comparability, metrics, tokens, blame, stability, failing tasks. */
function printReport(context: CliContext, report: RunReport, top: number): void {
  const { source, metrics, agentOnly, robustness, taskIssues } = report;
  if (report.scriptedDemo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  const coverage = partialCoverageLabel(gradingCoverage(metrics));
  println(
    context,
    `${source.label}: ${source.simulations.length} simulations${coverage ? ` · ${coverage}` : ""}`,
  );
  for (const [domain, verdict] of Object.entries(report.comparability))
    println(context, `${domain}: ${describeComparability(verdict)}`);
  println(context);
  const costOptions = { agentCostCounted: agentCostCounted(sourceInfo(source)) };
  println(context, formatMetrics(metrics, costOptions));
  if (agentOnly) {
    println(context);
    println(
      context,
      `as measured above; below, without the ${report.excludedSimulations} failure(s) \`passk review\` placed on the simulated customer, the task or the infrastructure:`,
    );
    println(context, formatMetrics(agentOnly, costOptions));
  }
  const tokenLines = describeTokenUsage(report.tokenUsage);
  if (tokenLines.length > 0) println(context, ["", ...tokenLines].join("\n"));
  if (source.reviews && source.reviews.length > 0)
    println(context, `review: ${describeBlame(source.reviews as Array<{ review: Review }>)}`);
  if (report.adaptive)
    println(
      context,
      describeAdaptive(report.taskStatistics, { minTrials: source.numTrials ?? 1, ...report.adaptive }),
    );
  println(context, describeTaskStability(report.taskStatistics));
  if (taskIssues.length > 0) println(context, describeTaskIssues(taskIssues));
  if (robustness.length > 0) println(context, `\n${formatRobustnessTable(robustness)}`);
  println(context);
  println(context, formatFailingTasks(report.failingTasks, top));
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
