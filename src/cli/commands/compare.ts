import type { Command } from "commander";
import { compareRuns, type TaskComparison } from "../../metrics/compare-runs.js";
import { describeSignificance } from "../../metrics/statistics.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";
import { fixed } from "./metrics-table.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { isScriptedDemo, loadRunSource } from "../../runner/run-source.js";
import { resolveStorePath } from "../../store/store-location.js";
import { withStoreOption } from "./run-source.js";

interface CompareOptions {
  store?: string;
  json?: boolean;
  domain?: string;
  all?: boolean;
}

function taskRow(task: TaskComparison, k: number): string[] {
  return [
    `${task.domain}/${task.task_id}`,
    ...Array.from({ length: k }, (_, i) => `${fixed(task.before[i], 2)} → ${fixed(task.after[i], 2)}`),
    task.regressed ? "regressed" : task.improved ? "improved" : "",
  ];
}

/** `passk compare RUN_A RUN_B`: per-task pass^k differences, regressions first. */
export function registerCompare(program: Command, context: CliContext): void {
  withStoreOption(
    program
      .command("compare")
      .description(
        "Per-task pass^k of run B against run A (each a run id or a results file), with the tasks that regressed",
      )
      .argument("<a>", "baseline: run id or results file")
      .argument("<b>", "candidate: run id or results file")
      .option("--json", "print the comparison as JSON")
      .option("--domain <name>", "only this domain")
      .option("--all", "list every common task, not only those that changed"),
  ).action((refA: string, refB: string, options: CompareOptions) => {
    const from = { store: resolveStorePath(options.store, context.env), domain: options.domain };
    const [a, b] = [loadRunSource(refA, from), loadRunSource(refB, from)];
    const comparison = compareRuns(a, b);
    const demos = [a, b].filter(isScriptedDemo).map((s) => s.label);
    if (options.json) {
      const demo = demos.length > 0 ? { scripted_demo: demos } : {};
      println(context, JSON.stringify({ a: a.label, b: b.label, ...demo, ...comparison }, null, 2));
      return;
    }
    if (demos.length > 0) println(context, `# ${SCRIPTED_DEMO_BANNER} (${demos.join(", ")})`);
    const k = comparison.k;
    println(context, `A = ${a.label}\nB = ${b.label}\n${comparison.tasks.length} tasks in both, K = ${k}`);
    println(
      context,
      formatTable(
        ["", ...Array.from({ length: k }, (_, i) => `pass^${i + 1}`)],
        [
          ["A", ...Array.from({ length: k }, (_, i) => fixed(comparison.pass_hat_ks_a[i + 1]))],
          ["B", ...Array.from({ length: k }, (_, i) => fixed(comparison.pass_hat_ks_b[i + 1]))],
        ],
      ),
    );
    const listed = options.all ? comparison.tasks : [...comparison.regressed, ...comparison.improved];
    println(context);
    println(context, `${comparison.regressed.length} regressed, ${comparison.improved.length} improved`);
    if (listed.length > 0) {
      println(
        context,
        formatTable(
          ["task", ...Array.from({ length: k }, (_, i) => `pass^${i + 1} A → B`), ""],
          listed.map((t) => taskRow(t, k)),
        ),
      );
    }
    println(context);
    println(context, describeSignificance(comparison.significance));
    if (comparison.only_in_a.length > 0) println(context, `only in A: ${comparison.only_in_a.join(", ")}`);
    if (comparison.only_in_b.length > 0) println(context, `only in B: ${comparison.only_in_b.join(", ")}`);
  });
}
