import type { Command } from "commander";
import { computeRunMetrics, failingTasks } from "../../metrics/run-metrics.js";
import { println, wholeNumber, type CliContext } from "../context.js";
import { formatFailingTasks, formatMetrics } from "./metrics-table.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { isScriptedDemo, loadRunSource, withStoreOption } from "./run-source.js";

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
    if (options.json) {
      const demo = isScriptedDemo(source) ? { scripted_demo: true } : {};
      println(
        context,
        JSON.stringify({ source: source.label, ...demo, metrics, failing_tasks: failing }, null, 2),
      );
      return;
    }
    if (isScriptedDemo(source)) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
    println(context, `${source.label}: ${source.simulations.length} simulations`);
    println(context);
    println(context, formatMetrics(metrics));
    println(context);
    println(context, formatFailingTasks(failing, top));
  });
}
