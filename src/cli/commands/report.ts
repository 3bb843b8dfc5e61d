import { existsSync } from "node:fs";
import type { Command } from "commander";
import { describeAdaptive } from "../../metrics/adaptive-trials.js";
import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import { describeTaskStability } from "../../metrics/statistics.js";
import { describeTokenUsage } from "../../metrics/token-usage.js";
import { describeBlame, type Review } from "../../review/blame.js";
import { isVoiceResultsDir } from "../../formats/tau2/voice-results.js";
import { describeTaskIssues, runReport, runReportJson, type RunReport } from "../../runner/run-report.js";
import { agentCostCounted, sourceInfo } from "../../runner/run-source.js";
import { describeComparability } from "../../runner/tau2-comparability.js";
import { resolveStorePath } from "../../store/store-location.js";
import { println, wholeNumber, type CliContext } from "../context.js";
import { domainDataOf } from "../domain-flags.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { reportVoiceRun } from "./interaction-metrics-report.js";
import { formatFailingTasks, formatMetrics, formatRobustnessTable } from "./metrics-table.js";
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
