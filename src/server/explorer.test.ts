import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import type { Results } from "../core/simulation.js";
import { builtinDomains } from "../domains/registry.js";
import { Store } from "../store/store.js";
import { tau2DataDir, fixtureDomainData } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { buildResults } from "../../test/web/helpers/seed-results.js";
import {
  AgentScoreSchema,
  RunSearchResultSchema,
  SimulationDetailSchema,
  type CompareResponse,
  type RunDetail,
  type RunList,
  type RunSummary,
  type SimulationDetail,
} from "./api-schemas.js";
import { createServer } from "./create-server.js";
import { memoryRunCatalog, sqliteRunCatalog } from "./run-catalog.js";

const data = fixtureDomainData("mock");
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
  sqlite: () => sqliteRunCatalog(Store.open(path.join(folder, `${Math.random()}.db`), { create: true })),
  memory: () => memoryRunCatalog(),
};

describe.each(Object.keys(stores) as Array<keyof typeof stores>)("explorer API over the %s store", (kind) => {
  const app = () =>
    createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
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
    // Each task's trials on both sides, to open a passing one beside a failing one.
    expect(comparison.tasks[0]!.trialsA.map((t) => t.reward)).toEqual([1, 1, 0, 1]);
    expect(comparison.tasks[0]!.trialsB.map((t) => t.reward)).toEqual([1, 0, 0, 0]);
    expect(comparison.tasks[0]!.after[0]).toBeCloseTo(0.25, 12);
    const list = (await (await server.request("/api/runs")).json()) as RunList;
    expect(list.runs.map((r) => r.label)).toEqual(["b.json", "a.json"]);
    expect((await server.request(`/api/compare?a=${a.id}`)).status).toBe(400);
  });

  it("flags an imported run whose embedded tasks are graded differently, naming them, in its summary and in compare", async () => {
    const server = app();
    // The same file, but update_task_1's gold actions changed: not a run on this server's tasks.
    const altered = structuredClone(candidate);
    const task = altered.tasks.find((t) => t.id === "update_task_1")!;
    task.evaluation_criteria = { ...task.evaluation_criteria!, actions: [] };
    const a = ((await (await upload(server, baseline, "clean.json")).json()) as { run: RunSummary }).run;
    const b = ((await (await upload(server, altered, "altered.json")).json()) as { run: RunSummary }).run;
    expect(a.comparability.changedTasks).toBeUndefined();
    expect(b.comparability.changedTasks).toEqual([{ domain: "mock", taskIds: ["update_task_1"] }]);
    expect(b.comparability.comparable).toBe(false);
    expect(b.comparability.reasons).toContain(
      "1 of its mock tasks are graded differently from the mock tasks this server has (update_task_1): its scores are not on those tasks",
    );
    const comparison = (await (
      await server.request(`/api/compare?a=${a.id}&b=${b.id}`)
    ).json()) as CompareResponse;
    expect(comparison.b.comparability.changedTasks).toEqual([{ domain: "mock", taskIds: ["update_task_1"] }]);
    const detail = (await (await server.request(`/api/runs/${b.id}`)).json()) as RunDetail;
    expect(detail.run.comparability.changedTasks?.[0]?.taskIds).toEqual(["update_task_1"]);
  });

  it("searches a run's transcripts, each hit naming its conversation and message", async () => {
    const server = app();
    const run = ((await (await upload(server, baseline, "searched.json")).json()) as { run: RunSummary }).run;
    const answer = await server.request(`/api/runs/${run.id}/search?q=${encodeURIComponent("CREATE_TASK")}`);
    expect(answer.status).toBe(200);
    const found = RunSearchResultSchema.parse(await answer.json());
    expect(found.searched).toBe(12);
    expect(found.hits.length).toBeGreaterThan(0);
    for (const hit of found.hits) {
      // The hit is where it says: that message of that conversation holds the words.
      const detail = (await (
        await server.request(`/api/runs/${run.id}/simulations/${hit.domain}/${hit.taskId}/${hit.trial}`)
      ).json()) as SimulationDetail;
      const message = detail.simulation.messages[hit.messageIndex]!;
      expect(JSON.stringify(message).toLowerCase()).toContain("create_task");
      expect(hit.snippet.match.toLowerCase()).toBe("create_task");
    }
    const none = RunSearchResultSchema.parse(
      await (await server.request(`/api/runs/${run.id}/search?q=no%20such%20words`)).json(),
    );
    expect(none.hits).toEqual([]);
    const tooShort = await server.request(`/api/runs/${run.id}/search?q=a`);
    expect(tooShort.status).toBe(400);
    expect(((await tooShort.json()) as { message: string }).message).toMatch(/at least 2 characters/);
  });

  it("walks a run's simulations in grid order and places a failure's departure from the gold actions", async () => {
    const server = app();
    const { run } = (await (await upload(server, baseline, "walk.json")).json()) as { run: RunSummary };
    const at = async (task: string, trial: number) =>
      SimulationDetailSchema.parse(
        await (await server.request(`/api/runs/${run.id}/simulations/mock/${task}/${trial}`)).json(),
      );
    const first = await at("create_task_1", 0);
    expect(first.runName).toBe("walk.json");
    expect(first.neighbours).toEqual({
      previous: null,
      next: { domain: "mock", taskId: "create_task_1", trial: 1 },
      previousFailing: null,
      // Failing trials: create_task_1 1 and 3, update_task_1 2.
      nextFailing: { domain: "mock", taskId: "create_task_1", trial: 1 },
      position: 1,
      total: 12,
    });
    expect(first.trials).toEqual([
      { trial: 0, reward: 1 },
      { trial: 1, reward: 0 },
      { trial: 2, reward: 1 },
      { trial: 3, reward: 0 },
    ]);
    expect(first.goldDivergence).toBeNull();
    const last = await at("create_task_1", 3);
    expect(last.neighbours).toMatchObject({
      previous: { taskId: "create_task_1", trial: 2 },
      next: { taskId: "update_task_1", trial: 0 },
      previousFailing: { taskId: "create_task_1", trial: 1 },
      nextFailing: { taskId: "update_task_1", trial: 2 },
      position: 4,
    });
    // The forgetful agent skipped the gold create_task: the conversation ended without it, at the
    // agent's last turn.
    expect(last.goldMatched).toEqual([false]);
    const divergence = last.goldDivergence!;
    expect(divergence).toMatchObject({ kind: "missing-action", expectedAction: 0 });
    expect(divergence.sentence).toMatch(
      /^Gold action 1, create_task\(.*\), was never done: this is the agent's last turn\.$/,
    );
    expect(last.simulation.messages.findLastIndex((m) => m.role === "assistant")).toBe(
      divergence.messageIndex,
    );
    // The grid knows each task's purpose.
    const detail = (await (await server.request(`/api/runs/${run.id}`)).json()) as RunDetail;
    expect(detail.grid.find((r) => r.taskId === "create_task_1")!.title).toBe(
      "Test the create_task functionality",
    );
  });

  it("renames and deletes runs, and notices a file imported twice", async () => {
    const server = app();
    const first = await upload(server, baseline, "twice.json");
    const { run } = (await first.json()) as { run: RunSummary };
    const again = await upload(server, baseline, "twice-again.json");
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      code: "duplicate_import",
      message: `this file was imported before, as run "twice.json"; import it again only if you want two copies of its simulations`,
      runId: run.id,
    });
    expect(((await (await server.request("/api/runs")).json()) as RunList).runs).toHaveLength(1);
    const forced = await server.request(`/api/runs/import?name=copy.json&again=true`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(baseline),
    });
    expect(forced.status).toBe(201);
    const copy = ((await forced.json()) as { run: RunSummary }).run;

    const renamed = await server.request(`/api/runs/${run.id}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ label: "  the baseline  " }),
    });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { run: RunSummary }).run.label).toBe("the baseline");
    const empty = await server.request(`/api/runs/${run.id}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ label: " " }),
    });
    expect(empty.status).toBe(400);

    // A prefix never names a run to delete (404, or 400 where the store finds the prefix ambiguous).
    expect([400, 404]).toContain(
      (await server.request(`/api/runs/${copy.id.slice(0, 4)}`, { method: "DELETE" })).status,
    );
    expect(((await (await server.request("/api/runs")).json()) as RunList).runs).toHaveLength(2);
    const deleted = await server.request(`/api/runs/${copy.id}`, { method: "DELETE" });
    expect(await deleted.json()).toEqual({ id: copy.id, simulations: 12 });
    expect((await server.request(`/api/runs/${copy.id}`)).status).toBe(404);
    expect(((await (await server.request("/api/runs")).json()) as RunList).runs.map((r) => r.label)).toEqual([
      "the baseline",
    ]);
  });

  it("refuses renaming or deleting a run from another origin, and changes nothing", async () => {
    const server = app();
    const { run } = (await (await upload(server, baseline, "mine.json")).json()) as { run: RunSummary };
    const foreign = { Origin: "http://evil.example", "Content-Type": "application/json" };
    const rename = await server.request(`http://localhost/api/runs/${run.id}`, {
      method: "PATCH",
      headers: foreign,
      body: JSON.stringify({ label: "pwned" }),
    });
    expect(rename.status).toBe(403);
    const remove = await server.request(`http://localhost/api/runs/${run.id}`, {
      method: "DELETE",
      headers: { Origin: "http://evil.example" },
    });
    expect(remove.status).toBe(403);
    const list = (await (await server.request("/api/runs")).json()) as RunList;
    expect(list.runs.map((r) => r.label)).toEqual(["mine.json"]);
  });

  it("gives an agent's pass^k on a domain from its latest run there", async () => {
    const server = app();
    await upload(server, baseline, "old.json");
    const { run } = (await (await upload(server, candidate, "new.json")).json()) as { run: RunSummary };
    const score = async (agent: string, domain = "mock") =>
      AgentScoreSchema.parse(
        await (
          await server.request(`/api/domains/${domain}/agent-score?agent=${encodeURIComponent(agent)}`)
        ).json(),
      );
    // candidate: update_task_1 passes 1 of 4, the other two tasks 4 of 4.
    const candidateScore = await score("openai:candidate");
    expect(candidateScore.run).toMatchObject({ id: run.id, name: "new.json", tasks: 3, trials: 4 });
    expect(candidateScore.run!.passHatKs["1"]).toBeCloseTo((1 + 1 + 0.25) / 3, 12);
    expect(candidateScore.run!.passHatKs["4"]).toBeCloseTo(2 / 3, 12);
    expect((await score("scripted:gold")).run?.name).toBe("old.json");
    expect((await score("openai:never-run")).run).toBeNull();
    expect((await server.request("/api/domains/nope/agent-score?agent=x")).status).toBe(404);
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
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
      },
      store: sqliteRunCatalog(store),
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
    // The simulation's page gets the whole review, with what it rests on.
    const evidence = [{ turn: 1, who: "customer", quote: "Okay, I've created it myself. ###STOP###" }];
    store.putReview(
      run.id,
      { domain: "mock", task_id: "create_task_1", trial: 1 },
      { ...review("user_simulator", "left early"), check: "customer-claimed-undone-action", evidence },
    );
    const simulation = (await (
      await server.request(`/api/runs/${run.id}/simulations/mock/create_task_1/1`)
    ).json()) as { review: unknown };
    expect(simulation.review).toEqual({
      ...review("user_simulator", "left early"),
      check: "customer-claimed-undone-action",
      evidence,
    });
    const unreviewed = (await (
      await server.request(`/api/runs/${run.id}/simulations/mock/create_task_1/0`)
    ).json()) as { review: unknown };
    expect(unreviewed.review).toBeNull();
    store.close();
  });
});
