import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import type { RobustnessRow } from "../../metrics/robustness.js";
import type { Metrics, RunMetrics, TaskFailures } from "../../metrics/run-metrics.js";
import { formatTable } from "../table.js";

/** A number with 3 decimals, or "-" when missing. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "-" : value.toFixed(digits);
}

function passColumns(metrics: RunMetrics): number[] {
  return Object.keys(metrics.pass_hat_ks).map(Number);
}

/** How the cost columns read: "n/a" when the agent runs elsewhere and pays its own model calls. */
export interface MetricsTableOptions {
  agentCostCounted?: boolean;
}

/** Said under the table when the agent's cost is not passk's to count. */
export const REMOTE_AGENT_COST_NOTE =
  "agent $/sim n/a: the agent runs elsewhere and pays for its own model calls, which passk does not see";

function row(name: string, m: Metrics, ks: number[], counted: boolean): string[] {
  // Scores over part of the run are marked; the line under the table says how much they cover.
  const mark = partialCoverageLabel(gradingCoverage(m)) ? "*" : "";
  return [
    name,
    String(m.total_tasks),
    String(m.total_simulations),
    String(m.infra_error_count),
    `${fixed(m.avg_reward)}${mark}`,
    ...ks.map((k) => {
      const ci = m.pass_hat_k_cis[k];
      return m.pass_hat_ks[k] === undefined
        ? "-"
        : `${fixed(m.pass_hat_ks[k])}${mark}${ci ? ` [${fixed(ci.low, 2)}, ${fixed(ci.high, 2)}]` : ""}`;
    }),
    ...(ks.length > 1 ? [fixed(m.pass_at_ks[ks.length])] : []),
    !counted ? "n/a" : m.unknown_agent_costs > 0 ? "unknown" : fixed(m.avg_agent_cost, 4),
    !counted
      ? "n/a"
      : m.unknown_agent_costs + m.unknown_user_costs > 0
        ? "unknown"
        : fixed(m.avg_total_cost, 4),
  ];
}

/**
 * The metrics of a run as a table: one row for all simulations and one per domain, pass^k with
 * its 95% bootstrap interval over tasks, then the termination reasons.
 */
export function formatMetrics(metrics: RunMetrics, options: MetricsTableOptions = {}): string {
  const counted = options.agentCostCounted ?? true;
  const ks = passColumns(metrics);
  const headers = [
    "domain",
    "tasks",
    "sims",
    "infra",
    "avg reward",
    ...ks.map((k) => `pass^${k} [95% CI]`),
    ...(ks.length > 1 ? [`pass@${ks.length}`] : []),
    "agent $/sim",
    "total $/sim",
  ];
  const domains = Object.entries(metrics.by_domain);
  const rows = [
    row("all", metrics, ks, counted),
    ...(domains.length > 1 ? domains.map(([d, m]) => row(d, m, ks, counted)) : []),
  ];
  if (domains.length === 1) rows[0]![0] = domains[0]![0];
  const reasons = Object.entries(metrics.termination_reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  const lines = [
    formatTable(headers, rows),
    ...(counted ? [] : [REMOTE_AGENT_COST_NOTE]),
    "",
    `termination reasons: ${reasons || "none"}`,
  ];
  const rowsShown: Array<readonly [string, Metrics]> =
    domains.length === 1 ? [[domains[0]![0], metrics]] : [["all", metrics], ...domains];
  for (const [name, m] of rowsShown) {
    const coverage = gradingCoverage(m);
    const label = partialCoverageLabel(coverage);
    if (label)
      lines.push(
        `* ${name}: ${label} conversations — ${coverage.total - coverage.graded} not graded (infrastructure errors); the marked scores cover the graded ${coverage.graded} only, not the whole run`,
      );
  }
  return lines.join("\n");
}

/** The tasks that fail most, each with its failed checks and how often they failed. */
export function formatFailingTasks(tasks: readonly TaskFailures[], limit: number): string {
  if (tasks.length === 0) return "no failed tasks";
  const shown = tasks.slice(0, limit);
  const lines = [`tasks that fail most (${shown.length} of ${tasks.length} failing):`];
  for (const task of shown) {
    lines.push(`  ${task.domain}/${task.task_id}  failed ${task.failures}/${task.trials}`);
    for (const check of task.checks) lines.push(`    ${check.count}× ${check.kind}: ${check.check}`);
  }
  return lines.join("\n");
}

/** The robustness table: per perturbation, pass^k clean and perturbed, the drop with its 95% interval, the tasks that broke. */
export function formatRobustnessTable(rows: readonly RobustnessRow[]): string {
  const k = rows[0]?.k ?? 1;
  const table = formatTable(
    [
      "perturbation",
      "tasks",
      `clean pass^${k}`,
      `perturbed pass^${k}`,
      "drop [95% CI]",
      "p",
      "kept",
      "broke",
    ],
    rows.map((r) => [
      r.perturbation,
      String(r.tasks),
      fixed(r.clean),
      fixed(r.perturbed),
      r.drop === null
        ? "-"
        : `${fixed(r.drop)} [${fixed(r.drop_interval?.low, 2)}, ${fixed(r.drop_interval?.high, 2)}]`,
      fixed(r.p_value, 3),
      r.robustness === null ? "-" : `${(r.robustness * 100).toFixed(1)}%`,
      r.broke.length === 0
        ? "-"
        : `${r.broke.length}: ${r.broke.slice(0, 3).join(", ")}${r.broke.length > 3 ? ", …" : ""}`,
    ]),
  );
  return `robustness (same tasks and seeds as the clean run; kept = perturbed ÷ clean pass^k):\n${table}`;
}
