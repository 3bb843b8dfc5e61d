import { isSuccessful } from "../../../src/metrics/pass-hat-k.js";
import {
  CompareResponseSchema,
  type CompareResponse,
  type TaskComparison,
} from "../../../src/server/api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { LoadFailure } from "../components/not-found.js";
import { formatPercent, taskLabel } from "../format.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";
import { PassKChart } from "./pass-k-chart.js";
import { runName } from "./runs-page.js";
import { runCoverage, runPerturbation } from "../format.js";

const points = (passHatKs: Record<string, number>) =>
  Object.entries(passHatKs).map(([k, value]) => ({ k: Number(k), value, low: null, high: null }));

type Trial = TaskComparison["trialsA"][number];
const passes = (t: Trial) => t.reward !== null && isSuccessful(t.reward);
const fails = (t: Trial) => t.reward !== null && !isSuccessful(t.reward);

/**
 * The two trials to put side by side for a task: for a regression, a trial that passed before and one
 * that fails now (an improvement the other way round); otherwise the first trial of each.
 */
export function trialsToCompare(task: TaskComparison): { a: number; b: number } | null {
  const first = (trials: readonly Trial[], want: (t: Trial) => boolean) => trials.find(want) ?? trials[0];
  const a = task.regressed
    ? first(task.trialsA, passes)
    : task.improved
      ? first(task.trialsA, fails)
      : task.trialsA[0];
  const b = task.regressed
    ? first(task.trialsB, fails)
    : task.improved
      ? first(task.trialsB, passes)
      : task.trialsB[0];
  return a && b ? { a: a.trial, b: b.trial } : null;
}

/** Two runs side by side: per-task pass^k differences, regressions first. */
export function ComparePage(props: { a: string; b: string }) {
  const {
    data: comparison,
    error,
    code,
  } = useApiGet(`${props.a}\u0000${props.b}`, (signal) =>
    answer(
      api.compare.$get({ query: { a: props.a, b: props.b } }, cancellable(signal)),
      CompareResponseSchema,
    ),
  );
  if (error) return <LoadFailure error={error} code={code} what="Run" />;
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
          {runName(a)}
          {runPerturbation(a) && <span className="badge changed perturbed">{runPerturbation(a)}</span>}
          {runCoverage(a) && <span className="small coverage"> ({runCoverage(a)})</span>} → {runName(b)}
          {runPerturbation(b) && <span className="badge changed perturbed">{runPerturbation(b)}</span>}
          {runCoverage(b) && <span className="small coverage"> ({runCoverage(b)})</span>}
        </h1>
        <p className="muted">
          {comparison.tasks.length} common tasks · {regressed} regressed · {improved} improved · k up to{" "}
          {comparison.k}
          {comparison.onlyInA.length + comparison.onlyInB.length > 0 &&
            ` · ${comparison.onlyInA.length} only in A, ${comparison.onlyInB.length} only in B`}
        </p>
        {[a, b].flatMap((run) =>
          (run.comparability.changedTasks ?? []).map((changed) => (
            <p className="warning" data-testid="changed-tasks" key={`${run.id}/${changed.domain}`}>
              {runName(run)} was graded on {changed.taskIds.length} {changed.domain} task
              {changed.taskIds.length === 1 ? "" : "s"} that differ from this server&apos;s (
              {changed.taskIds.slice(0, 5).join(", ")}
              {changed.taskIds.length > 5 ? ", …" : ""}): the two runs are not scored on the same tasks.
            </p>
          )),
        )}
        <p
          className={comparison.significance.distinguishable ? "significance real" : "significance"}
          data-testid="significance"
        >
          {comparison.significance.sentence}
        </p>
      </header>
      {comparison.tasks.length === 0 ? (
        <section className="card" data-testid="nothing-in-common">
          <h2>Nothing to compare</h2>
          <p>
            These runs share no task: {runName(a)} ran {comparison.onlyInA.length} task
            {comparison.onlyInA.length === 1 ? "" : "s"}, {runName(b)} ran {comparison.onlyInB.length}, and
            none is in both. Compare runs of the same domain and tasks.
          </p>
        </section>
      ) : (
        <CommonTasks comparison={comparison} ks={ks} />
      )}
    </div>
  );
}

function CommonTasks(props: { comparison: CompareResponse; ks: number[] }) {
  const { comparison, ks } = props;
  const { a, b } = comparison;
  return (
    <>
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
                <th scope="col">Conversations</th>
              </tr>
            </thead>
            <tbody>
              {comparison.tasks.map((task) => (
                <tr
                  key={`${task.domain}/${task.taskId}`}
                  className={task.regressed ? "regressed" : task.improved ? "improved" : ""}
                >
                  <th scope="row" title={task.taskId}>
                    {taskLabel(task.taskId, 40)}
                  </th>
                  {ks.map((k) => (
                    <td key={k} className="num">
                      {formatPercent(task.before[k], 0)} → {formatPercent(task.after[k], 0)}
                    </td>
                  ))}
                  <td>{task.regressed ? "▼ regressed" : task.improved ? "▲ improved" : "="}</td>
                  <td>
                    {(() => {
                      const pair = trialsToCompare(task);
                      return pair ? (
                        <a
                          href={href({
                            page: "trials",
                            domain: task.domain,
                            taskId: task.taskId,
                            a: { runId: a.id, trial: pair.a },
                            b: { runId: b.id, trial: pair.b },
                          })}
                          aria-label={`Where task ${task.taskId} diverges: A trial ${pair.a} vs B trial ${pair.b}`}
                        >
                          where they diverge
                        </a>
                      ) : null;
                    })()}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
