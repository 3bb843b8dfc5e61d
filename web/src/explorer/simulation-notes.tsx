import { useState, type FormEvent } from "react";
import { MAX_NOTE_CATEGORY_CHARS, MAX_NOTE_CHARS } from "../../../src/core/simulation-note.js";
import {
  AddNoteResponseSchema,
  DeleteNoteResponseSchema,
  SimulationNotesResponseSchema,
  type SimulationNote,
} from "../../../src/server/api-schemas.js";
import { answer, api, cancellable, describeError } from "../api.js";
import { formatDate } from "../format.js";
import { useApiGet } from "../use-api-get.js";

/**
 * People's notes on one simulation, kept with the run (and exported with it): read them, add one —
 * optionally flagging a task issue, when the task rather than the agent is at fault — or delete one.
 */
export function SimulationNotes(props: { runId: string; domain: string; taskId: string; trial: number }) {
  const { runId, domain, taskId, trial } = props;
  const param = { runId, domain, taskId, trial: String(trial) };
  const notes = useApiGet(JSON.stringify(["notes", runId, domain, taskId, trial]), (signal) =>
    answer(
      api.runs[":runId"].simulations[":domain"][":taskId"][":trial"].notes.$get(
        { param },
        cancellable(signal),
      ),
      SimulationNotesResponseSchema,
    ),
  );
  const [text, setText] = useState("");
  const [taskIssue, setTaskIssue] = useState(false);
  const [category, setCategory] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const add = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() === "" || busy) return;
    setBusy(true);
    setFailure(null);
    answer(
      api.runs[":runId"].simulations[":domain"][":taskId"][":trial"].notes.$post({
        param,
        json: { text, taskIssue, ...(taskIssue && category.trim() !== "" ? { category } : {}) },
      }),
      AddNoteResponseSchema,
    )
      .then(() => {
        setText("");
        setTaskIssue(false);
        setCategory("");
        notes.reload();
      })
      .catch((e: unknown) => setFailure(describeError(e)))
      .finally(() => setBusy(false));
  };
  const remove = (note: SimulationNote) => {
    setFailure(null);
    answer(
      api.runs[":runId"].notes[":noteId"].$delete({ param: { runId, noteId: String(note.id) } }),
      DeleteNoteResponseSchema,
    )
      .then(() => notes.reload())
      .catch((e: unknown) => setFailure(describeError(e)));
  };

  const list = notes.data?.notes ?? [];
  return (
    <section className="card notes-card" aria-labelledby="notes-title" data-testid="notes">
      <h3 id="notes-title">Notes{list.length > 0 && ` (${list.length})`}</h3>
      {notes.error && <p className="error-text">Notes could not be loaded: {notes.error}</p>}
      {notes.data && list.length === 0 && <p className="muted small">No notes on this simulation.</p>}
      {list.length > 0 && (
        <ul className="notes" aria-label="Notes on this simulation">
          {list.map((note) => (
            <li key={note.id} data-task-issue={note.taskIssue ? "true" : undefined}>
              {note.taskIssue && (
                <span className="badge removed task-issue">
                  ⚑ task issue{note.category ? `: ${note.category}` : ""}
                </span>
              )}
              <p className="note-text">{note.text}</p>
              <span className="muted small">{formatDate(note.createdAt)}</span>
              {notes.data?.writable && (
                <button
                  type="button"
                  className="link-small"
                  onClick={() => remove(note)}
                  aria-label={`Delete note ${note.id}`}
                >
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {notes.data?.writable === false && (
        <p className="muted small">This server's store keeps no notes: they are read-only here.</p>
      )}
      {notes.data?.writable && (
        <form className="note-form" onSubmit={add}>
          <label className="visually-hidden" htmlFor="note-text">
            New note
          </label>
          <textarea
            id="note-text"
            rows={3}
            maxLength={MAX_NOTE_CHARS}
            placeholder="What did you notice? (kept with the run, exported with it)"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          <div className="note-options">
            <label>
              <input type="checkbox" checked={taskIssue} onChange={(e) => setTaskIssue(e.target.checked)} />{" "}
              Flag as task issue
            </label>
            {taskIssue && (
              <input
                type="text"
                aria-label="Task issue category"
                placeholder="category (optional)"
                maxLength={MAX_NOTE_CATEGORY_CHARS}
                value={category}
                onChange={(e) => setCategory(e.target.value)}
              />
            )}
            <button type="submit" disabled={busy || text.trim() === ""}>
              Add note
            </button>
          </div>
        </form>
      )}
      {failure && (
        <p className="error-text" role="alert">
          {failure}
        </p>
      )}
    </section>
  );
}
