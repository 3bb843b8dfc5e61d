import type { RobustnessRow } from "../../metrics/robustness.js";
import { robustnessRowsOf } from "../../runner/robustness-pairs.js";
import type { Store } from "../../store/store.js";
import { formatTable } from "../table.js";
import { fixed } from "./metrics-table.js";

/**
 * The robustness rows of a stored run, paired with the store's other completed runs (see
 * {@link robustnessRowsOf}).
 */
export function storedRobustnessRows(store: Store, runId: string): RobustnessRow[] {
  const run = store.getRun(runId);
  const others = store.listRuns().filter((r) => r.status === "completed");
  return robustnessRowsOf(run, others, (id) => store.scoredSimulations(id));
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
