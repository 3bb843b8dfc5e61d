import { robustnessRow, type RobustnessRow } from "../../metrics/robustness.js";
import { identityDifferences, RunConfigSchema, type RunConfig } from "../../runner/run-config.js";
import type { Store } from "../../store/store.js";
import { formatTable } from "../table.js";
import { fixed } from "./metrics-table.js";

/** A perturbed run's label in the table: its perturbations joined (`tool-faults@1 + persona@1:trait=terse`). */
export const perturbationLabel = (config: Pick<RunConfig, "perturbations">) =>
  (config.perturbations ?? []).join(" + ");

/** Whether two runs measure the same thing but for their perturbations. */
function sameBut(a: RunConfig, b: RunConfig): boolean {
  return identityDifferences({ ...a, perturbations: [] }, { ...b, perturbations: [] }).length === 0;
}

/**
 * The robustness rows of a stored run: a perturbed run against the newest completed clean run of the
 * same configuration (tasks, trials, seed, models…); a clean run against the newest run of each
 * perturbation made with its configuration. None when there is nothing to pair with.
 */
export function storedRobustnessRows(store: Store, runId: string): RobustnessRow[] {
  const run = store.getRun(runId);
  const config = RunConfigSchema.safeParse(run.config).data;
  if (!config) return [];
  const others = store
    .listRuns()
    .filter((r) => r.id !== run.id && r.status === "completed")
    .map((r) => ({ run: r, config: RunConfigSchema.safeParse(r.config).data }))
    .filter(
      (r): r is { run: typeof run; config: RunConfig } => r.config !== undefined && sameBut(r.config, config),
    );
  const row = (clean: string, perturbed: string, label: string) =>
    robustnessRow(label, store.scoredSimulations(clean), store.scoredSimulations(perturbed), {
      numTrials: config.num_trials,
    });
  const perturbed = perturbationLabel(config);
  if (perturbed !== "") {
    const baseline = others.find((r) => perturbationLabel(r.config) === "");
    return baseline
      ? [{ ...row(baseline.run.id, run.id, perturbed), run_id: run.id, baseline_run_id: baseline.run.id }]
      : [];
  }
  const seen = new Set<string>();
  const rows: RobustnessRow[] = [];
  for (const other of others) {
    const label = perturbationLabel(other.config);
    if (label === "" || seen.has(label)) continue;
    seen.add(label);
    rows.push({ ...row(run.id, other.run.id, label), run_id: other.run.id, baseline_run_id: run.id });
  }
  return rows.sort((a, b) => a.perturbation.localeCompare(b.perturbation));
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
