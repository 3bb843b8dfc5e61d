import { beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import type { Results } from "../core/simulation.js";
import { builtinDomains } from "../domains/registry.js";
import { tau2DataDir, fixtureDomainData } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { buildResults } from "../../test/web/helpers/seed-results.js";
import { AgentScoreSchema, type AgentScore, type RunSummary } from "./api-schemas.js";
import { createServer } from "./create-server.js";
import { memoryRunCatalog } from "./run-catalog.js";

// The playground's strip must put the right run on top: the newest clean run of the agent (and customer
// model) on the full base split — not a newer subset, not another customer's run — and label what it
// falls back to.
const mock = fixtureDomainData("mock");
const BASE = mock.splits!.base!;
let full: Results;
let subset: Results;
let scripted: Results;
beforeAll(async () => {
  full = await buildResults(mock, { taskIds: BASE, trials: 1, fails: () => false, model: "openai:m" });
  subset = await buildResults(mock, {
    taskIds: ["create_task_1"],
    trials: 1,
    fails: () => false,
    model: "openai:m",
    start: new Date("2025-06-03T12:00:00Z"),
  });
  scripted = await buildResults(mock, { taskIds: ["create_task_1"], trials: 1, fails: () => false });
});

describe("the agent score strip's run", () => {
  const server = () =>
    createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
      },
      store: memoryRunCatalog(),
    });
  const upload = async (app: ReturnType<typeof server>, results: Results, name: string) => {
    const response = await app.request(`/api/runs/import?name=${name}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(results),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return ((await response.json()) as { run: RunSummary }).run.id;
  };
  const score = async (app: ReturnType<typeof server>, query: string): Promise<AgentScore> =>
    AgentScoreSchema.parse(await (await app.request(`/api/domains/mock/agent-score?${query}`)).json());

  it("takes the newest clean full-split run over a newer subset, for the chosen customer model", async () => {
    const app = server();
    const fullId = await upload(app, full, "full.json");
    await upload(app, subset, "subset.json");
    const chosen = await score(app, "agent=openai:m&user=scripted:gold");
    expect(chosen.run).toMatchObject({ id: fullId, labels: [], tasks: BASE.length });
    expect(chosen.run!.intervals["1"]).toEqual({ low: expect.any(Number), high: expect.any(Number) });
    expect((await score(app, "agent=openai:m&user=openai:other")).run).toBeNull();
  });

  it("labels what it falls back to: a subset, a scripted demo", async () => {
    const app = server();
    await upload(app, subset, "subset.json");
    await upload(app, scripted, "scripted.json");
    expect((await score(app, "agent=openai:m")).run!.labels).toEqual([
      "subset: 9 of 10 base-split tasks not run (a task subset)",
    ]);
    expect((await score(app, "agent=scripted:gold")).run!.labels).toEqual([
      "scripted demo",
      "subset: 9 of 10 base-split tasks not run (a task subset)",
    ]);
  });
});
