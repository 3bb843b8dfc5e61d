import type { Command } from "commander";
import { computeRunMetrics, failingTasks, taskOutcomes } from "../../metrics/run-metrics.js";
import { taskStatistics, type TaskStatistics } from "../../metrics/statistics.js";
import type { Review } from "../../review/blame.js";
import { notTheAgentsKeys } from "../../review/review-run.js";
import { describeBlame } from "./review.js";
import { describeAdaptive } from "../../metrics/adaptive-trials.js";
import { RunConfigSchema } from "../../runner/run-config.js";
import { println, wholeNumber, type CliContext } from "../context.js";
import { formatFailingTasks, formatMetrics } from "./metrics-table.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { isScriptedDemo, loadRunSource, withStoreOption, type RunSource } from "./run-source.js";
import {
  describeComparability,
  tau2Comparability,
  type Tau2Comparability,
} from "../../runner/tau2-comparability.js";
import { baseSplitIds } from "../context.js";

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
          "bootstrap intervals, pass@k, cost, termination reasons, and the tasks that fail most with their failed checks",
      )
      .argument("<run>", "run id (or unique prefix) in the store, or a results JSON file")
      .option("--json", "print the metrics and failing tasks as JSON")
      .option("--domain <name>", "only this domain (for a results file: its domain if the file does not say)")
      .option("--top <n>", "how many failing tasks to list", "10")
      .option("--seed <n>", "seed of the bootstrap resampling", "0"),
  ).action((ref: string, options: ReportOptions) => {
    const seed = wholeNumber("--seed", options.seed, 2 ** 32 - 1);
    const top = wholeNumber("--top", options.top);
    const source = loadRunSource(context, ref, options);
    const metrics = computeRunMetrics(source.simulations, {
      numTrials: source.numTrials,
      bootstrap: { seed },
    });
    const failing = failingTasks(source.simulations);
    const comparability = sourceComparability(context, source);
    const tasks = taskStatistics(taskOutcomes(source.simulations));
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
    if (options.json) {
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
            failing_tasks: failing,
          },
          null,
          2,
        ),
      );
      return;
    }
    if (isScriptedDemo(source)) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
    println(context, `${source.label}: ${source.simulations.length} simulations`);
    for (const [domain, verdict] of Object.entries(comparability))
      println(context, `${domain}: ${describeComparability(verdict)}`);
    println(context);
    println(context, formatMetrics(metrics));
    if (agentOnly) {
      println(context);
      println(
        context,
        `as measured above; below, without the ${excluded.size} failure(s) \`passk review\` placed on the simulated customer, the task or the infrastructure:`,
      );
      println(context, formatMetrics(agentOnly));
    }
    if (source.reviews && source.reviews.length > 0)
      println(context, `review: ${describeBlame(source.reviews as Array<{ review: Review }>)}`);
    const adaptive = RunConfigSchema.safeParse(source.run?.config).data?.adaptive;
    if (adaptive)
      println(context, describeAdaptive(tasks, { minTrials: source.numTrials ?? 1, ...adaptive }));
    println(context, describeTaskStability(tasks));
    println(context);
    println(context, formatFailingTasks(failing, top));
  });
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
