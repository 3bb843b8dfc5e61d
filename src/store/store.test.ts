import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { PasskError } from "../core/errors.js";
import type { SimulationRunInput } from "../formats/tau2/results.js";
import { databaseOf } from "./database.js";
import { MIGRATIONS } from "./schema.js";
import { Store } from "./store.js";
import { resolveStorePath } from "./store-location.js";

const open: Store[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));

function tempFile(name = "passk.db"): string {
  return path.join(mkdtempSync(path.join(tmpdir(), "passk-store-")), name);
}

function openStore(file = tempFile(), options: Parameters<typeof Store.open>[1] = {}): Store {
  const store = Store.open(file, options);
  open.push(store);
  return store;
}

export function simulation(
  taskId: string,
  trial: number,
  extra: Partial<SimulationRunInput> = {},
): SimulationRunInput {
  return {
    id: `${taskId}-${trial}`,
    task_id: taskId,
    timestamp: "2025-06-01T10:00:00",
    start_time: "2025-06-01T10:00:00",
    end_time: "2025-06-01T10:01:00",
    duration: 60,
    termination_reason: "user_stop",
    agent_cost: 0.02,
    user_cost: 0.001,
    reward_info: { reward: 1, reward_basis: ["DB"], db_check: { db_match: true, db_reward: 1 } },
    messages: [
      { role: "assistant", content: "Hi! How can I help you today?" },
      { role: "user", content: "Cancel my booking." },
    ],
    trial,
    seed: 7,
    ...extra,
  };
}

describe("Store", () => {
  it("creates a WAL-journaled store at the current schema version", () => {
    const store = openStore();
    expect(databaseOf(store).statement("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(store.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
  });

  it("keeps runs with their config and finds them by unique prefix", () => {
    const store = openStore(tempFile(), { now: () => new Date("2026-01-02T03:04:05Z") });
    const run = store.createRun({ numTrials: 4, config: { agent: "openai:gpt-4.1" }, label: "baseline" });
    expect(run.id).toMatch(/^20260102-030405-[0-9a-f]{4}$/);
    expect(run).toMatchObject({
      status: "running",
      numTrials: 4,
      config: { agent: "openai:gpt-4.1" },
      domains: [],
    });
    expect(store.getRun(run.id.slice(0, 17)).id).toBe(run.id);
    const second = store.createRun();
    expect(() => store.getRun("20260102")).toThrow(/ambiguous/);
    expect(() => store.getRun("nope")).toThrow(/run "nope" is not known/);
    expect(store.updateRun(run.id, { status: "completed" }).status).toBe("completed");
    expect(
      store
        .listRuns()
        .map((r) => r.id)
        .sort(),
    ).toEqual([run.id, second.id].sort());
  });

  it("round-trips a simulation exactly, key order included", () => {
    const store = openStore();
    const run = store.createRun();
    const sim = { ...simulation("3", 1), extra_field: { kept: true } };
    expect(store.putSimulation(run.id, "airline", sim)).toEqual({ written: true });
    const stored = store.getSimulation(run.id, "airline", "3", 1)!;
    expect(JSON.stringify(stored.simulation)).toBe(JSON.stringify(sim));
    const withoutReward: SimulationRunInput = simulation("4", 0);
    delete withoutReward.reward_info;
    store.putSimulation(run.id, "airline", withoutReward);
    expect(JSON.stringify(store.getSimulation(run.id, "airline", "4", 0)!.simulation)).toBe(
      JSON.stringify(withoutReward),
    );
    expect(store.getRun(run.id)).toMatchObject({ simulationCount: 2, domains: ["airline"] });
  });

  it("writes each (run, domain, task, trial) once: the first evaluable result stays, infrastructure errors are replaced", () => {
    const store = openStore();
    const run = store.createRun();
    expect(store.putSimulation(run.id, "airline", simulation("1", 0, { id: "first" })).written).toBe(true);
    expect(store.putSimulation(run.id, "airline", simulation("1", 0, { id: "second" })).written).toBe(false);
    expect(store.getSimulation(run.id, "airline", "1", 0)!.simulation.id).toBe("first");

    store.putSimulation(
      run.id,
      "airline",
      simulation("2", 0, { id: "outage", termination_reason: "infrastructure_error" }),
    );
    expect(store.putSimulation(run.id, "airline", simulation("2", 0, { id: "retry" })).written).toBe(true);
    expect(store.getSimulation(run.id, "airline", "2", 0)!.simulation.id).toBe("retry");
    // The same task id in another domain is another key.
    expect(store.putSimulation(run.id, "retail", simulation("1", 0, { id: "retail" })).written).toBe(true);
    expect(store.getSimulations(run.id).map((s) => s.simulation.id)).toEqual(["first", "retry", "retail"]);
    expect(store.scoredSimulations(run.id)).toHaveLength(3);
  });

  it("refuses a simulation without a trial number", () => {
    const store = openStore();
    const run = store.createRun();
    expect(() => store.putSimulation(run.id, "airline", simulation("1", 0, { trial: null }))).toThrow(
      /no trial number/,
    );
  });

  it("deletes a run with everything it holds", () => {
    const store = openStore();
    const run = store.createRun();
    store.putTasks(run.id, "airline", [{ id: "1", user_scenario: { instructions: "x" } }]);
    store.putSimulation(run.id, "airline", simulation("1", 0));
    expect(store.deleteRun(run.id)).toEqual({ id: run.id, simulations: 1 });
    const left = databaseOf(store)
      .statement("SELECT (SELECT COUNT(*) FROM simulations) + (SELECT COUNT(*) FROM run_tasks) AS n")
      .get();
    expect(left).toEqual({ n: 0 });
  });
});

describe("opening a store", () => {
  it("migrates an older schema when opened", () => {
    const file = tempFile();
    Store.open(file).close();
    const next = MIGRATIONS.at(-1)!.version + 1;
    const newer = [
      ...MIGRATIONS,
      {
        version: next,
        description: "notes",
        up: (db: Database.Database) => db.exec("CREATE TABLE notes (x TEXT)"),
      },
    ];
    const store = openStore(file, { migrations: newer });
    expect(store.schemaVersion()).toBe(next);
    expect(databaseOf(store).statement("SELECT name FROM sqlite_master WHERE name = 'notes'").get()).toEqual({
      name: "notes",
    });
  });

  it("refuses a store of a newer schema, naming both versions and the fix", () => {
    const file = tempFile();
    const future = MIGRATIONS.at(-1)!.version + 4;
    const newer = [...MIGRATIONS, { version: future, description: "future", up: () => {} }];
    Store.open(file, { migrations: newer }).close();
    let caught: unknown;
    try {
      Store.open(file);
    } catch (error) {
      caught = error;
    }
    expect(PasskError.isInstance(caught)).toBe(true);
    expect((caught as PasskError).code).toBe("store_version");
    expect((caught as Error).message).toMatch(
      new RegExp(
        `has store schema version ${future} \\(written by passk .+\\), but this passk reads schema version ${MIGRATIONS.at(-1)!.version} at most\\. Upgrade passk`,
      ),
    );
  });

  it("refuses files that are not passk stores", () => {
    const garbage = tempFile("garbage.db");
    writeFileSync(
      garbage,
      "this is not a database, just some text that is long enough to have a header".repeat(20),
    );
    expect(() => Store.open(garbage)).toThrow(/is not a passk store/);
    const foreign = tempFile("foreign.db");
    const db = new Database(foreign);
    db.exec("CREATE TABLE t (x)");
    db.close();
    expect(() => Store.open(foreign)).toThrow(/an SQLite database without passk's schema table/);
    // …and leaves it as it was (no WAL switch, no tables added).
    const after = new Database(foreign);
    expect(after.pragma("journal_mode", { simple: true })).toBe("delete");
    expect(after.prepare("SELECT COUNT(*) AS n FROM sqlite_master").get()).toEqual({ n: 1 });
    after.close();
  });

  it("does not create a store for commands that only read", () => {
    const file = tempFile();
    expect(() => Store.open(file, { create: false })).toThrow(/no passk store at .*passk import FILE/);
  });

  it("lives in .passk/passk.db unless --store or PASSK_STORE says otherwise", () => {
    expect(resolveStorePath(undefined, {}, "/project")).toBe("/project/.passk/passk.db");
    expect(resolveStorePath(undefined, { PASSK_STORE: "runs.db" }, "/project")).toBe("/project/runs.db");
    expect(resolveStorePath("/tmp/x.db", { PASSK_STORE: "runs.db" }, "/project")).toBe("/tmp/x.db");
  });
});

describe("runResults", () => {
  it("exports one domain of a run; a run of several domains must say which", async () => {
    const { runResults } = await import("./run-results.js");
    const store = openStore();
    const run = store.createRun({ timestamp: "t", info: { num_trials: 1 } });
    store.putTasks(run.id, "airline", [{ id: "1", user_scenario: { instructions: "a" } }]);
    store.putSimulation(run.id, "airline", simulation("1", 0));
    expect(runResults(store, run.id)).toEqual({
      timestamp: "t",
      info: { num_trials: 1 },
      tasks: [{ id: "1", user_scenario: { instructions: "a" } }],
      simulations: [simulation("1", 0)],
    });
    store.putSimulation(run.id, "retail", simulation("1", 0, { id: "r" }));
    expect(() => runResults(store, run.id)).toThrow(
      /spans several domains \(airline, retail\).*pass --domain NAME/,
    );
    expect(runResults(store, run.id, { domain: "retail" }).simulations.map((s) => s.id)).toEqual(["r"]);
    expect(() => runResults(store, run.id, { domain: "telecom" })).toThrow(/has no telecom tasks/);
  });
});
