import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import type { AgentScore, RunDetail } from "../../src/server/api-schemas.js";
import { runCatalog } from "../../src/server/run-catalog.js";
import { MemoryRunStore } from "../../src/store/memory-run-store.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// The explorer's robustness table: a clean run and a perturbed run of the same configuration, as
// `passk robustness` stores them (completed), shown on either run's page.
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
const TASKS = ["0", "1", "7", "8", "11", "14"];
// Clean, of 4 trials: 0, 1, 8 pass all; 7 passes 2, 11 none, 14 three → pass^4 = 3/6 = 0.5.
const CLEAN_FAILS = (task: string, trial: number) =>
  (task === "7" && trial % 2 === 1) || task === "11" || (task === "14" && trial === 2);
// Perturbed: task 8 also fails trial 0 → pass^4 = 2/6; the drop is 1/6 (task 8 broke), 2/3 kept.
const PERTURBED_FAILS = (task: string, trial: number) =>
  CLEAN_FAILS(task, trial) || (task === "8" && trial === 0);

// Stored as `passk run` wrote configurations before the typed spec: the store reads them as the spec.
const config = (perturbations?: string[]) => ({
  kind: "passk-run",
  version: 1,
  domains: ["airline"],
  data: tau2DataDir(),
  selection: { split: "base", task_ids: TASKS, num_tasks: null },
  num_trials: 4,
  seed: 300,
  max_steps: 200,
  max_errors: 10,
  solo: false,
  protocol: "tau2",
  models: { agentLlm: "openai:gpt-4.1", userLlm: "openai:gpt-4.1" },
  save_to: null,
  scripted_demo: false,
  ...(perturbations ? { perturbations } : {}),
});

let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const runs = { clean: "", perturbed: "" };
let marked = { task: "", trial: 0 };

beforeAll(async () => {
  ensureWebBuilt();
  const runStore = new MemoryRunStore();
  // As `passk run` stores a finished run: its configuration, status completed, tasks and simulations.
  const add = async (fails: typeof CLEAN_FAILS, label: string, runConfig: ReturnType<typeof config>) => {
    const results = await buildResults(airline, { taskIds: TASKS, trials: 4, fails });
    const withConfig = { ...results, info: { ...results.info, passk: { config: runConfig } } };
    if (runConfig.perturbations) {
      // As `passk run --perturb` records it: the first tool result of a conversation was a timeout.
      const simulation = withConfig.simulations.find((s) => s.messages.some((m) => m.role === "tool"))!;
      marked = { task: simulation.task_id, trial: simulation.trial ?? 0 };
      const tool = simulation.messages.find((m) => m.role === "tool")!;
      Object.assign(tool, { perturbations: [{ perturbation: "tool-faults@1", effect: "timeout" }] });
    }
    const parsed = parseResults(JSON.stringify(withConfig), `${label}.json`).results;
    const { id } = runStore.createRun({
      status: "completed",
      label,
      numTrials: 4,
      config: runConfig,
      info: parsed.info,
      timestamp: parsed.timestamp ?? null,
    });
    runStore.putTasks(id, "airline", parsed.tasks);
    for (const simulation of parsed.simulations) runStore.putSimulation(id, "airline", simulation);
    return id;
  };
  runs.clean = await add(CLEAN_FAILS, "clean", config());
  runs.perturbed = await add(PERTURBED_FAILS, "tool faults", config(["tool-faults@1:rate=0.2"]));
  web = await startWebServer({ store: runCatalog(runStore) });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

describe("the explorer's robustness table", () => {
  it("the API pairs a perturbed run with its clean baseline", async () => {
    const detail = (await (await fetch(`${web.url}/api/runs/${runs.perturbed}`)).json()) as RunDetail;
    expect(detail.robustness).toHaveLength(1);
    const row = detail.robustness![0]!;
    expect(row).toMatchObject({
      perturbation: "tool-faults@1:rate=0.2",
      k: 4,
      tasks: 6,
      clean: 0.5,
      broke: ["airline/8"],
      runId: runs.perturbed,
      baselineRunId: runs.clean,
    });
    expect(row.perturbed).toBeCloseTo(2 / 6, 12);
    expect(row.drop).toBeCloseTo(1 / 6, 12);
    expect(row.kept).toBeCloseTo(2 / 3, 12);
  });

  it("labels the perturbed run in the runs list and compare title; the playground strip never takes it", async () => {
    const score = (await (
      await fetch(`${web.url}/api/domains/airline/agent-score?agent=scripted:gold`)
    ).json()) as AgentScore;
    expect(score.run?.id).toBe(runs.clean);
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${web.url}/#/runs`);
    await page.locator(`tr[data-run-id="${runs.perturbed}"]`).waitFor();
    expect(await page.locator(`tr[data-run-id="${runs.perturbed}"] .perturbed`).innerText()).toBe(
      "perturbed: --perturb tool-faults@1:rate=0.2",
    );
    expect(await page.locator(`tr[data-run-id="${runs.clean}"] .perturbed`).count()).toBe(0);
    await page.goto(`${web.url}/#/compare/${runs.clean}/${runs.perturbed}`);
    const title = page.locator(".page-head h1");
    await title.locator(".perturbed").waitFor();
    expect(await title.innerText()).toMatch(
      /^clean → tool faults\s*perturbed: --perturb tool-faults@1:rate=0\.2$/,
    );
    await page.close();
  });

  for (const width of [1280, 390] as const) {
    it(`fits the runs list in the screen, perturbed and clean told apart at a glance (${width} px)`, async () => {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
      page.setDefaultTimeout(15_000);
      await page.goto(`${web.url}/#/runs`);
      const perturbed = page.locator(`tr[data-run-id="${runs.perturbed}"]`);
      const clean = page.locator(`tr[data-run-id="${runs.clean}"]`);
      await perturbed.waitFor();
      // Nothing wider than the window: no sideways scroll of the page.
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      // pass^k, cost, date and delete of every row are on screen, not scrolled off to the right.
      for (const row of [perturbed, clean]) {
        for (const cell of [
          row.locator("td.pass-k"),
          row.locator('td[data-label="Cost"]'),
          row.locator('td[data-label="Date"]'),
          row.getByRole("button", { name: /^Delete / }),
        ]) {
          const box = await cell.boundingBox();
          expect(box).not.toBeNull();
          expect(box!.x).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width).toBeLessThanOrEqual(width + 0.5);
        }
      }
      // The perturbed run says so in its row, visibly (not only in a tooltip); the clean one does not.
      const badge = perturbed.locator(".perturbed");
      expect(await badge.isVisible()).toBe(true);
      expect(await badge.innerText()).toMatch(/^perturbed/);
      expect(await clean.locator(".perturbed").count()).toBe(0);
      await page.close();
    });
  }

  it("shows the table and chart on the clean run's page", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${web.url}/#/runs/${runs.clean}`);
    const table = page.getByRole("table", { name: "Robustness table" });
    await table.waitFor();
    const cells = await table.locator("tbody tr").first().locator("td").allInnerTexts();
    expect(cells.slice(0, 4)).toEqual(["tool-faults@1:rate=0.2", "6", "0.500", "0.333"]);
    expect(cells[4]).toMatch(/^0\.167 \[0\.00, 0\.50\]$/);
    expect(cells[6]).toBe("66.7%");
    expect(cells[7]).toBe("airline/8");
    expect(await page.getByTestId("robustness-chart").count()).toBe(1);
    await page.close();
  });

  it("marks what a perturbation did on the message it changed", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${web.url}/#/runs/${runs.perturbed}/simulations/airline/${marked.task}/${marked.trial}`);
    const tag = page.getByTestId("perturbation");
    await tag.waitFor();
    expect(await tag.allInnerTexts()).toEqual(["⚡ tool-faults@1: timeout"]);
    await page.close();
  });
});
