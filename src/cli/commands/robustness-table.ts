import type { RobustnessRow } from "../../metrics/robustness.js";
import { formatTable } from "../table.js";
import { fixed } from "./metrics-table.js";

// `passk run` and `passk report` import the library's pairing from here, beside the table they print.
export { storedRobustnessRows } from "../../runner/robustness-pairs.js";

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
