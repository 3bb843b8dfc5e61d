import { useState } from "react";
import { VoiceRunListSchema } from "../../../src/server/voice-api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { PassKSparkline } from "../components/sparkline.js";
import { formatDate, formatPercent } from "../format.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";
import { formatMetric } from "./voice-format.js";

/** The voice runs the server reads from folders (`passk serve --voice-runs`); nothing when it has none. */
export function VoiceRunsSection() {
  const runs = useApiGet("voice-runs", (signal) =>
    answer(api["voice-runs"].$get({}, cancellable(signal)), VoiceRunListSchema),
  );
  const [selected, setSelected] = useState<string[]>([]);
  const list = runs.data?.runs ?? [];
  if (list.length === 0 && (runs.data?.problems.length ?? 0) === 0) return null;
  const toggle = (id: string) =>
    setSelected((current) => (current.includes(id) ? current.filter((x) => x !== id) : [...current, id]));
  return (
    <section className="card" aria-labelledby="voice-runs-title" data-testid="voice-runs">
      <header className="card-head">
        <h2 id="voice-runs-title">Voice runs</h2>
        {selected.length === 2 && (
          <a className="button" href={href({ page: "voice-compare", a: selected[0]!, b: selected[1]! })}>
            Compare these two
          </a>
        )}
      </header>
      {runs.data?.problems.map((problem) => (
        <p key={problem} className="muted small">
          {problem}
        </p>
      ))}
      <div className="table-scroll">
        <table className="runs-table">
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">select</span>
              </th>
              <th scope="col">Run</th>
              <th scope="col">Agent</th>
              <th scope="col">Domain</th>
              <th scope="col">Speech</th>
              <th scope="col">Calls</th>
              <th scope="col">pass^1</th>
              <th scope="col">pass^1…k</th>
              <th scope="col" title="Response rate: caller turns the agent answered">
                R_R
              </th>
              <th scope="col" title="Mean response latency">
                L_R
              </th>
              <th scope="col">Date</th>
            </tr>
          </thead>
          <tbody>
            {list.map((run) => {
              const metric = (key: string) => run.interaction?.rows.find((r) => r.key === key);
              const rate = metric("response_rate");
              const latency = metric("response_latency_mean");
              return (
                <tr key={run.id} data-voice-run-id={run.id}>
                  <td className="select-cell">
                    <input
                      type="checkbox"
                      aria-label={`select ${run.name}`}
                      checked={selected.includes(run.id)}
                      onChange={() => toggle(run.id)}
                    />
                  </td>
                  <td className="name-cell">
                    <a href={href({ page: "voice-run", runId: run.id })}>{run.name}</a>
                  </td>
                  <td data-label="Agent">{run.agent ?? "—"}</td>
                  <td data-label="Domain">{run.domain}</td>
                  <td data-label="Speech">{run.speechComplexity ?? "—"}</td>
                  <td className="num" data-label="Calls">
                    {run.simulations}
                  </td>
                  <td className="num" data-label="pass^1">
                    {formatPercent(run.passHatK["1"])}
                  </td>
                  <td data-label="pass^1…k">
                    <PassKSparkline passHatKs={run.passHatK} />
                  </td>
                  <td className="num" data-label="R_R">
                    {rate ? formatMetric(rate.value, rate.unit) : "—"}
                  </td>
                  <td className="num" data-label="L_R">
                    {latency ? formatMetric(latency.value, latency.unit) : "—"}
                  </td>
                  <td data-label="Date">{formatDate(run.timestamp)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
