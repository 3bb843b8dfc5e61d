import { describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import { builtinDomains } from "../domains/registry.js";
import { tau2DataDir, fixtureDomainData } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { buildResults } from "../../test/web/helpers/seed-results.js";
import type { RunDetail, RunSummary } from "./api-schemas.js";
import { createServer } from "./create-server.js";
import { memoryRunCatalog } from "./run-catalog.js";

// Retail task 2's gold actions look up product 6086499569, which its database does not hold (the
// reference's replay raises there too): the explorer's grid marks the task, naming the action and error.
describe("the run grid marks task defects", () => {
  it("a task whose gold action raises carries the warning; a sound task carries none", async () => {
    const retail = fixtureDomainData("retail");
    const results = await buildResults(retail, { taskIds: ["2", "5"], trials: 1, fails: () => false });
    const server = createServer({
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
    const imported = await server.request("/api/runs/import?name=retail.json", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(results),
    });
    expect(imported.status, await imported.clone().text()).toBe(201);
    const { run } = (await imported.json()) as { run: RunSummary };
    const detail = (await (await server.request(`/api/runs/${run.id}`)).json()) as RunDetail;
    const rows = new Map(detail.grid.map((row) => [row.taskId, row]));
    expect(rows.get("2")!.defects).toEqual([
      'task defect: gold action 2, get_product_details({"product_id":"6086499569"}), raises: Product not found',
    ]);
    expect(rows.get("5")!.defects).toBeUndefined();
  });
});
