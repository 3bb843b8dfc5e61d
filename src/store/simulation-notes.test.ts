import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NewSimulationNoteSchema } from "../core/simulation-note.js";
import { databaseOf } from "./database.js";
import { MIGRATIONS } from "./schema.js";
import {
  createMemorySimulationNotes,
  formatNotesFile,
  sqliteSimulationNotes,
  type SimulationNotes,
} from "./simulation-notes.js";
import type { SimulationRunInput } from "../formats/tau2/results.js";
import { Store } from "./store.js";

const simulation = (taskId: string, trial: number): SimulationRunInput => ({
  id: `${taskId}-${trial}`,
  task_id: taskId,
  timestamp: "2025-06-01T10:00:00",
  start_time: "2025-06-01T10:00:00",
  end_time: "2025-06-01T10:01:00",
  duration: 60,
  termination_reason: "user_stop",
  reward_info: { reward: 1, reward_basis: ["DB"] },
  messages: [{ role: "assistant", content: "Hi! How can I help you today?" }],
  trial,
  seed: 7,
});

const open: Store[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));

function tempFile(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), "passk-notes-")), "passk.db");
}

function openStore(file: string, migrations = MIGRATIONS): Store {
  const store = Store.open(file, { migrations, now: () => new Date("2026-01-02T03:04:05Z") });
  open.push(store);
  return store;
}

const note = (text: string, extra: Record<string, unknown> = {}) =>
  NewSimulationNoteSchema.parse({ text, ...extra });
const key = (taskId: string, trial: number) => ({
  domain: "airline",
  taskId,
  trial,
  simulationId: `${taskId}-${trial}`,
});

/** What every notes store does: notes per simulation, oldest first; the whole run's in key order; deletion by id within a run. */
function behavesAsNotes(make: () => { notes: SimulationNotes; runs: [string, string] }) {
  it("keeps several notes per simulation, lists them per simulation and per run, and deletes one", () => {
    const { notes, runs } = make();
    const [a, b] = runs;
    const first = notes.add(a, key("7", 1), note("the customer asked twice"));
    const flagged = notes.add(
      a,
      key("7", 1),
      note("gold cancels the wrong booking", { taskIssue: true, category: " gold wrong " }),
    );
    notes.add(a, key("11", 0), note("fine"));
    notes.add(b, key("7", 1), note("another run's"));
    expect(flagged).toMatchObject({
      runId: a,
      domain: "airline",
      taskId: "7",
      trial: 1,
      simulationId: "7-1",
      text: "gold cancels the wrong booking",
      taskIssue: true,
      category: "gold wrong",
    });
    expect(first.taskIssue).toBe(false);
    expect(first.category).toBeNull();
    expect(notes.list(a, key("7", 1)).map((n) => n.text)).toEqual([
      "the customer asked twice",
      "gold cancels the wrong booking",
    ]);
    // The run's notes in (domain, task, trial) order: task "11" sorts before "7" as text.
    expect(notes.list(a).map((n) => n.text)).toEqual([
      "fine",
      "the customer asked twice",
      "gold cancels the wrong booking",
    ]);
    // A note is deleted only through its own run.
    expect(notes.remove(b, first.id)).toBe(false);
    expect(notes.remove(a, first.id)).toBe(true);
    expect(notes.remove(a, first.id)).toBe(false);
    expect(notes.list(a, key("7", 1)).map((n) => n.text)).toEqual(["gold cancels the wrong booking"]);
    expect(notes.list(b).map((n) => n.text)).toEqual(["another run's"]);
  });
}

describe("notes in the SQLite store", () => {
  behavesAsNotes(() => {
    const store = openStore(tempFile());
    const runs: [string, string] = [store.createRun().id, store.createRun().id];
    return { notes: sqliteSimulationNotes(store), runs };
  });

  it("opens a store written before notes existed, adds the table and keeps what it held", () => {
    const file = tempFile();
    // The migrations before the one that adds the notes' table.
    const notesAt = MIGRATIONS.findIndex((m) => /notes/.test(m.description));
    const old = openStore(file, MIGRATIONS.slice(0, notesAt));
    const runId = old.createRun({ label: "from before" }).id;
    old.putSimulation(runId, "airline", simulation("7", 1));
    expect(
      databaseOf(old).statement("SELECT 1 FROM sqlite_master WHERE name = 'simulation_notes'").get(),
    ).toBeUndefined();
    old.close();

    const store = openStore(file);
    expect(store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    expect(store.getRun(runId).label).toBe("from before");
    expect(store.getSimulation(runId, "airline", "7", 1)?.simulation.id).toBe("7-1");
    const notes = sqliteSimulationNotes(store);
    expect(notes.list(runId)).toEqual([]);
    const added = notes.add(runId, key("7", 1), note("written after the upgrade", { taskIssue: true }));
    expect(added.createdAt).toBe("2026-01-02T03:04:05.000Z");
    expect(notes.list(runId, key("7", 1))).toEqual([added]);
  });

  it("deletes a run's notes with the run", () => {
    const store = openStore(tempFile());
    const runId = store.createRun().id;
    store.putSimulation(runId, "airline", simulation("7", 1));
    const notes = sqliteSimulationNotes(store);
    notes.add(runId, key("7", 1), note("gone with the run"));
    store.deleteRun(runId);
    expect(databaseOf(store).statement("SELECT COUNT(*) AS n FROM simulation_notes").get()).toEqual({ n: 0 });
  });
});

describe("notes in memory", () => {
  behavesAsNotes(() => ({
    notes: createMemorySimulationNotes(() => new Date("2026-01-02T03:04:05Z")),
    runs: ["run-a", "run-b"],
  }));
});

describe("a note as written", () => {
  it("is bounded and trimmed, with a sentence for each problem", () => {
    expect(NewSimulationNoteSchema.safeParse({ text: "   " }).error?.issues[0]?.message).toBe(
      "text must not be empty",
    );
    expect(NewSimulationNoteSchema.safeParse({ text: "x".repeat(4001) }).error?.issues[0]?.message).toBe(
      "text is longer than 4000 characters",
    );
    expect(NewSimulationNoteSchema.safeParse({ text: "ok", taskIssue: "yes" }).success).toBe(false);
    expect(NewSimulationNoteSchema.safeParse({ text: "ok", extra: 1 }).success).toBe(false);
    expect(NewSimulationNoteSchema.parse({ text: "x".repeat(4000) }).text).toHaveLength(4000);
  });

  it("goes out in the export's sidecar file in snake_case, naming its simulation", () => {
    const notes = createMemorySimulationNotes(() => new Date("2026-01-02T03:04:05Z"));
    notes.add("run-a", key("7", 1), note("flagged", { taskIssue: true, category: "ambiguous" }));
    expect(JSON.parse(formatNotesFile("run-a", notes.list("run-a")))).toEqual({
      run_id: "run-a",
      notes: [
        {
          simulation_id: "7-1",
          domain: "airline",
          task_id: "7",
          trial: 1,
          text: "flagged",
          task_issue: true,
          category: "ambiguous",
          created_at: "2026-01-02T03:04:05.000Z",
        },
      ],
    });
  });
});
