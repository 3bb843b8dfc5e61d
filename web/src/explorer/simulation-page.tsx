import { SimulationDetailSchema } from "../../../src/server/api-schemas.js";
import { MessageList } from "../components/message-list.js";
import { DbDiffView } from "../components/record-diff.js";
import { RewardCard } from "../components/reward-card.js";
import { formatCost } from "../format.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";

export function SimulationPage(props: { runId: string; domain: string; taskId: string; trial: number }) {
  const { runId, domain, taskId, trial } = props;
  const e = encodeURIComponent;
  const { data: detail, error } = useApiGet(
    `/api/runs/${e(runId)}/simulations/${e(domain)}/${e(taskId)}/${trial}`,
    SimulationDetailSchema,
  );
  if (error)
    return (
      <p className="page error-text" role="alert">
        {error}
      </p>
    );
  if (!detail) return <p className="page muted">Loading…</p>;
  const { simulation } = detail;
  const reward = simulation.reward_info;
  return (
    <div className="page simulation-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href={href({ page: "runs" })}>Runs</a> / <a href={href({ page: "run", runId })}>run</a> /{" "}
        <span>{taskId}</span> / <span>trial {trial}</span>
      </nav>
      <header className="page-head">
        <h1>
          {taskId} · trial {trial}
        </h1>
        <p className="muted">
          {domain} · ended by {simulation.termination_reason.replace(/_/g, " ")} ·{" "}
          {simulation.messages.length} messages · {(simulation.duration ?? 0).toFixed(1)} s · agent{" "}
          {formatCost(simulation.agent_cost)} · customer {formatCost(simulation.user_cost)}
        </p>
      </header>
      <div className="simulation-layout">
        <section className="card trajectory" aria-labelledby="trajectory-title">
          <h2 id="trajectory-title">Trajectory</h2>
          <MessageList messages={simulation.messages} showToolResults />
        </section>
        <div className="simulation-side">
          {reward ? (
            <RewardCard rewardInfo={reward} failedChecks={detail.failedChecks} />
          ) : (
            <p className="card muted">This simulation has not been graded.</p>
          )}
          {detail.dbDiff ? (
            <>
              <DbDiffView diffs={detail.dbDiff.agent} title="Final database: agent's world vs gold" />
              {detail.dbDiff.user.length > 0 && (
                <DbDiffView diffs={detail.dbDiff.user} title="Customer's side: agent's world vs gold" />
              )}
              {detail.dbDiffSource === "recomputed" && (
                <p className="muted small">Diff recomputed on this server by replaying the trajectory.</p>
              )}
            </>
          ) : (
            <p className="card muted small">No predicted-vs-gold database diff for this simulation.</p>
          )}
        </div>
      </div>
    </div>
  );
}
