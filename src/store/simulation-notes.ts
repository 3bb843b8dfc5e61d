import type { NewSimulationNote, SimulationNote } from "../core/simulation-note.js";
import { databaseOf } from "./database.js";
import type { Store } from "./store.js";

/** Which simulation of a run a note is on: its (domain, task, trial) key. */
export interface NoteKey {
  domain: string;
  taskId: string;
  trial: number;
}

/**
 * Notes people write on a run's simulations (the explorer's "Notes", exported beside the run).
 * `sqliteSimulationNotes` keeps them in the run store's `simulation_notes` table (schema v5);
 * `createMemorySimulationNotes` in memory, for servers without a store file and tests.
 */
export interface SimulationNotes {
  /** The notes of one simulation, or of the whole run without `key`; oldest first. */
  list(runId: string, key?: NoteKey): SimulationNote[];
  add(runId: string, key: NoteKey & { simulationId: string | null }, note: NewSimulationNote): SimulationNote;
  /** Delete one of the run's notes; false when the run has no note with this id. */
  remove(runId: string, id: number): boolean;
}

interface NoteRow {
  id: number;
  run_id: string;
  domain: string;
  task_id: string;
  trial: number;
  simulation_id: string | null;
  text: string;
  task_issue: number;
  category: string | null;
  created_at: string;
}

const COLUMNS = "id, run_id, domain, task_id, trial, simulation_id, text, task_issue, category, created_at";

function toNote(row: NoteRow): SimulationNote {
  return {
    id: row.id,
    runId: row.run_id,
    domain: row.domain,
    taskId: row.task_id,
    trial: row.trial,
    simulationId: row.simulation_id,
    text: row.text,
    taskIssue: row.task_issue === 1,
    category: row.category,
    createdAt: row.created_at,
  };
}

/** The notes kept in the SQLite store; they go with their run when it is deleted. */
export function sqliteSimulationNotes(store: Store): SimulationNotes {
  const db = databaseOf(store);
  return {
    list(runId, key) {
      const rows = (
        key
          ? db
              .statement(
                `SELECT ${COLUMNS} FROM simulation_notes
                 WHERE run_id = ? AND domain = ? AND task_id = ? AND trial = ? ORDER BY id`,
              )
              .all(runId, key.domain, key.taskId, key.trial)
          : db
              .statement(
                `SELECT ${COLUMNS} FROM simulation_notes WHERE run_id = ? ORDER BY domain, task_id, trial, id`,
              )
              .all(runId)
      ) as NoteRow[];
      return rows.map(toNote);
    },
    add(runId, key, note) {
      const row = db
        .statement(
          `INSERT INTO simulation_notes (run_id, domain, task_id, trial, simulation_id, text, task_issue, category, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        )
        .get(
          runId,
          key.domain,
          key.taskId,
          key.trial,
          key.simulationId,
          note.text,
          note.taskIssue ? 1 : 0,
          note.category,
          db.now(),
        ) as NoteRow;
      return toNote(row);
    },
    remove(runId, id) {
      return (
        db.statement("DELETE FROM simulation_notes WHERE run_id = ? AND id = ?").run(runId, id).changes > 0
      );
    },
  };
}

/** Notes held in memory (ids count up from 1). */
export function createMemorySimulationNotes(now: () => Date = () => new Date()): SimulationNotes {
  const notes: SimulationNote[] = [];
  let lastId = 0;
  // As SQLite orders text (by code unit), so both stores list notes alike.
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const order = (a: SimulationNote, b: SimulationNote) =>
    text(a.domain, b.domain) || text(a.taskId, b.taskId) || a.trial - b.trial || a.id - b.id;
  return {
    list: (runId, key) =>
      notes
        .filter(
          (n) =>
            n.runId === runId &&
            (!key || (n.domain === key.domain && n.taskId === key.taskId && n.trial === key.trial)),
        )
        .sort(order),
    add(runId, key, note) {
      const stored: SimulationNote = {
        id: ++lastId,
        runId,
        domain: key.domain,
        taskId: key.taskId,
        trial: key.trial,
        simulationId: key.simulationId,
        text: note.text,
        taskIssue: note.taskIssue,
        category: note.category,
        createdAt: now().toISOString(),
      };
      notes.push(stored);
      return stored;
    },
    remove(runId, id) {
      const at = notes.findIndex((n) => n.runId === runId && n.id === id);
      if (at < 0) return false;
      notes.splice(at, 1);
      return true;
    },
  };
}

/** Where `passk export -o FILE` writes the run's notes: beside the results file, which stays τ²'s own. */
export const notesFileFor = (resultsFile: string) => `${resultsFile}.notes.json`;

/**
 * A run's notes as `passk export` writes them beside its results file (`<file>.notes.json`): each
 * note names its simulation by τ² id and by (domain, task, trial).
 */
export function formatNotesFile(runId: string, notes: readonly SimulationNote[]): string {
  const file = {
    run_id: runId,
    notes: notes.map((note) => ({
      simulation_id: note.simulationId,
      domain: note.domain,
      task_id: note.taskId,
      trial: note.trial,
      text: note.text,
      task_issue: note.taskIssue,
      category: note.category,
      created_at: note.createdAt,
    })),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
