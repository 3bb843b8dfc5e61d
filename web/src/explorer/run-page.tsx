import { useVirtualizer } from "@tanstack/react-virtual";
import { z } from "zod";
import { useMemo, useRef } from "react";
import { isSuccessful } from "../../../src/metrics/pass-hat-k.js";
import { wilsonInterval } from "../../../src/metrics/statistics.js";
import {
  RunDetailSchema,
  type GridCell,
  type GridRow,
  type RunDetail,
} from "../../../src/server/api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { EChart, type ChartOption } from "../components/echart.js";
import { LoadFailure } from "../components/not-found.js";
import { formatCost, formatDate, formatPercent, rewardColor, runCoverage, taskLabel } from "../format.js";
import { href } from "../router.js";
import { staticExport } from "../static-export.js";
import { useApiGet } from "../use-api-get.js";
import { useSessionState } from "../use-session-state.js";
import { PassKChart } from "./pass-k-chart.js";
import { RobustnessCard } from "./robustness-card.js";
import { RunSearch } from "./run-search.js";
import { RunProgressLine, RunStatusBadge, pollEvery } from "./run-progress.js";
import { runName } from "./runs-page.js";
import { ComparabilityBadge } from "../components/comparability-badge.js";
import { culpritWords } from "../components/reward-card.js";

function TerminationChart(props: { reasons: Record<string, number> }) {
  const option = useMemo((): ChartOption => {
    const entries = Object.entries(props.reasons).sort((a, b) => b[1] - a[1]);
    return {
      animation: false,
      grid: { left: 130, right: 24, top: 8, bottom: 24 },
      tooltip: { trigger: "axis" },
      xAxis: { type: "value", minInterval: 1 },
      yAxis: { type: "category", data: entries.map(([r]) => r.replace(/_/g, " ")), inverse: true },
      series: [{ type: "bar", data: entries.map(([, n]) => n), color: "#64748b", barMaxWidth: 22 }],
    };
  }, [props.reasons]);
  const summary = Object.entries(props.reasons)
    .map(([r, n]) => `${r}: ${n}`)
    .join(", ");
  return (
    <EChart
      option={option}
      height={Math.max(90, Object.keys(props.reasons).length * 30 + 40)}
      summary={`Termination reasons. ${summary}`}
    />
  );
}

function CostChart(props: { detail: RunDetail }) {
  const { costs } = props.detail;
  const option = useMemo(
    (): ChartOption => ({
      animation: false,
      grid: { left: 130, right: 24, top: 8, bottom: 24 },
      tooltip: {
        trigger: "axis",
        valueFormatter: (v: unknown) => formatCost(typeof v === "number" ? v : null),
      },
      xAxis: { type: "value" },
      yAxis: { type: "category", data: ["agent (total)", "customer (total)"], inverse: true },
      series: [
        {
          type: "bar",
          data: [costs.totalAgentCost ?? 0, costs.totalUserCost ?? 0],
          color: "#0891b2",
          barMaxWidth: 22,
        },
      ],
    }),
    [costs],
  );
  return (
    <>
      <EChart
        option={option}
        height={110}
        summary={`Cost: agent ${formatCost(costs.totalAgentCost)}, customer ${formatCost(costs.totalUserCost)}`}
      />
      <p className="muted small">
        Per simulation: agent {formatCost(costs.avgAgentCost)}, customer {formatCost(costs.avgUserCost)}
        {(costs.totalAgentCost === null || costs.totalUserCost === null) && " · some prices were unknown"}
      </p>
    </>
  );
}

/** The task × trial grid, virtualised by row so runs of thousands of simulations stay quick. */
function Grid(props: { runId: string; rows: readonly GridRow[]; maxTrials: number; filter: string | null }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: props.rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 44,
    overscan: 10,
  });
  return (
    <div className="grid-wrap">
      <div className="grid-head" aria-hidden="true">
        <span className="grid-task">task</span>
        <span className="grid-score">passed</span>
        <span className="grid-cells">
          {Array.from({ length: props.maxTrials }, (_, i) => (
            <span key={i} className="grid-trial">
              {i}
            </span>
          ))}
        </span>
      </div>
      <div
        ref={scroller}
        className="grid-scroll"
        data-testid="run-grid"
        role="table"
        aria-label="Rewards by task and trial"
        aria-rowcount={props.rows.length}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = props.rows[item.index]!;
            return (
              <div
                key={`${row.domain}/${row.taskId}`}
                role="row"
                aria-rowindex={item.index + 1}
                className="grid-row"
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  right: 0,
                  height: item.size,
                  transform: `translateY(${item.start}px)`,
                }}
              >
                <span
                  role="rowheader"
                  className="grid-task"
                  title={`${row.taskId}${row.title ? `\n${row.title}` : ""}`}
                >
                  <span className="grid-task-id">{taskLabel(row.taskId, 44)}</span>
                  {row.defects && (
                    <span className="badge task-defect" title={row.defects.join("\n")}>
                      task defect
                    </span>
                  )}
                  {row.title && <span className="grid-task-title">{row.title}</span>}
                </span>
                <span role="cell" className="grid-score" title={stabilityOf(row)}>
                  {graded(row) === 0 ? (
                    <span className="muted">not graded</span>
                  ) : (
                    <>
                      {row.successes}/{graded(row)}
                      {graded(row) < row.cells.length && (
                        <span className="muted small"> ({row.cells.length - graded(row)} not graded)</span>
                      )}
                    </>
                  )}
                  {isFlaky(row) && <span className="badge changed flaky">flaky</span>}
                </span>
                <span role="cell" className="grid-cells">
                  {row.cells.map((cell) => {
                    const dim = props.filter !== null && !cellMatches(cell, props.filter);
                    const label = `task ${row.taskId} trial ${cell.trial}: ${cell.reward === null ? cell.terminationReason : `reward ${cell.reward}`}${cell.failedKinds.length ? `, failed ${cell.failedKinds.join(", ")}` : ""}${cell.blame ? `; ${cell.blame.culprit === "undetermined" ? "cause undetermined" : `caused by ${culpritWords(cell.blame.culprit)}`}: ${cell.blame.reason}` : ""}${cell.taskIssue ? "; flagged as a task issue" : cell.notes ? `; ${cell.notes} note${cell.notes === 1 ? "" : "s"}` : ""}`;
                    return (
                      <a
                        key={cell.trial}
                        className={`grid-cell${dim ? " dim" : ""}`}
                        style={{ background: rewardColor(cell.reward) }}
                        href={href({
                          page: "simulation",
                          runId: props.runId,
                          domain: row.domain,
                          taskId: row.taskId,
                          trial: cell.trial,
                        })}
                        aria-label={label}
                        title={label}
                        data-reward={cell.reward ?? ""}
                        data-culprit={cell.blame?.culprit ?? ""}
                        data-task-issue={cell.taskIssue ? "true" : undefined}
                      >
                        {cell.reward === null ? "–" : isSuccessful(cell.reward) ? "✓" : "✗"}
                        {cell.taskIssue && (
                          <span className="task-issue-mark" aria-hidden="true">
                            ⚑
                          </span>
                        )}
                      </a>
                    );
                  })}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

type SortOrder = "failing" | "id" | "flaky";

const SORT_LABELS: Record<SortOrder, string> = {
  failing: "failing first",
  id: "by task id",
  flaky: "flakiest first",
};

/** Task ids in their natural order: `2` before `10`, telecom's names alphabetically. */
const byId = (a: GridRow, b: GridRow) =>
  a.domain.localeCompare(b.domain) || a.taskId.localeCompare(b.taskId, undefined, { numeric: true });

/** Success rate over graded trials (1 when none was graded: nothing to look at). */
const successRate = (row: GridRow) => {
  const n = graded(row);
  return n === 0 ? 1 : row.successes / n;
};

/** How much a task's outcome depends on luck: p(1 − p), highest at half its trials passing. */
const flakiness = (row: GridRow) => {
  const p = successRate(row);
  return p * (1 - p);
};

export function sortRows(rows: readonly GridRow[], order: SortOrder): GridRow[] {
  const sorted = [...rows];
  if (order === "id") return sorted.sort(byId);
  if (order === "failing") return sorted.sort((a, b) => successRate(a) - successRate(b) || byId(a, b));
  return sorted.sort((a, b) => flakiness(b) - flakiness(a) || successRate(a) - successRate(b) || byId(a, b));
}

export function RunPage(props: { runId: string }) {
  const { runId } = props;
  const {
    data: detail,
    error,
    code,
    refreshError,
  } = useApiGet(
    `run\u0000${runId}`,
    (signal) => answer(api.runs[":runId"].$get({ param: { runId } }, cancellable(signal)), RunDetailSchema),
    // A static export shows the run as it was exported: nothing to ask again.
    staticExport ? {} : { pollEvery: (data) => pollEvery([data.run]) },
  );
  // Kept for the tab: Back from a simulation finds the grid filtered and sorted as it was left.
  const [keptFilter, setFilter] = useSessionState(`passk:run:${runId}:filter`, z.string().nullable(), null);
  // The task-issue filter lapses once no note flags one (its button is gone, so nothing could clear it).
  const filter = keptFilter === TASK_ISSUE_FILTER && !detail?.taskIssues ? null : keptFilter;
  const [search, setSearch] = useSessionState(`passk:run:${runId}:search`, z.string(), "");
  const [order, setOrder] = useSessionState<SortOrder>(
    `passk:run:${runId}:order`,
    z.enum(["failing", "id", "flaky"]),
    "failing",
  );
  const rows = useMemo(() => {
    if (!detail) return [];
    const needle = search.trim().toLowerCase();
    return sortRows(
      detail.grid.filter(
        (row) =>
          (filter === null || row.cells.some((c) => cellMatches(c, filter))) &&
          (needle === "" ||
            row.taskId.toLowerCase().includes(needle) ||
            (row.title ?? "").toLowerCase().includes(needle)),
      ),
      order,
    );
  }, [detail, filter, search, order]);

  if (error) return <LoadFailure error={error} code={code} what="Run" />;
  if (!detail) return <p className="page muted">Loading…</p>;
  const { run } = detail;
  const coverage = runCoverage(run);
  return (
    <div className="page run-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href={href({ page: "runs" })}>Runs</a> / <span>{runName(run)}</span>
      </nav>
      <header className="page-head">
        <h1>
          {runName(run)} {run.status !== "imported" && <RunStatusBadge run={run} />}
        </h1>
        <p className="muted">
          {run.model ?? "unknown model"} · {run.domains.join(", ")} · {run.tasks} tasks × {run.trials} trials
          ({run.simulations} simulations) · {formatCost(run.totalCost)} · {formatDate(run.date)}
        </p>
        {coverage && (
          <p className="coverage-note" role="note">
            Scores cover only part of this run: {coverage} conversations; the others were not graded
            (infrastructure errors or not run).
          </p>
        )}
        <p>
          <ComparabilityBadge comparability={run.comparability} detailed />
        </p>
        {run.status !== "imported" && <RunProgressLine run={run} />}
        {refreshError && (
          <p className="muted small" role="status">
            Live updates paused: {refreshError}. Trying again…
          </p>
        )}
      </header>
      <div className="stats">
        {headlinePassHatK(detail.passHatK).map((p) => (
          <div key={p.k} className="stat">
            <span className="stat-label">pass^{p.k}</span>
            <span className="stat-value">{formatPercent(p.value)}</span>
            {p.low !== null && p.high !== null && (
              <span className="muted small">
                {formatPercent(p.low, 0)}–{formatPercent(p.high, 0)}
              </span>
            )}
            {coverage && <span className="small coverage">{coverage}</span>}
          </div>
        ))}
        <div className="stat">
          <span className="stat-label">avg reward</span>
          <span className="stat-value">{run.avgReward.toFixed(3)}</span>
          {coverage && <span className="small coverage">{coverage}</span>}
        </div>
        {detail.infraErrors > 0 && (
          <div className="stat">
            <span className="stat-label">infrastructure errors</span>
            <span className="stat-value">{detail.infraErrors}</span>
            <span className="muted small">not scored</span>
          </div>
        )}
      </div>
      <div className="charts">
        <section className="card">
          <h2>pass^k (95% bootstrap band)</h2>
          <PassKChart series={[{ name: runName(run), points: detail.passHatK }]} />
        </section>
        <section className="card">
          <h2>Termination reasons</h2>
          <TerminationChart reasons={detail.terminationReasons} />
          <h2>Cost</h2>
          <CostChart detail={detail} />
          <h2>Who caused the failures</h2>
          {detail.blame && detail.blame.length > 0 ? (
            <ul className="blame" aria-label="Failures by culprit">
              {detail.blame.map(({ culprit, count }) => (
                <li key={culprit}>
                  {culpritWords(culprit)} <span className="count">{count}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">
              Not reviewed: <code>passk review {run.id}</code> says who caused each failure.
            </p>
          )}
        </section>
      </div>
      {detail.robustness && detail.robustness.length > 0 && <RobustnessCard rows={detail.robustness} />}
      <RunSearch runId={run.id} />
      <section className="card">
        <header className="card-head">
          <h2>Tasks × trials</h2>
          <div className="filters" role="group" aria-label="Filter by failing check">
            <button type="button" aria-pressed={filter === null} onClick={() => setFilter(null)}>
              All tasks
            </button>
            {detail.failedCheckKinds.map(({ kind, count }) => (
              <button
                key={kind}
                type="button"
                aria-pressed={filter === kind}
                onClick={() => setFilter(filter === kind ? null : kind)}
              >
                {kind} failed <span className="count">{count}</span>
              </button>
            ))}
            {(detail.taskIssues ?? 0) > 0 && (
              <button
                type="button"
                aria-pressed={filter === TASK_ISSUE_FILTER}
                onClick={() => setFilter(filter === TASK_ISSUE_FILTER ? null : TASK_ISSUE_FILTER)}
              >
                ⚑ task issues <span className="count">{detail.taskIssues}</span>
              </button>
            )}
            <label className="visually-hidden" htmlFor="grid-search">
              Search tasks
            </label>
            <input
              id="grid-search"
              type="search"
              placeholder="Search tasks…"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
            />
            <label className="sort" htmlFor="grid-sort">
              Sort
              <select id="grid-sort" value={order} onChange={(e) => setOrder(e.target.value as SortOrder)}>
                {(Object.keys(SORT_LABELS) as SortOrder[]).map((o) => (
                  <option key={o} value={o}>
                    {SORT_LABELS[o]}
                  </option>
                ))}
              </select>
            </label>
          </div>
        </header>
        <p className="muted small" role="status">
          {rows.length} of {detail.grid.length} tasks
          {filter === TASK_ISSUE_FILTER
            ? " with a simulation flagged as a task issue"
            : filter
              ? ` with a ${filter} failure`
              : ""}
          . Click a cell to open the simulation.
        </p>
        <Grid runId={run.id} rows={rows} maxTrials={detail.maxTrials} filter={filter} />
      </section>
    </div>
  );
}

/** The pass^k figures in the page's headline: all of them up to four trials, else 1, 2, 3 and the last k. */
function headlinePassHatK<T extends { k: number }>(points: readonly T[]): readonly T[] {
  return points.length <= 4 ? points : [...points.slice(0, 3), points[points.length - 1]!];
}

/** The grid's filter that keeps the simulations a note flags as a task issue (check kinds are upper case). */
const TASK_ISSUE_FILTER = "task issue";

/** A cell the filter keeps: one whose failed checks include its kind, or flagged as a task issue. */
function cellMatches(cell: GridCell, filter: string): boolean {
  return filter === TASK_ISSUE_FILTER ? cell.taskIssue === true : cell.failedKinds.includes(filter);
}

/** Graded trials of a task (infrastructure errors are not). */
const graded = (row: GridRow) => row.cells.filter((c) => c.reward !== null).length;

/** A task that passes in some trials and fails in others. */
function isFlaky(row: GridRow): boolean {
  return row.successes > 0 && row.successes < graded(row);
}

/** The task's success rate with its Wilson interval, as a tooltip. */
function stabilityOf(row: GridRow): string {
  const n = graded(row);
  if (n === 0) return "no graded trial";
  const { low, high } = wilsonInterval(row.successes, n);
  return `success ${row.successes}/${n} (95% Wilson interval ${low.toFixed(2)}–${high.toFixed(2)})`;
}
