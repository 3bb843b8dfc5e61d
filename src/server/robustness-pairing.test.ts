import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import type { RunStatus, RunStore } from "../core/run-store.js";
import type { Results } from "../core/simulation.js";
import { builtinDomains } from "../domains/registry.js";
import { storedRobustnessRows } from "../runner/robustness-pairs.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { Store } from "../store/store.js";
import { fixtureDomainData, tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { buildResults } from "../../test/web/helpers/seed-results.js";
import { RunDetailSchema } from "./api-schemas.js";
import { createServer } from "./create-server.js";
import { runCatalog } from "./run-catalog.js";

// One pairing rule for perturbed runs and clean baselines: what `passk run` and `passk report` print
// (the library's `storedRobustnessRows`) is what the explorer's API answers, and only completed runs
// pair — a newer interrupted clean run or a running perturbed one compares other task sets.
const data = fixtureDomainData("mock");
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
let folder: string;
let clean: Results;
let perturbed: Results;

// As `passk run` stored configurations before the typed spec (version 1): read back migrated.
const config = (perturbations: string[]) => ({
  kind: "passk-run",
  version: 1,
  domains: ["mock"],
  data: tau2DataDir(),
  selection: { split: null, task_ids: TASKS, num_tasks: null },
  num_trials: 2,
  seed: 300,
  max_steps: 200,
  max_errors: 10,
  solo: false,
  protocol: "passk",
  models: { agentLlm: "scripted:gold", userLlm: "scripted:gold" },
  save_to: null,
  scripted_demo: false,
  perturbations,
});

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "passk-robustness-pairing-"));
  clean = await buildResults(data, { taskIds: TASKS, trials: 2, fails: () => false });
  // update_task_1 breaks under the perturbation.
  perturbed = await buildResults(data, {
    taskIds: TASKS,
    trials: 2,
    fails: (task) => task === "update_task_1",
  });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Four runs of one configuration, oldest first: a completed pair, then an unfinished pair. */
function seed(store: RunStore) {
  const add = (status: RunStatus, results: Results, perturbations: string[], count: number) => {
    const { id } = store.createRun({
      status,
      numTrials: 2,
      config: config(perturbations),
      info: results.info,
    });
    store.putTasks(id, "mock", results.tasks);
    for (const simulation of results.simulations.slice(0, count)) store.putSimulation(id, "mock", simulation);
    return id;
  };
  const all = clean.simulations.length;
  return {
    clean: add("completed", clean, [], all),
    perturbed: add("completed", perturbed, ["tool-faults@1:rate=0.2"], all),
    // Newer, but unfinished: half their conversations stored.
    interruptedClean: add("interrupted", clean, [], all / 2),
    runningPerturbed: add("running", perturbed, ["tool-faults@1:rate=0.2"], all / 2),
  };
}

describe.each([
  ["sqlite", () => Store.open(path.join(folder, `${Math.random()}.db`), { create: true })],
  // Distinct creation times, as runs made one after another have.
  [
    "memory",
    () =>
      new MemoryRunStore({
        now: (
          (t) => () =>
            new Date((t += 1000))
        )(Date.parse("2026-01-05T10:00:00Z")),
      }),
  ],
] as const)("robustness pairing over the %s store", (_, open) => {
  it("the CLI's rows and the explorer's API agree, and only completed runs pair", async () => {
    const store = open();
    const runs = seed(store);
    const server = createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
      },
      store: runCatalog(store),
    });
    const explorer = async (runId: string) =>
      RunDetailSchema.parse(await (await server.request(`/api/runs/${runId}`)).json()).robustness ?? [];

    const cli = storedRobustnessRows(store, runs.perturbed);
    expect(cli).toHaveLength(1);
    expect(cli[0]).toMatchObject({ run_id: runs.perturbed, baseline_run_id: runs.clean, tasks: 3 });
    expect(cli[0]!.broke).toEqual(["mock/update_task_1"]);
    const api = await explorer(runs.perturbed);
    expect(api.map((r) => [r.runId, r.baselineRunId, r.perturbed, r.clean, r.broke])).toEqual(
      cli.map((r) => [r.run_id, r.baseline_run_id, r.perturbed, r.clean, r.broke]),
    );
    // The clean run's page: its completed perturbed sibling, not the newer running one.
    expect(storedRobustnessRows(store, runs.clean).map((r) => r.run_id)).toEqual([runs.perturbed]);
    expect((await explorer(runs.clean)).map((r) => r.runId)).toEqual([runs.perturbed]);
    // Unfinished runs pair with nothing, on either surface.
    for (const unfinished of [runs.interruptedClean, runs.runningPerturbed]) {
      expect(storedRobustnessRows(store, unfinished)).toEqual([]);
      expect(await explorer(unfinished)).toEqual([]);
    }
    store.close();
  });
});
