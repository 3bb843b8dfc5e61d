import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunStore, StoredSimulationRecord } from "../core/run-store.js";
import { MemoryRunStore } from "./memory-run-store.js";
import { Store } from "./store.js";

// The one RunStore contract, held by the SQLite store and its memory twin alike: the explorer's tests
// run on the twin, so it must answer as the file does.
const folder = mkdtempSync(path.join(tmpdir(), "passk-run-store-contract-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A clock that moves one second per reading, as runs made one after another. */
const ticking = () => {
  let t = Date.parse("2026-01-05T10:00:00Z");
  return () => new Date((t += 1000));
};
let ids = 0;

const simulation = (
  taskId: string,
  trial: number,
  extra: Partial<StoredSimulationRecord> = {},
): StoredSimulationRecord => ({
  id: `${taskId}-${trial}`,
  task_id: taskId,
  start_time: "2025-06-01T10:00:00",
  end_time: "2025-06-01T10:01:00",
  duration: 60,
  termination_reason: "user_stop",
  agent_cost: 0.02,
  user_cost: 0.001,
  reward_info: { reward: 1, reward_basis: ["DB"], db_check: { db_match: true, db_reward: 1 } },
  messages: [{ role: "user", content: "Cancel my booking." }],
  trial,
  ...extra,
});

describe.each([
  ["Store", (): RunStore => Store.open(path.join(folder, `${ids++}.db`), { create: true, now: ticking() })],
  ["MemoryRunStore", (): RunStore => new MemoryRunStore({ now: ticking(), newId: () => `run-${ids++}` })],
] as const)("%s", (_, open) => {
  it("creates, finds by unique prefix, updates, lists newest first and deletes runs", () => {
    const store = open();
    const first = store.createRun({ id: "alpha-1", label: "a", config: { x: 1 } });
    const second = store.createRun({ id: "alpha-2", status: "completed" });
    expect(first).toMatchObject({
      status: "running",
      label: "a",
      config: { x: 1 },
      domains: [],
      simulationCount: 0,
    });
    expect(() => store.createRun({ id: "alpha-1" })).toThrow(/already exists/);
    expect(store.getRun("alpha-1").id).toBe("alpha-1");
    expect(() => store.getRun("alpha")).toThrow(/ambiguous/);
    expect(() => store.getRun("nope")).toThrow(/run "nope" is not known/);
    expect(store.updateRun("alpha-1", { status: "completed", label: null })).toMatchObject({
      status: "completed",
      label: null,
      config: { x: 1 },
    });
    expect(store.listRuns().map((r) => r.id)).toEqual([second.id, first.id]);
    store.putSimulation(first.id, "mock", simulation("t1", 0));
    expect(store.deleteRun("alpha-1")).toEqual({ id: "alpha-1", simulations: 1 });
    expect(store.listRuns().map((r) => r.id)).toEqual([second.id]);
    store.close();
  });

  it("keeps the first evaluable result of a key, replaces an infrastructure error, in first-written order", () => {
    const store = open();
    const { id } = store.createRun();
    expect(() => store.putSimulation(id, "mock", simulation("t1", 0, { trial: null }))).toThrow(
      /no trial number/,
    );
    expect(
      store.putSimulation(id, "mock", simulation("t2", 0, { termination_reason: "infrastructure_error" })),
    ).toEqual({ written: true });
    expect(store.putSimulation(id, "mock", simulation("t1", 0))).toEqual({ written: true });
    expect(store.putSimulation(id, "mock", simulation("t1", 0, { id: "again" }))).toEqual({ written: false });
    expect(store.putSimulation(id, "mock", simulation("t2", 0, { id: "retried" }))).toEqual({
      written: true,
    });
    expect(store.getSimulations(id).map((s) => s.simulation.id)).toEqual(["retried", "t1-0"]);
    expect(store.getSimulation(id, "mock", "t1", 0)?.simulation.id).toBe("t1-0");
    expect(store.getSimulation(id, "other", "t1", 0)).toBeUndefined();
    expect(store.scoredSimulations(id)).toEqual([
      {
        domain: "mock",
        task_id: "t2",
        trial: 0,
        termination_reason: "user_stop",
        reward_info: simulation("t2", 0).reward_info,
        agent_cost: 0.02,
        user_cost: 0.001,
        duration: 60,
      },
      expect.objectContaining({ task_id: "t1", trial: 0 }),
    ]);
    expect(store.getRun(id)).toMatchObject({ domains: ["mock"], simulationCount: 2 });
    store.close();
  });

  it("keeps tasks in order (a re-put replaces), reviews, imports and progress", () => {
    const store = open();
    const { id } = store.createRun();
    store.putTasks(id, "mock", [{ id: "t1", user_scenario: { instructions: "a" } }]);
    store.putTasks(id, "mock", [
      { id: "t2", user_scenario: { instructions: "b" } },
      { id: "t1", user_scenario: { instructions: "c" } },
    ]);
    expect(store.getTasks(id).map(({ task }) => [task.id, task.user_scenario])).toEqual([
      ["t1", { instructions: "c" }],
      ["t2", { instructions: "b" }],
    ]);
    expect(store.getTasks(id, "other")).toEqual([]);
    store.putReview(id, { domain: "mock", task_id: "t2", trial: 0 }, { culprit: "agent" });
    store.putReview(id, { domain: "mock", task_id: "t1", trial: 1 }, { culprit: "user" });
    store.putReview(id, { domain: "mock", task_id: "t1", trial: 1 }, { culprit: "task" });
    expect(store.reviews(id).map((r) => [r.task_id, r.trial, r.review])).toEqual([
      ["t1", 1, { culprit: "task" }],
      ["t2", 0, { culprit: "agent" }],
    ]);
    store.recordImport("abc", id);
    store.recordImport("abc", id);
    expect(store.importedAs("abc")).toEqual([id]);
    expect(store.importedAs("def")).toEqual([]);
    const before = store.runProgress(id, null);
    expect(before).toMatchObject({ planned: 0, done: 0, doneSince: 0 });
    const since = new Date(Date.parse(before.lastActivityAt) + 1).toISOString();
    store.putSimulation(id, "mock", simulation("t1", 0));
    const after = store.runProgress(id, since);
    expect(after).toMatchObject({ planned: 1, done: 1, doneSince: 1 });
    expect(after.lastActivityAt > before.lastActivityAt).toBe(true);
    store.close();
  });
});
