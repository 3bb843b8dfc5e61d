import {
  VoiceRunDetailSchema,
  type InteractionMetricRowView,
  type VoiceRunSummary,
} from "../../../src/server/voice-api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { NotFound } from "../components/not-found.js";
import { formatPercent, rewardColor } from "../format.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";
import { formatInterval, formatMetric, formatSeconds } from "./voice-format.js";

/** pass^1…k of a voice run with their 95% intervals over tasks. */
export function VoicePassHatK(props: { run: VoiceRunSummary }) {
  const ks = Object.keys(props.run.passHatK).sort((a, b) => Number(a) - Number(b));
  if (ks.length === 0) return <p className="muted">No task has all its trials graded yet.</p>;
  return (
    <table className="voice-metrics" data-testid="voice-pass-hat-k">
      <thead>
        <tr>
          <th scope="col">k</th>
          <th scope="col">pass^k</th>
          <th scope="col">95% interval</th>
        </tr>
      </thead>
      <tbody>
        {ks.map((k) => {
          const band = props.run.passHatKIntervals[k];
          return (
            <tr key={k}>
              <td>pass^{k}</td>
              <td className="num">{formatPercent(props.run.passHatK[k])}</td>
              <td className="num muted">
                {band ? `${formatPercent(band.low)}–${formatPercent(band.high)}` : ""}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The τ-voice interaction metrics of a run: value, 95% interval and the events behind each. */
export function InteractionPanelTable(props: { rows: readonly InteractionMetricRowView[] }) {
  return (
    <table className="voice-metrics" data-testid="interaction-panel">
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col">Value</th>
          <th scope="col">95% interval</th>
          <th scope="col">Events</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.key} data-metric={row.key}>
            <td>
              <abbr title={row.name}>{row.symbol}</abbr> <span className="muted small">{row.name}</span>
            </td>
            <td className="num">{formatMetric(row.value, row.unit)}</td>
            <td className="num muted">{formatInterval(row.interval, row.unit)}</td>
            <td className="num">{row.events}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function VoiceRunPage(props: { runId: string }) {
  const detail = useApiGet(`voice-run:${props.runId}`, (signal) =>
    answer(
      api["voice-runs"][":runId"].$get({ param: { runId: props.runId } }, cancellable(signal)),
      VoiceRunDetailSchema,
    ),
  );
  if (detail.code === "voice_run_not_found")
    return <NotFound title="No such voice run" message={detail.error ?? ""} />;
  if (detail.error)
    return (
      <p className="error-text" role="alert">
        {detail.error}
      </p>
    );
  if (!detail.data) return <p className="muted">Loading…</p>;
  const { run, calls } = detail.data;
  return (
    <div className="page voice-run-page">
      <header className="page-head">
        <p className="muted small">
          <a href={href({ page: "runs" })}>Runs</a> › voice run
        </p>
        <h1>{run.name}</h1>
        <p className="muted">
          {run.agent ?? "agent not recorded"} · {run.domain} · speech {run.speechComplexity ?? "—"} ·{" "}
          {run.simulations} calls · average reward{" "}
          {run.averageReward === null ? "—" : run.averageReward.toFixed(3)}
        </p>
      </header>
      <div className="voice-run-panels">
        <section className="card" aria-labelledby="voice-pass-title">
          <h2 id="voice-pass-title">Reliability</h2>
          <VoicePassHatK run={run} />
        </section>
        <section className="card" aria-labelledby="interaction-title">
          <h2 id="interaction-title">Interaction metrics</h2>
          {run.interaction ? (
            <InteractionPanelTable rows={run.interaction.rows} />
          ) : (
            <p className="muted">No call has ticks.</p>
          )}
          <p className="muted small">
            Rates: Wilson intervals over events; latencies: bootstrap over events (seeded).
          </p>
        </section>
      </div>
      <section className="card" aria-labelledby="voice-calls-title">
        <h2 id="voice-calls-title">Calls</h2>
        <div className="table-scroll">
          <table className="runs-table" data-testid="voice-calls">
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Trial</th>
                <th scope="col">Reward</th>
                <th scope="col">Length</th>
                <th scope="col">Ended</th>
                <th scope="col">Why it failed</th>
              </tr>
            </thead>
            <tbody>
              {calls.map((call) => (
                <tr key={call.id}>
                  <td>
                    <a href={href({ page: "voice-call", runId: run.id, callId: call.id })}>
                      task {call.taskId}
                    </a>
                  </td>
                  <td className="num">{call.trial ?? "—"}</td>
                  <td className="num" style={{ background: rewardColor(call.reward), color: "#fff" }}>
                    {call.reward === null ? "—" : call.reward.toFixed(2)}
                  </td>
                  <td className="num">{formatSeconds(call.durationSec)}</td>
                  <td>{call.terminationReason ?? "—"}</td>
                  <td className="small">{call.explanation ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
