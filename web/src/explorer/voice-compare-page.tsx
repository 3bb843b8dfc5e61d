import { VoiceRunDetailSchema, type VoiceRunSummary } from "../../../src/server/voice-api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { formatPercent } from "../format.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";
import { formatInterval, formatMetric } from "./voice-format.js";

interface Row {
  key: string;
  label: string;
  a: { value: number | null; interval: { low: number; high: number } | null };
  b: { value: number | null; interval: { low: number; high: number } | null };
  format: (v: number | null) => string;
  formatBand: (i: { low: number; high: number } | null) => string;
  better: "higher" | "lower";
}

/** pass^k, then each interaction metric, for two runs. */
function rows(a: VoiceRunSummary, b: VoiceRunSummary): Row[] {
  const ks = [...new Set([...Object.keys(a.passHatK), ...Object.keys(b.passHatK)])].sort(
    (x, y) => Number(x) - Number(y),
  );
  const percent = (v: number | null) => formatPercent(v);
  const passRows: Row[] = ks.map((k) => ({
    key: `pass^${k}`,
    label: `pass^${k}`,
    a: { value: a.passHatK[k] ?? null, interval: a.passHatKIntervals[k] ?? null },
    b: { value: b.passHatK[k] ?? null, interval: b.passHatKIntervals[k] ?? null },
    format: percent,
    formatBand: (i) => formatInterval(i, "rate"),
    better: "higher",
  }));
  const metricRows: Row[] = (a.interaction?.rows ?? b.interaction?.rows ?? []).map((row) => {
    const other = (run: VoiceRunSummary) => run.interaction?.rows.find((r) => r.key === row.key);
    const of = (run: VoiceRunSummary) => ({
      value: other(run)?.value ?? null,
      interval: other(run)?.interval ?? null,
    });
    return {
      key: row.key,
      label: `${row.symbol} ${row.name}`,
      a: of(a),
      b: of(b),
      format: (v) => formatMetric(v, row.unit),
      formatBand: (i) => formatInterval(i, row.unit),
      better: row.better,
    };
  });
  return [...passRows, ...metricRows];
}

/** The difference b − a in words: which way it goes, and whether the 95% intervals keep apart. */
function verdict(row: Row): { text: string; tone: "good" | "bad" | "" } {
  const { a, b } = row;
  if (a.value === null || b.value === null) return { text: "—", tone: "" };
  if (Math.abs(b.value - a.value) < 1e-9) return { text: "same", tone: "" };
  const better = row.better === "higher" ? b.value > a.value : b.value < a.value;
  const apart =
    a.interval !== null &&
    b.interval !== null &&
    (a.interval.high < b.interval.low || b.interval.high < a.interval.low);
  return {
    text: `${better ? "better" : "worse"} in B${apart ? " (intervals apart)" : " (intervals overlap)"}`,
    tone: apart ? (better ? "good" : "bad") : "",
  };
}

export function VoiceComparePage(props: { a: string; b: string }) {
  const load = (runId: string) => (signal: AbortSignal) =>
    answer(api["voice-runs"][":runId"].$get({ param: { runId } }, cancellable(signal)), VoiceRunDetailSchema);
  const a = useApiGet(`voice-run:${props.a}`, load(props.a));
  const b = useApiGet(`voice-run:${props.b}`, load(props.b));
  const error = a.error ?? b.error;
  if (error)
    return (
      <p className="error-text" role="alert">
        {error}
      </p>
    );
  if (!a.data || !b.data) return <p className="muted">Loading…</p>;
  const runA = a.data.run;
  const runB = b.data.run;
  return (
    <div className="page voice-compare-page">
      <header className="page-head">
        <p className="muted small">
          <a href={href({ page: "runs" })}>Runs</a> › compare voice runs
        </p>
        <h1>
          {runA.name} vs {runB.name}
        </h1>
        <p className="muted">
          A: {runA.agent ?? "—"} · speech {runA.speechComplexity ?? "—"} · {runA.simulations} calls — B:{" "}
          {runB.agent ?? "—"} · speech {runB.speechComplexity ?? "—"} · {runB.simulations} calls
        </p>
      </header>
      <section className="card">
        <div className="table-scroll">
          <table className="voice-metrics" data-testid="voice-compare">
            <thead>
              <tr>
                <th scope="col">Metric</th>
                <th scope="col">
                  A <a href={href({ page: "voice-run", runId: runA.id })}>{runA.name}</a>
                </th>
                <th scope="col">
                  B <a href={href({ page: "voice-run", runId: runB.id })}>{runB.name}</a>
                </th>
                <th scope="col">B vs A</th>
              </tr>
            </thead>
            <tbody>
              {rows(runA, runB).map((row) => {
                const v = verdict(row);
                return (
                  <tr key={row.key} data-metric={row.key}>
                    <td>{row.label}</td>
                    <td className="num">
                      {row.format(row.a.value)}{" "}
                      <span className="muted small voice-band">{row.formatBand(row.a.interval)}</span>
                    </td>
                    <td className="num">
                      {row.format(row.b.value)}{" "}
                      <span className="muted small voice-band">{row.formatBand(row.b.interval)}</span>
                    </td>
                    <td
                      className={
                        v.tone === "good" ? "voice-better" : v.tone === "bad" ? "error-text" : "muted"
                      }
                    >
                      {v.text}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <p className="muted small">
          95% intervals: pass^k bootstrap over tasks; rates Wilson over events; latencies bootstrap over
          events.
        </p>
      </section>
    </div>
  );
}
