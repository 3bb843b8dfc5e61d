import { useEffect, useState, type ChangeEvent, type FormEvent } from "react";
import {
  ConversationListSchema,
  DeleteRunResponseSchema,
  ImportResponseSchema,
  RunDetailSchema,
  RunListSchema,
  type RunSummary,
} from "../../../src/server/api-schemas.js";
import type { ConversationSummary } from "../../../src/core/conversation-record.js";
import { ApiRequestError, answer, api, cancellable, describeError } from "../api.js";
import { ComparabilityBadge } from "../components/comparability-badge.js";
import { PassKSparkline } from "../components/sparkline.js";
import { formatCost, formatDate, formatPercent, runCoverage, runPerturbation, taskLabel } from "../format.js";
import { href } from "../router.js";
import { ownedConversationIds } from "../playground/owned-conversations.js";
import { useApiGet } from "../use-api-get.js";
import { PassKChart, type PassKSeries } from "./pass-k-chart.js";
import { RunProgressLine, RunStatusBadge, pollEvery } from "./run-progress.js";
import { VoiceRunsSection } from "./voice-runs-section.js";

export function runName(run: RunSummary): string {
  return run.label ?? run.model ?? run.id;
}

/** The largest k a run reports (its trials per task). */
export function maxK(passHatKs: Record<string, number>): number {
  return Math.max(0, ...Object.keys(passHatKs).map(Number));
}

function importFile(text: string, name: string, again: boolean): Promise<RunSummary> {
  return answer(
    api.runs.import.$post(
      { query: { name, ...(again ? { again: "true" as const } : {}) } },
      { init: { body: text, headers: { "Content-Type": "application/json", Accept: "application/json" } } },
    ),
    ImportResponseSchema,
  ).then((r) => r.run);
}

/** A run's label, editable in place. */
function RunNameCell(props: { run: RunSummary; onRenamed: () => void }) {
  const { run } = props;
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(runName(run));
  const [error, setError] = useState<string | null>(null);
  const save = (event: FormEvent) => {
    event.preventDefault();
    answer(api.runs[":runId"].$patch({ param: { runId: run.id }, json: { label } }), ImportResponseSchema)
      .then(() => {
        setEditing(false);
        setError(null);
        props.onRenamed();
      })
      .catch((e: unknown) => setError(describeError(e)));
  };
  if (editing) {
    return (
      <form className="rename" onSubmit={save}>
        <label className="visually-hidden" htmlFor={`rename-${run.id}`}>
          New name for {runName(run)}
        </label>
        <input
          id={`rename-${run.id}`}
          type="text"
          value={label}
          maxLength={200}
          autoFocus
          onChange={(e) => setLabel(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
          }}
        />
        <button type="submit" disabled={label.trim() === ""}>
          Save
        </button>
        <button type="button" className="secondary" onClick={() => setEditing(false)}>
          Cancel
        </button>
        {error && (
          <span className="error-text" role="alert">
            {error}
          </span>
        )}
      </form>
    );
  }
  return (
    <span className="run-name">
      <a href={href({ page: "run", runId: run.id })}>{runName(run)}</a>{" "}
      {run.status !== "imported" && <RunStatusBadge run={run} />}{" "}
      {runPerturbation(run) && <span className="badge changed perturbed">{runPerturbation(run)}</span>}{" "}
      <ComparabilityBadge comparability={run.comparability} />
      <button
        type="button"
        className="link-button"
        aria-label={`Rename ${runName(run)}`}
        title="Rename"
        onClick={() => {
          setLabel(runName(run));
          setEditing(true);
        }}
      >
        ✎
      </button>
      {run.status !== "completed" && run.status !== "imported" && <RunProgressLine run={run} compact />}
    </span>
  );
}

/** The playground's kept conversations: reopen one by its link. */
function Conversations() {
  const list = useApiGet("conversations", (signal) =>
    answer(
      api.conversations.$get(
        { query: { limit: "20", ids: ownedConversationIds().join(",") } },
        cancellable(signal),
      ),
      ConversationListSchema,
    ),
  );
  const conversations = list.data?.conversations ?? [];
  if (conversations.length === 0) return null;
  const status = (c: ConversationSummary) =>
    c.reward !== null
      ? `reward ${c.reward.toFixed(2)}`
      : c.status === "finished"
        ? (c.terminationReason ?? "finished").replace(/_/g, " ")
        : // The playground's Stop ends a conversation as "abandoned"; it says "Stopped", and so does this list.
          c.status === "abandoned"
          ? "stopped"
          : c.status;
  return (
    <section className="card" aria-labelledby="conversations-title" data-testid="conversations">
      <h2 id="conversations-title">Playground conversations</h2>
      <p className="muted small">
        Ad-hoc conversations this browser started in the playground, newest first; each link reopens one.
      </p>
      <ul className="conversation-list">
        {conversations.map((c) => (
          <li key={c.id}>
            <a
              href={href({
                page: "playground",
                domain: c.domain,
                ...(c.taskId !== null ? { taskId: c.taskId } : {}),
                conversationId: c.id,
              })}
              title={c.taskId ?? "free conversation"}
            >
              {c.domain} · {c.taskId !== null ? taskLabel(c.taskId, 40) : "free conversation"}
            </a>{" "}
            <span className={`badge ${c.reward === null ? "muted" : c.reward >= 1 ? "added" : "removed"}`}>
              {status(c)}
            </span>{" "}
            <span className="muted small">
              {c.mode === "human" ? "a person" : c.user} with {c.agent} · {formatDate(c.startedAt)}
            </span>
            {c.firstLine && <span className="conversation-first-line">“{c.firstLine}”</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function RunsPage() {
  const runs = useApiGet("runs", (signal) => answer(api.runs.$get({}, cancellable(signal)), RunListSchema), {
    pollEvery: (data) => pollEvery(data.runs),
  });
  const [uploading, setUploading] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [duplicate, setDuplicate] = useState<{
    name: string;
    text: string;
    runId: string;
    message: string;
  } | null>(null);
  const [deleting, setDeleting] = useState<RunSummary | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [chart, setChart] = useState<PassKSeries[]>([]);
  // A deleted run leaves the list with its notice, not when the list has been loaded again.
  const [deletedIds, setDeletedIds] = useState<readonly string[]>([]);
  const list = runs.data?.runs.filter((r) => !deletedIds.includes(r.id)) ?? null;

  useEffect(() => {
    const abort = new AbortController();
    Promise.all(
      selected.map((runId) =>
        answer(api.runs[":runId"].$get({ param: { runId } }, cancellable(abort.signal)), RunDetailSchema),
      ),
    )
      .then((details) => setChart(details.map((d) => ({ name: runName(d.run), points: d.passHatK }))))
      .catch(() => {});
    return () => abort.abort();
  }, [selected]);

  const upload = async (name: string, text: string, again: boolean) => {
    setUploading(true);
    setNotice(null);
    setError(null);
    setDuplicate(null);
    try {
      const run = await importFile(text, name, again);
      setNotice(`Imported ${name}: ${run.simulations} simulations over ${run.tasks} tasks.`);
      runs.reload();
    } catch (e) {
      if (e instanceof ApiRequestError && e.code === "duplicate_import" && e.runId)
        setDuplicate({ name, text, runId: e.runId, message: e.message });
      else setError(describeError(e));
    } finally {
      setUploading(false);
    }
  };
  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    await upload(file.name, await file.text(), false);
  };
  const remove = (run: RunSummary) => {
    answer(api.runs[":runId"].$delete({ param: { runId: run.id } }), DeleteRunResponseSchema)
      .then((deleted) => {
        setNotice(`Deleted ${runName(run)} and its ${deleted.simulations} simulations.`);
        setDeletedIds((current) => [...current, run.id]);
        setSelected((current) => current.filter((id) => id !== run.id));
        setDeleting(null);
        runs.reload();
      })
      .catch((e: unknown) => {
        setError(describeError(e));
        setDeleting(null);
      });
  };

  const toggle = (id: string) =>
    setSelected((current) => (current.includes(id) ? current.filter((x) => x !== id) : [...current, id]));

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
      {(error ?? runs.error) && (
        <p className="error-text" role="alert">
          {error ?? runs.error}
        </p>
      )}
      {runs.refreshError && (
        <p className="muted small" role="status">
          Live updates paused: {runs.refreshError}. Trying again…
        </p>
      )}
      {duplicate && (
        <div
          className="warning"
          role="alertdialog"
          aria-labelledby="duplicate-title"
          data-testid="duplicate-import"
        >
          <p id="duplicate-title">
            <strong>{duplicate.name} was imported before</strong>, as{" "}
            <a href={href({ page: "run", runId: duplicate.runId })}>this run</a>. Importing it again makes a
            second copy of the same simulations.
          </p>
          <button type="button" onClick={() => void upload(duplicate.name, duplicate.text, true)}>
            Import again anyway
          </button>{" "}
          <button type="button" className="secondary" onClick={() => setDuplicate(null)}>
            Cancel
          </button>
        </div>
      )}
      {deleting && (
        <div
          className="warning"
          role="alertdialog"
          aria-labelledby="delete-title"
          data-testid="confirm-delete"
        >
          <p id="delete-title">
            Delete <strong>{runName(deleting)}</strong> and its {deleting.simulations} simulations from the
            store? This cannot be undone.
          </p>
          <button type="button" className="danger" onClick={() => remove(deleting)}>
            Delete the run
          </button>{" "}
          <button type="button" className="secondary" onClick={() => setDeleting(null)} autoFocus>
            Keep it
          </button>
        </div>
      )}
      {list && list.length === 0 && (
        <p className="muted">
          No runs yet. Import a τ²-bench results file, or run <code>passk run</code>.
        </p>
      )}
      {list && list.length > 0 && (
        <div className="table-scroll runs-scroll">
          <table className="runs-table">
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">select</span>
                </th>
                <th scope="col">Run</th>
                <th scope="col">Model</th>
                <th scope="col">Domain</th>
                <th scope="col">Tasks × trials</th>
                <th scope="col" title="The chance that one attempt at a task succeeds">
                  pass^1
                </th>
                <th
                  scope="col"
                  title="The chance that all k attempts at a task succeed (k = the run's trials)"
                >
                  pass^k
                </th>
                <th scope="col">pass^1…k</th>
                <th scope="col">Cost</th>
                <th scope="col">Date</th>
                <th scope="col">
                  <span className="visually-hidden">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((run) => {
                const k = maxK(run.passHatKs);
                const coverage = runCoverage(run);
                return (
                  <tr key={run.id} data-run-id={run.id}>
                    <td className="select-cell">
                      <input
                        type="checkbox"
                        aria-label={`select ${runName(run)}`}
                        checked={selected.includes(run.id)}
                        onChange={() => toggle(run.id)}
                      />
                    </td>
                    <td className="name-cell">
                      <RunNameCell run={run} onRenamed={runs.reload} />
                    </td>
                    <td data-label="Model">{run.model ?? "—"}</td>
                    <td data-label="Domain">{run.domains.join(", ")}</td>
                    <td data-label="Tasks × trials">
                      {run.tasks} × {run.trials}
                    </td>
                    <td className="num pass-1" data-label="pass^1">
                      {formatPercent(run.passHatKs["1"])}
                      {coverage && <span className="muted small coverage"> {coverage}</span>}
                    </td>
                    <td className="num pass-k" data-label={`pass^${k}`}>
                      {k > 1 ? (
                        <span>
                          {formatPercent(run.passHatKs[String(k)])} <span className="muted small">k={k}</span>
                          {coverage && <span className="muted small coverage"> {coverage}</span>}
                        </span>
                      ) : (
                        <span className="muted small">one trial</span>
                      )}
                    </td>
                    <td data-label="pass^1…k">
                      <PassKSparkline passHatKs={run.passHatKs} />
                    </td>
                    <td className="num" data-label="Cost">
                      {formatCost(run.totalCost)}
                    </td>
                    <td data-label="Date">{formatDate(run.date)}</td>
                    <td className="actions-cell">
                      <button
                        type="button"
                        className="link-button danger-text"
                        aria-label={`Delete ${runName(run)}`}
                        onClick={() => setDeleting(run)}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                );
              })}
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
      <VoiceRunsSection />
      <Conversations />
    </div>
  );
}
