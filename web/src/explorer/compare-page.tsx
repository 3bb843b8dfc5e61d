import { CompareResponseSchema } from "../../../src/server/api-schemas.js";
import { formatPercent } from "../format.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";
import { PassKChart } from "./pass-k-chart.js";
import { runName } from "./runs-page.js";

const points = (passHatKs: Record<string, number>) =>
  Object.entries(passHatKs).map(([k, value]) => ({ k: Number(k), value, low: null, high: null }));

/** Two runs side by side: per-task pass^k differences, regressions first. */
export function ComparePage(props: { a: string; b: string }) {
  const { data: comparison, error } = useApiGet(
    `/api/compare?a=${encodeURIComponent(props.a)}&b=${encodeURIComponent(props.b)}`,
    CompareResponseSchema,
  );
  if (error)
    return (
      <p className="page error-text" role="alert">
        {error}
      </p>
    );
  if (!comparison) return <p className="page muted">Loading…</p>;
  const { a, b } = comparison;
  const ks = Array.from({ length: comparison.k }, (_, i) => i);
  const regressed = comparison.tasks.filter((t) => t.regressed).length;
  const improved = comparison.tasks.filter((t) => t.improved).length;
  return (
    <div className="page compare-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href={href({ page: "runs" })}>Runs</a> / <span>compare</span>
      </nav>
      <header className="page-head">
        <h1>
          {runName(a)} → {runName(b)}
        </h1>
        <p className="muted">
          {comparison.tasks.length} common tasks · {regressed} regressed · {improved} improved · k up to{" "}
          {comparison.k}
          {comparison.onlyInA.length + comparison.onlyInB.length > 0 &&
            ` · ${comparison.onlyInA.length} only in A, ${comparison.onlyInB.length} only in B`}
        </p>
        <p
          className={comparison.significance.distinguishable ? "significance real" : "significance"}
          data-testid="significance"
        >
          {comparison.significance.sentence}
        </p>
      </header>
      <section className="card">
        <h2>pass^k over the common tasks</h2>
        <PassKChart
          series={[
            { name: `A: ${runName(a)}`, points: points(comparison.passHatKsA) },
            { name: `B: ${runName(b)}`, points: points(comparison.passHatKsB) },
          ]}
        />
      </section>
      <section className="card">
        <h2>Per task (regressions first)</h2>
        <div className="table-scroll">
          <table className="compare-table" data-testid="compare-table">
            <thead>
              <tr>
                <th scope="col">Task</th>
                {ks.map((k) => (
                  <th key={k} scope="col">
                    pass^{k + 1} A → B
                  </th>
                ))}
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {comparison.tasks.map((task) => (
                <tr
                  key={`${task.domain}/${task.taskId}`}
                  className={task.regressed ? "regressed" : task.improved ? "improved" : ""}
                >
                  <th scope="row">{task.taskId}</th>
                  {ks.map((k) => (
                    <td key={k} className="num">
                      {formatPercent(task.before[k], 0)} → {formatPercent(task.after[k], 0)}
                    </td>
                  ))}
                  <td>{task.regressed ? "▼ regressed" : task.improved ? "▲ improved" : "="}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
