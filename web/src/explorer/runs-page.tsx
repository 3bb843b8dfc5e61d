import { useCallback, useEffect, useState, type ChangeEvent } from "react";
import {
  ImportResponseSchema,
  RunDetailSchema,
  RunListSchema,
  type RunSummary,
} from "../../../src/server/api-schemas.js";
import { ApiRequestError, describeError, getJson } from "../api.js";
import { formatCost, formatDate, formatPercent } from "../format.js";
import { href } from "../router.js";
import { PassKChart, type PassKSeries } from "./pass-k-chart.js";
import { ComparabilityBadge } from "../components/comparability-badge.js";

export function runName(run: RunSummary): string {
  return run.label ?? run.model ?? run.id;
}

async function uploadResults(file: File): Promise<RunSummary> {
  const response = await fetch(`/api/runs/import?name=${encodeURIComponent(file.name)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: await file.text(),
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = body as { code?: string; message?: string } | null;
    throw new ApiRequestError(
      response.status,
      error?.code ?? "http_error",
      error?.message ?? `upload failed (${response.status})`,
    );
  }
  return ImportResponseSchema.parse(body).run;
}

export function RunsPage() {
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [chart, setChart] = useState<PassKSeries[]>([]);

  const load = useCallback(() => {
    getJson("/api/runs", RunListSchema)
      .then((list) => {
        setRuns(list.runs);
        setError(null);
      })
      .catch((e: unknown) => setError(describeError(e)));
  }, []);
  useEffect(load, [load]);

  useEffect(() => {
    const abort = new AbortController();
    Promise.all(
      selected.map((id) => getJson(`/api/runs/${encodeURIComponent(id)}`, RunDetailSchema, abort.signal)),
    )
      .then((details) => setChart(details.map((d) => ({ name: runName(d.run), points: d.passHatK }))))
      .catch(() => {});
    return () => abort.abort();
  }, [selected]);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    setUploading(true);
    setNotice(null);
    setError(null);
    try {
      const run = await uploadResults(file);
      setNotice(`Imported ${file.name}: ${run.simulations} simulations over ${run.tasks} tasks.`);
      load();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setUploading(false);
    }
  };

  const toggle = (id: string) =>
    setSelected((current) => (current.includes(id) ? current.filter((x) => x !== id) : [...current, id]));
  const maxK = Math.max(0, ...(runs ?? []).map((r) => Object.keys(r.passHatKs).length));
  // Every k up to the most trials of a run (the table scrolls sideways on narrow screens).
  const ks = Array.from({ length: maxK }, (_, i) => String(i + 1));

  return (
    <div className="page runs-page">
      <header className="page-head">
        <h1>Runs</h1>
        <label className="button upload">
          {uploading ? "Importing…" : "Import a results file"}
          <input
            type="file"
            accept=".json,application/json"
            onChange={(e) => void onFile(e)}
            disabled={uploading}
            data-testid="upload"
          />
        </label>
      </header>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {runs && runs.length === 0 && (
        <p className="muted">No runs yet. Import a τ²-bench results file, or run `passk run`.</p>
      )}
      {runs && runs.length > 0 && (
        <div className="table-scroll">
          <table className="runs-table">
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">select</span>
                </th>
                <th scope="col">Run</th>
                <th scope="col" className="wide-only">
                  Model
                </th>
                <th scope="col" className="wide-only">
                  Domain
                </th>
                <th scope="col">Tasks × trials</th>
                {ks.map((k) => (
                  <th key={k} scope="col">
                    pass^{k}
                  </th>
                ))}
                <th scope="col" className="wide-only">
                  Cost
                </th>
                <th scope="col" className="wide-only">
                  Date
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`select ${runName(run)}`}
                      checked={selected.includes(run.id)}
                      onChange={() => toggle(run.id)}
                    />
                  </td>
                  <td>
                    <a href={href({ page: "run", runId: run.id })}>{runName(run)}</a>{" "}
                    <ComparabilityBadge comparability={run.comparability} />
                  </td>
                  <td className="wide-only">{run.model ?? "—"}</td>
                  <td className="wide-only">{run.domains.join(", ")}</td>
                  <td>
                    {run.tasks} × {run.trials}
                  </td>
                  {ks.map((k) => (
                    <td key={k} className="num">
                      {formatPercent(run.passHatKs[k])}
                    </td>
                  ))}
                  <td className="num wide-only">{formatCost(run.totalCost)}</td>
                  <td className="wide-only">{formatDate(run.date)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {selected.length > 0 && (
        <section className="card">
          <header className="card-head">
            <h2>pass^k of the selected runs</h2>
            {selected.length === 2 && (
              <a className="button" href={href({ page: "compare", a: selected[0]!, b: selected[1]! })}>
                Compare these two
              </a>
            )}
          </header>
          <PassKChart series={chart} />
        </section>
      )}
    </div>
  );
}
