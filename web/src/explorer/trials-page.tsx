import { useEffect, useMemo } from "react";
import { isSuccessful } from "../../../src/metrics/pass-hat-k.js";
import { SimulationDetailSchema, type SimulationDetail } from "../../../src/server/api-schemas.js";
import { firstDivergence } from "../../../src/metrics/trial-divergence.js";
import { answer, api, cancellable } from "../api.js";
import { MessageList } from "../components/message-list.js";
import { LoadFailure } from "../components/not-found.js";
import { taskLabel } from "../format.js";
import { href, type Route } from "../router.js";
import { useApiGet } from "../use-api-get.js";

type TrialsRoute = Extract<Route, { page: "trials" }>;

function load(route: TrialsRoute, side: "a" | "b", signal: AbortSignal): Promise<SimulationDetail> {
  const { runId, trial } = route[side];
  return answer(
    api.runs[":runId"].simulations[":domain"][":taskId"][":trial"].$get(
      { param: { runId, domain: route.domain, taskId: route.taskId, trial: String(trial) } },
      cancellable(signal),
    ),
    SimulationDetailSchema,
  );
}

function Side(props: {
  detail: SimulationDetail;
  title: string;
  idPrefix: string;
  at: number | null;
  label: string;
}) {
  const { detail } = props;
  const reward = detail.simulation.reward_info?.reward ?? null;
  const marks = useMemo(
    () => new Map(props.at === null ? [] : [[props.at, { label: props.label }]]),
    [props.at, props.label],
  );
  return (
    <section className="card trajectory" aria-label={props.title}>
      <h2>
        {props.title}{" "}
        {reward !== null && (
          <span className={`badge ${isSuccessful(reward) ? "added" : "removed"}`}>
            reward {reward.toFixed(2)}
          </span>
        )}
      </h2>
      <p className="muted small">
        <a
          href={href({
            page: "simulation",
            runId: detail.runId,
            domain: detail.domain,
            taskId: detail.simulation.task_id,
            trial: detail.trial,
          })}
        >
          {detail.runName} · trial {detail.trial}
        </a>{" "}
        · ended by {detail.simulation.termination_reason.replace(/_/g, " ")}
      </p>
      {/* Numbered as on the simulation page (turns from 0), each linking to that turn there. */}
      <MessageList
        messages={detail.simulation.messages}
        showToolResults
        marks={marks}
        idPrefix={props.idPrefix}
        turnHref={(turn) =>
          href({
            page: "simulation",
            runId: detail.runId,
            domain: detail.domain,
            taskId: detail.simulation.task_id,
            trial: detail.trial,
            turn,
          })
        }
      />
    </section>
  );
}

/** Two conversations of one task side by side (two trials, or one trial of each of two runs), where they first part ways marked. */
export function TrialsPage(props: { route: TrialsRoute }) {
  const { route } = props;
  const a = useApiGet(`${href(route)}#a`, (signal) => load(route, "a", signal));
  const b = useApiGet(`${href(route)}#b`, (signal) => load(route, "b", signal));
  const divergence = useMemo(
    () => (a.data && b.data ? firstDivergence(a.data.simulation.messages, b.data.simulation.messages) : null),
    [a.data, b.data],
  );
  useEffect(() => {
    if (!divergence) return;
    document.getElementById(`left-${divergence.a}`)?.scrollIntoView({ block: "center" });
    document.getElementById(`right-${divergence.b}`)?.scrollIntoView({ block: "center" });
  }, [divergence]);
  const failed = a.error ? a : b.error ? b : null;
  if (failed?.error) return <LoadFailure error={failed.error} code={failed.code} what="Simulation" />;
  if (!a.data || !b.data) return <p className="page muted">Loading…</p>;
  const sameRun = route.a.runId === route.b.runId;
  const name = (d: SimulationDetail) => (sameRun ? `Trial ${d.trial}` : `${d.runName} · trial ${d.trial}`);
  return (
    <div className="page trials-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href={href({ page: "runs" })}>Runs</a> /{" "}
        {sameRun ? (
          <a href={href({ page: "run", runId: route.a.runId })}>{a.data.runName}</a>
        ) : (
          <a href={href({ page: "compare", a: route.a.runId, b: route.b.runId })}>
            {a.data.runName} → {b.data.runName}
          </a>
        )}{" "}
        / <span title={route.taskId}>{taskLabel(route.taskId, 48)}</span>
      </nav>
      <header className="page-head">
        <h1 title={route.taskId}>
          {taskLabel(route.taskId, 60)}: {name(a.data)} vs {name(b.data)}
        </h1>
      </header>
      <section className={`card verdict${divergence ? " diverged" : ""}`} data-testid="trial-divergence">
        {divergence ? (
          <p>
            <strong>
              They part ways at turn {divergence.a}
              {divergence.b !== divergence.a ? ` (turn ${divergence.b} of the second)` : ""}.
            </strong>{" "}
            {divergence.sentence}
          </p>
        ) : (
          <p className="muted">The two conversations are the same.</p>
        )}
      </section>
      <div className="trials-layout">
        <Side
          detail={a.data}
          title={name(a.data)}
          idPrefix="left"
          at={divergence?.a ?? null}
          label="They part ways here"
        />
        <Side
          detail={b.data}
          title={name(b.data)}
          idPrefix="right"
          at={divergence?.b ?? null}
          label="They part ways here"
        />
      </div>
    </div>
  );
}
