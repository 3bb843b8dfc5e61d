import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Action } from "../../../src/core/task.js";
import { isSuccessful } from "../../../src/metrics/pass-hat-k.js";
import {
  SimulationDetailSchema,
  SimulationModelCallsResponseSchema,
  type SimulationDetail,
  type SimulationKeyView,
} from "../../../src/server/api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { MessageList, type MessageMark } from "../components/message-list.js";
import { LoadFailure } from "../components/not-found.js";
import { DbDiffView } from "../components/record-diff.js";
import { RewardCard, ReviewSummary, type DbSides } from "../components/reward-card.js";
import { ScenarioView } from "../components/scenario-view.js";
import { ValueView } from "../components/value-view.js";
import { formatCost, taskLabel } from "../format.js";
import { callsByTurn, ModelCallDisclosure, UnattachedCalls } from "./model-calls.js";
import { href, navigate, type Route } from "../router.js";
import { staticExport } from "../static-export.js";
import { useApiGet } from "../use-api-get.js";
import { SimulationNotes } from "./simulation-notes.js";

const TRAJECTORY = "turn";
/** Messages longer than this are folded (telecom transcripts run to 50 messages, some very long). */
const FOLD_LONG_AT = 600;

function simulationRoute(runId: string, key: SimulationKeyView): Route {
  return { page: "simulation", runId, domain: key.domain, taskId: key.taskId, trial: key.trial };
}

/** ←/→ (or k/j) move to the previous/next simulation of the run; with Shift, to the previous/next failing one. */
function useSimulationKeys(detail: SimulationDetail | null) {
  // The listener reads the simulation shown through a ref set before paint: a key pressed as soon as a
  // simulation appears moves from it (a listener re-attached in an effect could miss that key).
  const shown = useRef(detail);
  useLayoutEffect(() => {
    shown.current = detail;
  }, [detail]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const detail = shown.current;
      if (!detail || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      const { neighbours } = detail;
      const key = event.key.toLowerCase();
      const back = key === "arrowleft" || key === "k";
      const forward = key === "arrowright" || key === "j";
      if (!back && !forward) return;
      const to = event.shiftKey
        ? back
          ? neighbours.previousFailing
          : neighbours.nextFailing
        : back
          ? neighbours.previous
          : neighbours.next;
      if (!to) return;
      event.preventDefault();
      navigate(simulationRoute(detail.runId, to));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

function NeighbourLink(props: {
  runId: string;
  to: SimulationKeyView | null;
  label: string;
  keys: string;
  rel?: string;
}) {
  if (!props.to)
    return (
      <span className="button disabled" aria-disabled="true">
        {props.label}
      </span>
    );
  return (
    <a
      className="button"
      href={href(simulationRoute(props.runId, props.to))}
      aria-keyshortcuts={props.keys}
      title={`${taskLabel(props.to.taskId, 60)} · trial ${props.to.trial} (${props.keys})`}
      rel={props.rel}
    >
      {props.label}
    </a>
  );
}

function GoldActions(props: {
  actions: readonly Action[];
  matched: readonly boolean[];
  expected: number | null;
}) {
  if (props.actions.length === 0)
    return (
      <p className="muted small">
        The gold conversation makes no tool call: the right outcome changes nothing.
      </p>
    );
  return (
    <ol className="gold-actions" data-testid="gold-actions">
      {props.actions.map((action, i) => {
        const matched = props.matched[i];
        return (
          <li
            key={i}
            className={`${matched === false ? "unmatched" : matched ? "matched" : ""}${props.expected === i ? " expected" : ""}`}
          >
            <span className="check-mark" aria-hidden="true">
              {matched === false ? "✗" : matched ? "✓" : "·"}
            </span>
            <span className="visually-hidden">
              {matched === false ? "not done:" : matched ? "done:" : ""}
            </span>
            <span className="gold-call">
              <code>{action.name}</code> <ValueView value={action.arguments} inline={60} />
              {action.requestor === "user" && <span className="badge muted">customer</span>}
              {action.compare_args && action.compare_args.length > 0 && (
                <span className="muted small"> compares {action.compare_args.join(", ")}</span>
              )}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

export function SimulationPage(props: {
  runId: string;
  domain: string;
  taskId: string;
  trial: number;
  /** A linked turn (a message index): scrolled to and highlighted once the simulation loads. */
  turn?: number;
}) {
  const { runId, domain, taskId, trial, turn: linkedTurn } = props;
  const {
    data: detail,
    error,
    code,
  } = useApiGet(JSON.stringify([runId, domain, taskId, trial]), (signal) =>
    answer(
      api.runs[":runId"].simulations[":domain"][":taskId"][":trial"].$get(
        { param: { runId, domain, taskId, trial: String(trial) } },
        cancellable(signal),
      ),
      SimulationDetailSchema,
    ),
  );
  // The model calls behind the turns, when the run recorded them: loaded beside the simulation.
  const { data: modelCalls } = useApiGet(
    JSON.stringify(["model-calls", runId, domain, taskId, trial]),
    (signal) =>
      answer(
        api.runs[":runId"].simulations[":domain"][":taskId"][":trial"]["model-calls"].$get(
          { param: { runId, domain, taskId, trial: String(trial) } },
          cancellable(signal),
        ),
        SimulationModelCallsResponseSchema,
      ),
  );
  const callRecord = modelCalls?.record ?? null;
  const turnCalls = useMemo(() => callsByTurn(callRecord), [callRecord]);
  useSimulationKeys(detail);
  const [toolCallsOnly, setToolCallsOnly] = useState(false);
  const [foldLong, setFoldLong] = useState(true);
  const marks = useMemo(() => {
    const map = new Map<number, MessageMark>();
    const divergence = detail?.goldDivergence;
    if (divergence)
      map.set(divergence.messageIndex, {
        label: "First departure from the gold actions",
        detail: divergence.sentence,
      });
    if (linkedTurn !== undefined && detail && linkedTurn < detail.simulation.messages.length)
      map.set(linkedTurn, { label: `Linked turn ${linkedTurn}`, ...map.get(linkedTurn) });
    return map;
  }, [detail, linkedTurn]);
  useEffect(() => {
    if (detail && linkedTurn !== undefined)
      document.getElementById(`${TRAJECTORY}-${linkedTurn}`)?.scrollIntoView({ block: "center" });
  }, [detail, linkedTurn]);

  if (error) return <LoadFailure error={error} code={code} what="Simulation" />;
  if (!detail) return <p className="page muted">Loading…</p>;
  const { simulation, neighbours, goldDivergence } = detail;
  const reward = simulation.reward_info;
  const passed = reward ? isSuccessful(reward.reward) : null;
  const dbSides: DbSides | null = detail.dbDiff
    ? { agent: detail.dbDiff.agent.length > 0, user: detail.dbDiff.user.length > 0 }
    : null;
  const actions = detail.task?.evaluation_criteria?.actions ?? [];
  const otherTrials = detail.trials.filter((t) => t.trial !== trial);
  const jump = () =>
    goldDivergence &&
    document
      .getElementById(`${TRAJECTORY}-${goldDivergence.messageIndex}`)
      ?.scrollIntoView({ block: "center" });
  // A review names turns by turn_idx; the trajectory's elements are numbered by message index.
  const showTurn = (turn: number) => {
    const index = simulation.messages.findIndex((m, i) => (m.turn_idx ?? i) === turn);
    document.getElementById(`${TRAJECTORY}-${index < 0 ? turn : index}`)?.scrollIntoView({ block: "center" });
  };
  const userSide = detail.dbDiff && detail.dbDiff.user.length > 0 && (
    <DbDiffView
      diffs={detail.dbDiff.user}
      title="Customer's side (their device and account): agent's world vs gold"
      equalText="Equal to the gold one."
    />
  );
  return (
    <div className="page simulation-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href={href({ page: "runs" })}>Runs</a> /{" "}
        <a href={href({ page: "run", runId })}>{detail.runName}</a> /{" "}
        <span title={taskId}>{taskLabel(taskId, 48)}</span> / <span>trial {trial}</span>
      </nav>
      <header className="page-head">
        <h1 title={taskId}>
          {taskLabel(taskId, 60)} · trial {trial}{" "}
          {passed !== null && (
            <span className={`badge ${passed ? "added" : "removed"}`}>{passed ? "passed" : "failed"}</span>
          )}
        </h1>
        {detail.task?.description?.purpose && (
          <p className="task-purpose">{detail.task.description.purpose}</p>
        )}
        <p className="muted">
          {domain} · ended by {simulation.termination_reason.replace(/_/g, " ")} ·{" "}
          {simulation.messages.length} messages · {(simulation.duration ?? 0).toFixed(1)} s · cost: agent{" "}
          {formatCost(simulation.agent_cost)}, customer {formatCost(simulation.user_cost)}
        </p>
      </header>
      <nav className="simulation-nav" aria-label="Other simulations">
        <NeighbourLink
          runId={runId}
          to={neighbours.previous}
          label="← Previous"
          keys="ArrowLeft"
          rel="prev"
        />
        <NeighbourLink runId={runId} to={neighbours.next} label="Next →" keys="ArrowRight" rel="next" />
        <NeighbourLink
          runId={runId}
          to={neighbours.previousFailing}
          label="← Previous failing"
          keys="Shift+ArrowLeft"
        />
        <NeighbourLink
          runId={runId}
          to={neighbours.nextFailing}
          label="Next failing →"
          keys="Shift+ArrowRight"
        />
        <span className="muted small" data-testid="position">
          {neighbours.position} of {neighbours.total} · keys ← → (j k), with Shift: failing only
        </span>
      </nav>
      {detail.trials.length > 1 && (
        <nav className="trial-strip" aria-label="Trials of this task">
          <span className="muted small">Trials of this task:</span>
          {detail.trials.map((t) => (
            <a
              key={t.trial}
              className={`trial-chip${t.trial === trial ? " current" : ""}${t.reward === null ? " ungraded" : isSuccessful(t.reward) ? " pass" : " fail"}`}
              href={href({ page: "simulation", runId, domain, taskId, trial: t.trial })}
              aria-current={t.trial === trial ? "page" : undefined}
            >
              {t.trial} {t.reward === null ? "–" : isSuccessful(t.reward) ? "✓" : "✗"}
            </a>
          ))}
          {otherTrials.length > 0 && (
            <span className="compare-with">
              <span className="muted small">Where does it diverge from</span>
              {otherTrials.map((t) => (
                <a
                  key={t.trial}
                  className="link-small"
                  href={href({
                    page: "trials",
                    domain,
                    taskId,
                    a: { runId, trial },
                    b: { runId, trial: t.trial },
                  })}
                >
                  trial {t.trial}
                </a>
              ))}
            </span>
          )}
        </nav>
      )}
      <section
        className={`card verdict ${goldDivergence ? "diverged" : ""}`}
        aria-label="Where it went wrong"
        data-testid="divergence"
      >
        {goldDivergence ? (
          <>
            <p>
              <strong>
                Turn {goldDivergence.messageIndex} is where the trajectory departs from the gold actions.
              </strong>{" "}
              {goldDivergence.sentence}
            </p>
            <button type="button" onClick={jump}>
              Show turn {goldDivergence.messageIndex}
            </button>
          </>
        ) : (
          <p className="muted">
            {actions.length > 0
              ? "The trajectory does every gold action, in order."
              : "The gold conversation changes nothing, and neither does this one."}
            {passed === false && " The failure is in what was said or in the final state: see the checks."}
          </p>
        )}
      </section>
      <div className="simulation-layout">
        <section className="card trajectory" aria-labelledby="trajectory-title">
          <h2 id="trajectory-title">Trajectory</h2>
          <div className="trajectory-tools" role="group" aria-label="Trajectory view">
            <label>
              <input
                type="checkbox"
                checked={toolCallsOnly}
                onChange={(e) => setToolCallsOnly(e.target.checked)}
              />{" "}
              Tool calls only
            </label>
            <label>
              <input type="checkbox" checked={foldLong} onChange={(e) => setFoldLong(e.target.checked)} />{" "}
              Fold long messages
            </label>
          </div>
          <MessageList
            messages={simulation.messages}
            showToolResults
            marks={marks}
            idPrefix={TRAJECTORY}
            turnHref={(index) => href({ page: "simulation", runId, domain, taskId, trial, turn: index })}
            toolCallsOnly={toolCallsOnly}
            {...(foldLong ? { foldLongAt: FOLD_LONG_AT } : {})}
            {...(callRecord
              ? {
                  after: (index: number, message: { turn_idx?: number | null }) =>
                    (turnCalls.get(message.turn_idx ?? index) ?? []).map((call) => (
                      <ModelCallDisclosure key={call} record={callRecord} index={call} />
                    )),
                }
              : {})}
            {...(detail.policyLinks ? { policyLinks: detail.policyLinks } : {})}
          />
          {callRecord && <UnattachedCalls record={callRecord} indexes={turnCalls.get(null) ?? []} />}
        </section>
        <div className="simulation-side">
          {reward ? (
            <RewardCard
              rewardInfo={reward}
              failedChecks={detail.failedChecks}
              dbSides={dbSides}
              review={detail.review ?? null}
              onShowTurn={showTurn}
            />
          ) : (
            <section className="card">
              <p className="muted">This simulation has not been graded.</p>
              {detail.review && <ReviewSummary review={detail.review} onShowTurn={showTurn} />}
            </section>
          )}
          <SimulationNotes runId={detail.runId} domain={domain} taskId={taskId} trial={trial} />
          {detail.dbDiff ? (
            <>
              {userSide}
              <DbDiffView
                diffs={detail.dbDiff.agent}
                title="Agent's database: agent's world vs gold"
                equalText={
                  dbSides?.user
                    ? "Equal to the gold one: the difference is on the customer's side (above)."
                    : "No differences: the final database equals the gold one."
                }
              />
              {detail.dbDiffSource === "recomputed" && (
                <p className="muted small">
                  Diff recomputed {staticExport ? "when the run was exported" : "on this server"} by replaying
                  the trajectory.
                </p>
              )}
            </>
          ) : (
            <p className="card muted small">No predicted-vs-gold database diff for this simulation.</p>
          )}
          {detail.task && (
            <section className="card" aria-labelledby="gold-title">
              <h3 id="gold-title">Gold actions ({actions.length})</h3>
              <GoldActions
                actions={actions}
                matched={detail.goldMatched}
                expected={goldDivergence?.expectedAction ?? null}
              />
            </section>
          )}
          {detail.task && (
            <details className="card scenario-card" open>
              <summary>
                <h3>The customer's scenario</h3>
              </summary>
              <ScenarioView task={detail.task} />
            </details>
          )}
        </div>
      </div>
    </div>
  );
}
