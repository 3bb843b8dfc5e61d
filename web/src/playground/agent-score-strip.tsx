import { AgentScoreSchema } from "../../../src/server/api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { formatDate, formatPercent, runCoverage } from "../format.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";

/**
 * How reliable the selected agent is on this domain, measured: pass^1 and pass^k with their intervals,
 * from its newest clean run there with the chosen customer model (else its newest unperturbed run,
 * labelled a scripted demo or a subset), linked to the run. Without a run, how to make one.
 */
export function AgentScoreStrip(props: { domain: string; agent: string; user: string; explorer: boolean }) {
  const { domain, agent, user } = props;
  const score = useApiGet(`${domain}\u0000${agent}\u0000${user}`, (signal) =>
    answer(
      api.domains[":domain"]["agent-score"].$get(
        { param: { domain }, query: { agent, ...(user ? { user } : {}) } },
        cancellable(signal),
      ),
      AgentScoreSchema,
    ),
  );
  if (!props.explorer || !domain || !agent) return null;
  const run = score.data?.run;
  const k = run ? Math.max(...Object.keys(run.passHatKs).map(Number)) : 0;
  const coverage = run ? runCoverage({ ...run, progress: { planned: 0 } }) : undefined;
  return (
    <div className="score-strip" data-testid="agent-score" role="status">
      <span className="score-agent">
        <code>{agent}</code> on <strong>{domain}</strong>
      </span>
      {score.error && <span className="muted">{score.error}</span>}
      {score.data && !run && (
        <span className="muted">
          not measured yet —{" "}
          <code>
            passk run --domain {domain} --agent-llm {agent} --num-trials 4
          </code>{" "}
          says how reliable it is
        </span>
      )}
      {run && (
        <>
          <span className="score">
            pass^1 <strong data-testid="agent-pass-1">{formatPercent(run.passHatKs["1"])}</strong>
            <Interval interval={run.intervals["1"]} />
          </span>
          {k > 1 && (
            <span className="score">
              pass^{k} <strong data-testid="agent-pass-k">{formatPercent(run.passHatKs[String(k)])}</strong>
              <Interval interval={run.intervals[String(k)]} />
            </span>
          )}
          <span className="muted small">
            {k > 1
              ? `all ${k} attempts at a task succeed ${formatPercent(run.passHatKs[String(k)], 0)} of the time`
              : "one trial per task"}{" "}
            · {run.tasks} tasks × {run.trials} trials
          </span>
          {run.labels.map((label) => (
            <span key={label} className="badge changed" data-testid="agent-run-label">
              {label}
            </span>
          ))}
          {coverage && (
            <span className="small coverage" data-testid="agent-coverage">
              {coverage}
            </span>
          )}
          <a href={href({ page: "run", runId: run.id })} className="score-run">
            {run.name} · {formatDate(run.date)}
          </a>
        </>
      )}
    </div>
  );
}

/** A 95% interval, in whole percents. */
function Interval(props: { interval: { low: number; high: number } | undefined }) {
  if (!props.interval) return null;
  return (
    <span className="muted small">
      {" "}
      [{formatPercent(props.interval.low, 0)}–{formatPercent(props.interval.high, 0)}]
    </span>
  );
}
