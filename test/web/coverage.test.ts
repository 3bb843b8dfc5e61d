import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// A run whose provider failed on 8 of its 10 tasks: 32 of 40 conversations are infrastructure errors,
// the 8 graded ones pass. No page may show its 100% without "graded 8 of 40".
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
const TASKS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let runId = "";

beforeAll(async () => {
  ensureWebBuilt();
  const results = await buildResults(airline, { taskIds: TASKS, trials: 4, fails: () => false });
  for (const simulation of results.simulations) {
    if (simulation.task_id === "0" || simulation.task_id === "1") continue;
    simulation.termination_reason = "infrastructure_error";
    simulation.reward_info = null;
  }
  const store = memoryRunCatalog();
  runId = store.importResults(parseResults(JSON.stringify(results), "mostly-infra.json"), {
    label: "mostly infra",
    domain: "airline",
  });
  web = await startWebServer({ store });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

describe("a run with 32 of 40 conversations not graded, in Chromium", () => {
  it("the runs list, the run page, its grid and the playground strip say graded 8 of 40", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);

    await page.goto(`${web.url}/#/runs`);
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor();
    expect(await row.locator(".pass-1").innerText()).toBe("100.0% graded 8 of 40");
    expect(await row.locator(".pass-k").innerText()).toMatch(/^100\.0% k=4 graded 8 of 40$/);

    await page.goto(`${web.url}/#/runs/${runId}`);
    const stats = page.locator(".stats .stat");
    await stats.first().waitFor();
    for (const stat of await stats.allInnerTexts())
      if (/100\.0%|1\.000/.test(stat)) expect(stat).toContain("graded 8 of 40");
    expect(await page.getByRole("note").innerText()).toContain("graded 8 of 40 conversations");
    const scores = await page.getByTestId("run-grid").locator(".grid-score").allInnerTexts();
    expect(scores.filter((s) => s === "not graded")).toHaveLength(8);
    expect(scores.filter((s) => s === "4/4")).toHaveLength(2);
    expect(scores.some((s) => s.startsWith("0/"))).toBe(false);

    await page.goto(`${web.url}/#/`);
    const strip = page.getByTestId("agent-score");
    await strip.getByTestId("agent-pass-1").waitFor();
    expect(await strip.getByTestId("agent-pass-1").innerText()).toBe("100.0%");
    expect(await strip.getByTestId("agent-coverage").innerText()).toBe("graded 8 of 40");
    await page.close();
  });
});
