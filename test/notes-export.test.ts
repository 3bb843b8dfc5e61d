import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { NewSimulationNoteSchema } from "../src/core/simulation-note.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { formatResults, type ResultsInput } from "../src/formats/tau2/results.js";
import { sqliteSimulationNotes } from "../src/store/simulation-notes.js";
import { Store } from "../src/store/store.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { buildOfficialResults, MOCK_RUN_PLAN } from "./helpers/official-results.js";

// Notes people write on a run's simulations go out with it: `passk export -o FILE` writes them to
// FILE.notes.json, and FILE stays the τ² results file the reference tooling reads, byte for byte.
const dataDir = tau2DataDir();
let work: string;
let official: ResultsInput;
let officialFile: string;

const passk = (...args: string[]) =>
  runCliInProcess(args, { PASSK_DATA_DIR: dataDir, PASSK_STORE: path.join(work, "default.db") });

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "passk-notes-export-"));
  official = buildOfficialResults(new DomainData(builtinDomains.get("mock")!, dataDir), MOCK_RUN_PLAN);
  officialFile = path.join(work, "official.json");
  writeFileSync(officialFile, formatResults(official));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("passk export and report with notes", () => {
  it("writes the run's notes beside the results file, which stays τ²'s own", async () => {
    const store = path.join(work, "runs.db");
    expect((await passk("import", officialFile, "--store", store, "--id", "noted")).code).toBe(0);
    expect((await passk("import", officialFile, "--store", store, "--id", "plain")).code).toBe(0);
    const flaggedSimulation = official.simulations.find(
      (s) => s.task_id === "update_task_with_initialization_data" && s.trial === 1,
    )!;
    const opened = Store.open(store);
    try {
      const notes = sqliteSimulationNotes(opened);
      notes.add(
        "noted",
        { domain: "mock", taskId: "create_task_1", trial: 0, simulationId: "sim-a" },
        NewSimulationNoteSchema.parse({ text: "a clean pass" }),
      );
      notes.add(
        "noted",
        {
          domain: "mock",
          taskId: "update_task_with_initialization_data",
          trial: 1,
          simulationId: flaggedSimulation.id,
        },
        NewSimulationNoteSchema.parse({
          text: "the expected final message is ambiguous",
          taskIssue: true,
          category: "ambiguous outcome",
        }),
      );
    } finally {
      opened.close();
    }

    const out = path.join(work, "noted.json");
    const exported = await passk("export", "noted", "--store", store, "-o", out);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(`wrote 2 notes to ${out}.notes.json`);
    // The results file is the official one, unchanged: notes never enter it.
    expect(readFileSync(out, "utf8")).toBe(readFileSync(officialFile, "utf8"));
    const sidecar = JSON.parse(readFileSync(`${out}.notes.json`, "utf8")) as {
      run_id: string;
      notes: Array<Record<string, unknown>>;
    };
    expect(sidecar.run_id).toBe("noted");
    expect(sidecar.notes.map(({ created_at: _at, ...note }) => note)).toEqual([
      {
        simulation_id: "sim-a",
        domain: "mock",
        task_id: "create_task_1",
        trial: 0,
        text: "a clean pass",
        task_issue: false,
        category: null,
      },
      {
        simulation_id: flaggedSimulation.id,
        domain: "mock",
        task_id: "update_task_with_initialization_data",
        trial: 1,
        text: "the expected final message is ambiguous",
        task_issue: true,
        category: "ambiguous outcome",
      },
    ]);

    // A run without notes gets no sidecar; standard output carries the results only, and says so.
    const plainOut = path.join(work, "plain.json");
    const plain = await passk("export", "plain", "--store", store, "-o", plainOut);
    expect(plain.code).toBe(0);
    expect(existsSync(`${plainOut}.notes.json`)).toBe(false);
    const toStdout = await passk("export", "noted", "--store", store);
    expect(JSON.parse(toStdout.stdout)).toEqual(JSON.parse(readFileSync(officialFile, "utf8")));
    expect(toStdout.stderr).toContain("the run has 2 notes, not on standard output");

    // The report names the flagged simulation in one line; a run without flags has no such line.
    const report = await passk("report", "noted", "--store", store);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain(
      "task issues flagged in notes: 1 simulation: update_task_with_initialization_data trial 1 (ambiguous outcome)\n",
    );
    expect((await passk("report", "plain", "--store", store)).stdout).not.toContain("task issues");
    const json = JSON.parse((await passk("report", "noted", "--store", store, "--json")).stdout) as {
      task_issues?: unknown;
    };
    expect(json.task_issues).toEqual([
      {
        domain: "mock",
        task_id: "update_task_with_initialization_data",
        trial: 1,
        category: "ambiguous outcome",
        text: "the expected final message is ambiguous",
      },
    ]);
  });
});
