import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importResultsFile } from "./import-results-file.js";

const results = {
  timestamp: "2025-06-01T10:00:00",
  info: { num_trials: 1, environment_info: { domain_name: "mock" } },
  tasks: [{ id: "t1", user_scenario: { instructions: "x" } }],
  simulations: [
    {
      id: "s1",
      task_id: "t1",
      trial: 0,
      timestamp: "2025-06-01T10:00:00",
      start_time: "2025-06-01T10:00:00",
      end_time: "2025-06-01T10:01:00",
      duration: 60,
      termination_reason: "user_stop",
      messages: [{ role: "assistant", content: "Hi! How can I help you today?" }],
    },
  ],
};

describe("importResultsFile", () => {
  it("stores a file as a run labelled with its name, and names the runs it became before", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "passk-import-file-"));
    const file = path.join(dir, "run.json");
    writeFileSync(file, JSON.stringify(results));
    const store = path.join(dir, "passk.db");
    const first = importResultsFile(file, { store });
    expect(first).toMatchObject({ domain: "mock", tasks: 1, earlier: [] });
    expect(first.run).toMatchObject({ label: "run.json", status: "imported", simulationCount: 1 });
    const again = importResultsFile(file, { store, label: "again", id: "second-import" });
    expect(again.earlier).toEqual([first.run.id]);
    expect(again.run).toMatchObject({ id: "second-import", label: "again" });
  });

  it("reads the file before the store is created: a file without its domain leaves no store", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "passk-import-file-"));
    const file = path.join(dir, "nameless.json");
    writeFileSync(file, JSON.stringify({ ...results, info: { num_trials: 1 } }));
    const store = path.join(dir, "passk.db");
    expect(() => importResultsFile(file, { store })).toThrow(/does not name its domain/);
    expect(existsSync(store)).toBe(false);
    expect(importResultsFile(file, { store, domain: "mock" }).domain).toBe("mock");
  });
});
