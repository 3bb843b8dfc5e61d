import { useMemo } from "react";
import type { RobustnessRowView } from "../../../src/server/api-schemas.js";
import { EChart, type ChartOption } from "../components/echart.js";
import { formatPercent } from "../format.js";
import { href } from "../router.js";

const fixed = (value: number | null, digits = 3) => (value === null ? "-" : value.toFixed(digits));

/**
 * The robustness table and chart: per perturbation, pass^k clean and perturbed on the same tasks and
 * seeds, the drop with its paired 95% interval, the share kept, and the tasks that broke.
 */
export function RobustnessCard(props: { rows: readonly RobustnessRowView[] }) {
  const { rows } = props;
  const k = rows[0]?.k ?? 1;
  const option = useMemo(
    (): ChartOption => ({
      animation: false,
      grid: { left: 200, right: 24, top: 28, bottom: 24 },
      legend: { top: 0 },
      tooltip: { trigger: "axis" },
      xAxis: { type: "value", min: 0, max: 1 },
      yAxis: { type: "category", data: rows.map((r) => r.perturbation), inverse: true },
      series: [
        { name: "clean", type: "bar", data: rows.map((r) => r.clean), color: "#64748b", barMaxWidth: 14 },
        {
          name: "perturbed",
          type: "bar",
          data: rows.map((r) => r.perturbed),
          color: "#dc2626",
          barMaxWidth: 14,
        },
      ],
    }),
    [rows],
  );
  return (
    <section className="card" aria-label="Robustness">
      <h2>Robustness: pass^{k} clean vs perturbed (same tasks and seeds)</h2>
      <EChart
        option={option}
        height={40 + rows.length * 36}
        testId="robustness-chart"
        summary={rows
          .map((r) => `${r.perturbation}: clean ${fixed(r.clean)}, perturbed ${fixed(r.perturbed)}`)
          .join("; ")}
      />
      <div className="table-scroll">
        <table className="compare-table" aria-label="Robustness table">
          <thead>
            <tr>
              <th>perturbation</th>
              <th>tasks</th>
              <th>clean pass^{k}</th>
              <th>perturbed pass^{k}</th>
              <th>drop [95% CI]</th>
              <th>p</th>
              <th>kept</th>
              <th>broke</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.perturbation} className={r.broke.length > 0 ? "regressed" : undefined}>
                <td>
                  {r.runId ? (
                    <a href={href({ page: "run", runId: r.runId })}>{r.perturbation}</a>
                  ) : (
                    r.perturbation
                  )}
                </td>
                <td>{r.tasks}</td>
                <td>{fixed(r.clean)}</td>
                <td>{fixed(r.perturbed)}</td>
                <td>
                  {fixed(r.drop)}
                  {r.dropInterval
                    ? ` [${fixed(r.dropInterval.low, 2)}, ${fixed(r.dropInterval.high, 2)}]`
                    : ""}
                </td>
                <td>{fixed(r.pValue)}</td>
                <td>{r.kept === null ? "-" : formatPercent(r.kept)}</td>
                <td>{r.broke.length === 0 ? "-" : r.broke.join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
