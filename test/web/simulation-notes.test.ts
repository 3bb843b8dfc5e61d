import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// A maintainer reading a failed simulation decides the task, not the agent, is at fault: they write a
// note flagged as a task issue, find it again after a reload, and see the flag on the run's grid.
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let runId: string;
let readOnlyWeb: WebServer;
let readOnlyRunId: string;

beforeAll(async () => {
  ensureWebBuilt();
  const results = await buildResults(airline, {
    taskIds: ["7", "8"],
    trials: 2,
    fails: (task, trial) => task === "7" && trial === 1,
  });
  const file = () => parseResults(JSON.stringify(results), "notes.json");
  const store = memoryRunCatalog();
  runId = store.importResults(file(), { label: "noted run", domain: "airline" });
  web = await startWebServer({ store });
  // A store that keeps no notes: the explorer shows the section read-only.
  const { notes: _notes, ...readOnly } = memoryRunCatalog();
  readOnlyRunId = readOnly.importResults(file(), { label: "read-only run", domain: "airline" });
  readOnlyWeb = await startWebServer({ store: readOnly });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
  await readOnlyWeb?.kill();
});

async function openPage(): Promise<Page> {
  const page = await browser.context.newPage();
  // Waits are on state; the limit is far above the slowest step measured on a loaded machine.
  page.setDefaultTimeout(30_000);
  return page;
}

const simulationUrl = (base: string, run: string) => `${base}/#/runs/${run}/simulations/airline/7/1`;

describe("notes on a simulation", () => {
  it("adds a note flagged as a task issue, keeps it across a reload, marks the run's grid, and deletes it", async () => {
    const page = await openPage();
    try {
      await page.goto(simulationUrl(web.url, runId));
      const notes = page.getByTestId("notes");
      await notes.getByText("No notes on this simulation.").waitFor();

      await notes.getByLabel("New note").fill("The gold actions cancel a booking the customer never named.");
      await notes.getByLabel("Flag as task issue").check();
      await notes.getByLabel("Task issue category").fill("gold action wrong");
      await notes.getByRole("button", { name: "Add note" }).click();
      const item = notes.getByRole("listitem").filter({ hasText: "never named" });
      await item.waitFor();
      // The form is cleared for the next note.
      await expect.poll(() => notes.getByLabel("New note").inputValue()).toBe("");

      await page.reload();
      await item.waitFor();
      expect(await item.getAttribute("data-task-issue")).toBe("true");
      expect(await item.locator(".task-issue").textContent()).toBe("⚑ task issue: gold action wrong");
      expect(await notes.getByRole("listitem").count()).toBe(1);

      // The run's grid flags that simulation, and only it; the filter keeps its task.
      await page.goto(`${web.url}/#/runs/${runId}`);
      const grid = page.getByTestId("run-grid");
      const flagged = grid.locator('.grid-cell[data-task-issue="true"]');
      await flagged.first().waitFor();
      expect(await flagged.count()).toBe(1);
      expect(await flagged.getAttribute("aria-label")).toMatch(
        /^task 7 trial 1: .*; flagged as a task issue$/,
      );
      expect(await grid.locator(".grid-cell").count()).toBe(4);
      await page.getByRole("button", { name: "⚑ task issues 1" }).click();
      await page.getByText("1 of 2 tasks with a simulation flagged as a task issue").waitFor();

      // Deleting the note takes the flag away.
      await flagged.click();
      await item.waitFor();
      await item.getByRole("button", { name: /^Delete note/ }).click();
      await notes.getByText("No notes on this simulation.").waitFor();
      await page.goto(`${web.url}/#/runs/${runId}`);
      await grid.locator(".grid-cell").first().waitFor();
      expect(await grid.locator('.grid-cell[data-task-issue="true"]').count()).toBe(0);
      expect(await page.getByRole("button", { name: /task issues/ }).count()).toBe(0);
      // The filter kept for the tab lapses with the last flag: every task shows again.
      await page.getByText("2 of 2 tasks. Click a cell to open the simulation.").waitFor();
    } finally {
      await page.close();
    }
  }, 180_000);

  it("offers no form where the store keeps no notes", async () => {
    const page = await openPage();
    try {
      await page.goto(simulationUrl(readOnlyWeb.url, readOnlyRunId));
      const notes = page.getByTestId("notes");
      await notes.getByText("This server's store keeps no notes: they are read-only here.").waitFor();
      expect(await notes.getByLabel("New note").count()).toBe(0);
      expect(await notes.getByRole("button", { name: "Add note" }).count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 120_000);
});
