import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { RunViews } from "../../src/server/run-views.js";
import { writeStaticExport } from "../../src/server/static-export.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium, WEB_DIST } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { sharedDomainData } from "./helpers/web-server.js";

// A run exported with `passk export --format html`, opened from disk (file://) as someone it was
// shared with would: no server anywhere. Task 7 fails in trial 1, task 11 in both; the customer of
// task 7's failing trial writes markup that must stay text.
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
const HOSTILE = "</script><script>window.__pwned = 1</script><img src=x onerror=window.__pwned=2>";
let folder: string;
let runId: string;
let indexUrl: string;
let views: RunViews;
let browser: Awaited<ReturnType<typeof launchChromium>>;
/** Requests any page made to anything but the exported folder (there must be none). */
const outside: string[] = [];

beforeAll(async () => {
  ensureWebBuilt();
  folder = mkdtempSync(path.join(tmpdir(), "passk-static-web-"));
  const results = await buildResults(airline, {
    taskIds: ["0", "7", "11"],
    trials: 2,
    fails: (task, trial) => task === "11" || (task === "7" && trial === 1),
  });
  const hostile = results.simulations.find((s) => s.task_id === "7" && s.trial === 1)!;
  const opening = hostile.messages.findIndex((m) => m.role === "user");
  hostile.messages[opening]!.content = `${HOSTILE} ${String(hostile.messages[opening]!.content)}`;
  const memory = memoryRunCatalog();
  runId = memory.importResults(parseResults(JSON.stringify(results), "shared.json"), {
    label: "shared run",
    domain: "airline",
  });
  // A verdict as `passk review` stores it, on task 7's failing trial.
  const store = {
    ...memory,
    reviews: () => [
      {
        domain: "airline",
        task_id: "7",
        trial: 1,
        review: {
          culprit: "agent",
          turn: 2,
          reason: "the agent skipped the cancellation the customer asked for",
          source: "check",
          check: "example-check",
          evidence: [{ turn: 2, who: "agent", quote: "Done." }],
        },
      },
    ],
  };
  views = new RunViews(store, (name) => (name === "airline" ? airline : undefined));
  writeStaticExport({ source: views, runId, webRoot: WEB_DIST, outDir: path.join(folder, "site") });
  indexUrl = pathToFileURL(path.join(folder, "site", "index.html")).href;
  browser = await launchChromium();
  browser.context.on("request", (request) => {
    if (!request.url().startsWith("file:")) outside.push(request.url());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function openPage(hash = ""): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${indexUrl}${hash}`);
  return page;
}

const hashOf = (page: Page) => decodeURIComponent(new URL(page.url()).hash);
const cell = (page: Page, task: string, trial: number) =>
  page.locator(`a.grid-cell[aria-label^="task ${task} trial ${trial}:"]`);

describe("a run exported as a static folder, opened from disk", () => {
  it("shows the run with pass^k and opens a simulation's transcript, review and reward, hostile text as text", async () => {
    const page = await openPage();
    // The first page of the folder is its run (no playground, no runs list: those need a server).
    await page.getByRole("heading", { level: 1, name: /shared run/ }).waitFor();
    await expect.poll(() => page.getByTestId("static-export").innerText()).toBe("static export");
    await expect
      .poll(() => page.locator("header.top").innerText())
      .toMatch(/exported \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(await page.getByRole("link", { name: "Playground" }).count()).toBe(0);
    // pass^1 = mean(1, 1/2, 0) = 50.0%; pass^2 = mean(1, 0, 0) = 33.3%.
    const main = page.locator("main");
    await expect.poll(() => main.innerText()).toMatch(/pass\^1\s+50\.0%[\s\S]*pass\^2\s+33\.3%/);
    await expect.poll(() => cell(page, "7", 1).getAttribute("data-culprit")).toBe("agent");

    await cell(page, "7", 1).click();
    await expect.poll(() => hashOf(page)).toBe(`#/runs/${runId}/simulations/airline/7/1`);
    await page.getByRole("heading", { level: 1, name: /7 · trial 1/ }).waitFor();
    await page.locator(".bubble", { hasText: HOSTILE }).waitFor();
    // The review's verdict and the reward breakdown, beside the transcript.
    await expect
      .poll(() => page.getByTestId("review").innerText())
      .toContain("the agent skipped the cancellation the customer asked for");
    await expect.poll(() => main.innerText()).toMatch(/Reward\s+0\.00/);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    await page.close();
    expect(outside).toEqual([]);
  });

  it("searches the transcripts, opens a hit at its turn and the trials page, and reloads deep links", async () => {
    const page = await openPage(`#/runs/${runId}`);
    // Words in many transcripts: the hits the server's search finds, in its order.
    const served = views.search(runId, "reservation");
    expect(served.hits.length).toBeGreaterThan(3);
    await page
      .getByRole("searchbox", { name: "Words to find in this run's transcripts" })
      .fill("reservation");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect
      .poll(() => page.getByTestId("search-summary").innerText())
      .toBe(`${served.hits.length} messages hold “reservation” (6 conversations searched).`);
    expect(await page.locator(".search-hits a").allInnerTexts()).toEqual(
      served.hits.map((hit) =>
        expect.stringContaining(`${hit.taskId} · trial ${hit.trial} · message ${hit.messageIndex} (`),
      ),
    );

    await page.getByRole("searchbox", { name: "Words to find in this run's transcripts" }).fill("__pwned");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect
      .poll(() => page.getByTestId("search-summary").innerText())
      .toBe("1 messages hold “__pwned” (6 conversations searched).");
    await page.locator(".search-hits a").first().click();
    await expect
      .poll(() => hashOf(page))
      .toMatch(new RegExp(`^#/runs/${runId}/simulations/airline/7/1/turn/\\d+$`));
    await page.getByRole("heading", { level: 1, name: /7 · trial 1/ }).waitFor();
    await page.locator(".bubble", { hasText: HOSTILE }).waitFor();

    // Where trial 1 parts ways with trial 0 of the same task.
    await page.getByRole("link", { name: "trial 0", exact: true }).click();
    await expect.poll(() => hashOf(page)).toBe(`#/trials/airline/7/${runId}/1/${runId}/0`);
    await page.getByRole("heading", { level: 1, name: /Trial 1 vs Trial 0/ }).waitFor();
    await expect
      .poll(() => page.getByTestId("trial-divergence").innerText())
      .toMatch(/They part ways at turn/);

    // A link into the folder opens where it points, after a reload too.
    await page.goto(`${indexUrl}#/runs/${runId}/simulations/airline/11/0`);
    await page.getByRole("heading", { level: 1, name: /11 · trial 0/ }).waitFor();
    await page.reload();
    await page.getByRole("heading", { level: 1, name: /11 · trial 0/ }).waitFor();
    await page.close();
    expect(outside).toEqual([]);
  });
});
