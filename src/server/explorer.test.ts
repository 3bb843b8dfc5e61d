import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import type { Results } from "../core/simulation.js";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { Store } from "../store/store.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { buildResults } from "../../test/web/helpers/seed-results.js";
import type { CompareResponse, RunDetail, RunList, RunSummary, SimulationDetail } from "./api-schemas.js";
import { createServer } from "./create-server.js";
import { createMemoryRunStore } from "./memory-run-store.js";
import { sqliteRunStore } from "./sqlite-run-store.js";

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
let folder: string;
let baseline: Results;
let candidate: Results;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "passk-explorer-"));
  // Baseline: create_task_1 fails trials 1 and 3, update_task_1 fails trial 2 (c = 2, 3, 4 of 4).
  baseline = await buildResults(data, {
    taskIds: TASKS,
    trials: 4,
    fails: (task, trial) =>
      (task === "create_task_1" && trial % 2 === 1) || (task === "update_task_1" && trial === 2),
  });
  // Candidate: update_task_1 regresses to 1 of 4; create_task_1 improves to 4 of 4.
  candidate = await buildResults(data, {
    taskIds: TASKS,
    trials: 4,
    model: "openai:candidate",
    fails: (task, trial) => task === "update_task_1" && trial > 0,
    start: new Date("2025-06-02T12:00:00Z"),
  });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const stores = {
  sqlite: () => sqliteRunStore(Store.open(path.join(folder, `${Math.random()}.db`), { create: true })),
  memory: () => createMemoryRunStore(),
};

describe.each(Object.keys(stores) as Array<keyof typeof stores>)("explorer API over the %s store", (kind) => {
  const app = () =>
    createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        createAgent: () => goldAgent,
        createUserSimulator: () => goldUser,
      },
      store: stores[kind](),
    });
  const upload = (server: ReturnType<typeof app>, results: unknown, name: string) =>
    server.request(`/api/runs/import?name=${encodeURIComponent(name)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: typeof results === "string" ? results : JSON.stringify(results),
    });

  it("imports a results file and shows its pass^k, grid, failing checks and a failing simulation's diff", async () => {
    const server = app();
    const imported = await upload(server, baseline, "baseline.json");
    expect(imported.status, await imported.clone().text()).toBe(201);
    const { run } = (await imported.json()) as { run: RunSummary };
    // pass^k = mean over tasks of C(c,k)/C(4,k) with c = 2, 3, 4.
    expect(run).toMatchObject({
      label: "baseline.json",
      model: "scripted:gold",
      domains: ["mock"],
      tasks: 3,
      trials: 4,
      simulations: 12,
    });
    expect(run.passHatKs["1"]).toBeCloseTo(0.75, 12);
    expect(run.passHatKs["2"]).toBeCloseTo(5 / 9, 12);
    expect(run.passHatKs["3"]).toBeCloseTo(5 / 12, 12);
    expect(run.passHatKs["4"]).toBeCloseTo(1 / 3, 12);
    expect(run.totalCost).toBeCloseTo(3 * (0.01 + 0.02 + 0.03 + 0.04) + 12 * 0.002, 12);

    // A scripted demo over 3 of the base split's tasks cannot stand beside the leaderboard, and it says why.
    expect(run.comparability.comparable).toBe(false);
    expect(run.comparability.reasons).toEqual(
      expect.arrayContaining([
        "a scripted demo (scripted:gold plays the gold actions), not a model",
        expect.stringMatching(/^\d+ of \d+ base-split tasks not run \(a task subset\)$/),
      ]),
    );

    const list = (await (await server.request("/api/runs")).json()) as RunList;
    expect(list.runs.map((r) => r.id)).toEqual([run.id]);

    const detail = (await (await server.request(`/api/runs/${run.id}`)).json()) as RunDetail;
    const row = detail.grid.find((r) => r.taskId === "create_task_1")!;
    expect(row.cells.map((c) => c.reward)).toEqual([1, 0, 1, 0]);
    expect(row.cells[1]!.failedKinds).toEqual(["DB"]);
    expect(detail.grid.map((r) => r.successes)).toEqual([2, 3, 4]);
    expect(detail.failedCheckKinds).toEqual([{ kind: "DB", count: 3 }]);
    expect(detail.passHatK.map((p) => p.k)).toEqual([1, 2, 3, 4]);
    for (const point of detail.passHatK) {
      expect(point.low!).toBeLessThanOrEqual(point.value + 1e-12);
      expect(point.high!).toBeGreaterThanOrEqual(point.value - 1e-12);
    }
    expect(detail.terminationReasons).toEqual({ user_stop: 12 });

    const simulation = (await (
      await server.request(`/api/runs/${run.id}/simulations/mock/create_task_1/1`)
    ).json()) as SimulationDetail;
    expect(simulation.failedChecks).toEqual([
      { kind: "DB", check: "final database differs from the gold database" },
    ]);
    expect(simulation.dbDiffSource).toBe("recorded");
    // The forgetful agent never created the task: task_2 exists only in the gold world.
    expect(simulation.dbDiff?.agent).toEqual(
      expect.arrayContaining([
        { collection: "tasks", id: "task_2", kind: "only_gold", fields: [] },
        {
          collection: "users",
          id: "user_1",
          kind: "changed",
          fields: [{ path: "tasks", predicted: ["task_1"], gold: ["task_1", "task_2"] }],
        },
      ]),
    );
    expect(simulation.task?.id).toBe("create_task_1");
    expect((await server.request(`/api/runs/${run.id}/simulations/mock/create_task_1/9`)).status).toBe(404);
    expect((await server.request(`/api/runs/${run.id}/simulations/mock/create_task_1/x`)).status).toBe(400);
    expect((await server.request(`/api/runs/nope`)).status).toBe(404);
  });

  it("recomputes the predicted-vs-gold diff of official files that do not carry one", async () => {
    const server = app();
    const stripped = structuredClone(baseline);
    for (const s of stripped.simulations) delete (s.reward_info?.info as Record<string, unknown>)["db_diff"];
    const { run } = (await (await upload(server, stripped, "official.json")).json()) as { run: RunSummary };
    const simulation = (await (
      await server.request(`/api/runs/${run.id}/simulations/mock/create_task_1/3`)
    ).json()) as SimulationDetail;
    expect(simulation.dbDiffSource).toBe("recomputed");
    expect(simulation.dbDiff?.agent).toContainEqual({
      collection: "tasks",
      id: "task_2",
      kind: "only_gold",
      fields: [],
    });
  });

  it("compares two runs with regressions first", async () => {
    const server = app();
    const a = ((await (await upload(server, baseline, "a.json")).json()) as { run: RunSummary }).run;
    const b = ((await (await upload(server, candidate, "b.json")).json()) as { run: RunSummary }).run;
    const comparison = (await (
      await server.request(`/api/compare?a=${a.id}&b=${b.id}`)
    ).json()) as CompareResponse;
    expect(comparison.k).toBe(4);
    expect(comparison.tasks.map((t) => [t.taskId, t.regressed, t.improved])).toEqual([
      ["update_task_1", true, false],
      ["create_task_1", false, true],
      ["impossible_task_1", false, false],
    ]);
    expect(comparison.tasks[0]!.before[0]).toBeCloseTo(0.75, 12);
    expect(comparison.tasks[0]!.after[0]).toBeCloseTo(0.25, 12);
    const list = (await (await server.request("/api/runs")).json()) as RunList;
    expect(list.runs.map((r) => r.label)).toEqual(["b.json", "a.json"]);
    expect((await server.request(`/api/compare?a=${a.id}`)).status).toBe(400);
  });

  it("rejects bad uploads with 400 and the reason", async () => {
    const server = app();
    const broken = await upload(server, '{"timestamp": "x", "info": {}', "broken.json");
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { message: string }).message).toMatch(
      /broken\.json is not valid.*line 1/s,
    );
    const noDomain = structuredClone(baseline);
    noDomain.info.environment_info = null;
    const refused = await upload(server, noDomain, "nodomain.json");
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/does not name its domain/);
    const wrong = await upload(server, { info: {}, tasks: [], simulations: [{ id: 1 }] }, "wrong.json");
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { code: string }).code).toBe("invalid_input_file");
    expect((await server.request("/api/runs")).status).toBe(200);
  });
});

describe("explorer blame (passk review)", () => {
  it("shows who caused each reviewed failure on its grid cell and counts failures by culprit", async () => {
    const store = Store.open(path.join(folder, "reviewed.db"), { create: true });
    const server = createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        createAgent: () => goldAgent,
        createUserSimulator: () => goldUser,
      },
      store: sqliteRunStore(store),
    });
    const imported = await server.request("/api/runs/import?name=reviewed.json", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(baseline),
    });
    const { run } = (await imported.json()) as { run: RunSummary };
    const before = (await (await server.request(`/api/runs/${run.id}`)).json()) as RunDetail;
    expect(before.blame).toEqual([]);
    const review = (culprit: string, reason: string) => ({
      culprit,
      turn: 1,
      reason,
      source: "check",
      check: null,
    });
    store.putReview(
      run.id,
      { domain: "mock", task_id: "create_task_1", trial: 1 },
      review("user_simulator", "left early"),
    );
    store.putReview(
      run.id,
      { domain: "mock", task_id: "create_task_1", trial: 3 },
      review("agent", "wrong tool"),
    );
    store.putReview(
      run.id,
      { domain: "mock", task_id: "update_task_1", trial: 2 },
      review("agent", "no call"),
    );
    const detail = (await (await server.request(`/api/runs/${run.id}`)).json()) as RunDetail;
    expect(detail.blame).toEqual([
      { culprit: "agent", count: 2 },
      { culprit: "user_simulator", count: 1 },
    ]);
    const cells = detail.grid.find((r) => r.taskId === "create_task_1")!.cells;
    expect(cells.find((c) => c.trial === 1)!.blame).toEqual({
      culprit: "user_simulator",
      reason: "left early",
    });
    expect(cells.find((c) => c.trial === 0)!.blame).toBeNull();
    store.close();
  });
});
