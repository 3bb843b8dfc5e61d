import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseResults } from "../formats/tau2/results.js";
import { importResults, withTrials } from "./import-results.js";
import { Store } from "./store.js";

const simulation = (id: string, trial?: number) => ({
  id,
  task_id: "t1",
  timestamp: "2025-06-01T10:00:00",
  start_time: "2025-06-01T10:00:00",
  end_time: "2025-06-01T10:01:00",
  duration: 60,
  termination_reason: "user_stop",
  messages: [{ role: "assistant", content: "Hi! How can I help you today?" }],
  ...(trial === undefined ? {} : { trial }),
});

describe("withTrials", () => {
  it("numbers missing trials per task, skipping the ones the file uses", () => {
    const numbered = withTrials([
      { task_id: "a", trial: 0 },
      { task_id: "a" },
      { task_id: "b", trial: null },
      { task_id: "a" },
    ]);
    expect(numbered.map((s) => `${s.task_id}${s.trial}`)).toEqual(["a0", "a1", "b0", "a2"]);
  });
});

describe("importResults", () => {
  it("stores the file's info, unknown fields, tasks and simulations as one run", () => {
    const store = Store.open(path.join(mkdtempSync(path.join(tmpdir(), "passk-import-")), "passk.db"));
    try {
      const text = JSON.stringify({
        timestamp: "2025-06-01T10:00:00",
        info: { num_trials: 2, environment_info: { domain_name: "mock" } },
        tasks: [{ id: "t1", user_scenario: { instructions: "x" } }],
        simulations: [simulation("first", 0), simulation("second")],
        extra_field: 1,
      });
      const id = importResults(store, parseResults(text, "run.json"), {
        domain: "mock",
        label: "run.json",
        importedFrom: "/tmp/run.json",
      });
      const run = store.getRun(id);
      expect(run).toMatchObject({ status: "imported", label: "run.json", numTrials: 2, simulationCount: 2 });
      expect(run.config).toEqual({ imported_from: "/tmp/run.json" });
      expect(run.extra).toEqual({ extra_field: 1 });
      expect(store.getSimulation(id, "mock", "t1", 1)?.simulation).toMatchObject({ id: "second" });
      expect(store.getTasks(id).map((t) => t.task)).toEqual([
        { id: "t1", user_scenario: { instructions: "x" } },
      ]);
    } finally {
      store.close();
    }
  });
});
