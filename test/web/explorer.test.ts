import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { memoryRunCatalog, type RunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { buildOfficialResults } from "../helpers/official-results.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// The explorer as an engineer debugging a regression uses it: from a run to its failing simulation,
// to where that simulation departs from the gold actions, in a few clicks or keys.
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
const telecom = sharedDomainData(builtinDomains.get("telecom")!, tau2DataDir());
const TELECOM_TASK = "[service_issue]airplane_mode_on[PERSONA:None]";
// Successes of 4 trials: 0 → 4, 1 → 4, 7 → 2 (trials 1 and 3 fail), 8 → 4, 11 → 0, 14 → 3 (trial 2 fails).
const TASKS = ["0", "1", "7", "8", "11", "14"];
const FAILS = (task: string, trial: number) =>
  (task === "7" && trial % 2 === 1) || task === "11" || (task === "14" && trial === 2);
let store: RunCatalog;
const SEEDED_REVIEW = {
  domain: "airline",
  task_id: "7",
  trial: 1,
  review: {
    culprit: "agent",
    turn: 10,
    reason: "the agent answered with a number instead of cancelling 59XX6W",
    source: "check",
    check: "example-check",
    evidence: [
      { turn: 10, who: "agent", quote: "1628" },
      {
        turn: null,
        who: "task",
        quote: 'gold action cancel_reservation({"reservation_id":"59XX6W"}) was never done',
      },
    ],
  },
};
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let folder: string;
const runs: Record<"seeded" | "candidate" | "single" | "telecom" | "long", string> = {
  seeded: "",
  candidate: "",
  single: "",
  telecom: "",
  long: "",
};
/** A customer who explains at length (as real ones do): one message far past the fold. */
const LONG_STORY =
  "Hi there, so the thing is that I booked these flights a while ago for a family trip and since then a lot has changed. ".repeat(
    14,
  ) + "Anyway, please cancel reservation XEHM4B.";

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  folder = mkdtempSync(path.join(tmpdir(), "passk-explorer-web-"));
  // Reviews as `passk review` stores them (the memory store keeps none of its own).
  const memory = memoryRunCatalog();
  store = { ...memory, reviews: (runId) => (runId === runs.seeded ? [SEEDED_REVIEW] : []) };
  const add = (results: unknown, label: string, domain = "airline") =>
    store.importResults(parseResults(JSON.stringify(results), `${label}.json`), { label, domain });
  runs.seeded = add(await buildResults(airline, { taskIds: TASKS, trials: 4, fails: FAILS }), "seeded run");
  // The candidate fails task 7 in every trial: a regression.
  runs.candidate = add(
    await buildResults(airline, {
      taskIds: TASKS,
      trials: 4,
      fails: (task, trial) => task === "7" || FAILS(task, trial),
      model: "openai:candidate",
      start: new Date("2025-06-02T12:00:00Z"),
    }),
    "candidate run",
  );
  runs.single = add(
    await buildResults(airline, { taskIds: ["7", "8"], trials: 1, fails: (task) => task === "7" }),
    "one trial",
  );
  runs.telecom = add(
    buildOfficialResults(telecom, [
      { task: TELECOM_TASK, trial: 0, variant: "missing_action" },
      { task: TELECOM_TASK, trial: 1, variant: "gold" },
    ]),
    "telecom run",
    "telecom",
  );
  const long = await buildResults(airline, { taskIds: ["7"], trials: 1, fails: () => false });
  const opening = long.simulations[0]!.messages.findIndex((m) => m.role === "user");
  long.simulations[0]!.messages[opening]!.content = LONG_STORY;
  runs.long = add(long, "long messages");
  web = await startWebServer({ store });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
  rmSync(folder, { recursive: true, force: true });
});

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(15_000);
  return page;
}

const WIDTHS = [1280, 390] as const;
const simulationHash = (runId: string, task: string, trial: number, domain = "airline") =>
  `#/runs/${runId}/simulations/${domain}/${encodeURIComponent(task)}/${trial}`;
const hashOf = (page: Page) => decodeURIComponent(new URL(page.url()).hash);
const noSidewaysScroll = async (page: Page) =>
  (await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")) === true;

describe("the explorer in Chromium", () => {
  for (const width of WIDTHS) {
    it(`opens a failing simulation where it departs from the gold actions, and walks the run by keys (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/${simulationHash(runs.seeded, "7", 1)}`);
      const verdict = page.getByTestId("divergence");
      await verdict.waitFor();
      // The forgetful agent did four of the five gold actions, then answered instead of cancelling
      // 59XX6W: that answer (turn 10, "1628") is where the trajectory departs; the banner, the review
      // and the message's own number count turns alike.
      expect(await verdict.innerText()).toMatch(
        /^Turn 10 is where the trajectory departs from the gold actions\. Gold action 5, cancel_reservation\(\{"reservation_id":"59XX6W"\}\), was never done: this is the agent's last turn\./,
      );
      const marked = page.locator(".messages li.marked");
      expect(await marked.count()).toBe(1);
      expect(await marked.getAttribute("data-index")).toBe("10");
      expect(await marked.locator(".bubble").innerText()).toBe("1628");
      expect(await marked.locator(".turn-number").innerText()).toBe("#10");
      // The review beside what failed: who, at which turn, why, and what it rests on.
      const reviewed = page.getByTestId("review");
      expect(await reviewed.innerText()).toContain(
        "Who caused it: the agent at turn 10 (check example-check)",
      );
      expect(await reviewed.innerText()).toContain(
        "the agent answered with a number instead of cancelling 59XX6W",
      );
      expect(await reviewed.getByRole("list", { name: "Evidence" }).locator("li").allInnerTexts()).toEqual([
        "agent, turn 10: 1628",
        'task: gold action cancel_reservation({"reservation_id":"59XX6W"}) was never done',
      ]);
      // The full gold action list: four done, the fifth not, and it is the one expected there.
      const gold = page.getByTestId("gold-actions").locator("li");
      expect(await gold.count()).toBe(5);
      expect(await gold.evaluateAll((items) => items.map((li) => li.className.trim()))).toEqual([
        "matched",
        "matched",
        "matched",
        "matched",
        "unmatched expected",
      ]);
      // The customer's scenario, as the task gives it.
      expect(await page.locator(".scenario-view").innerText()).toContain(
        "You want to cancel your upcoming flights within reservation IDs XEHM4B and 59XX6W.",
      );
      // Lists are compared element by element: the one payment that differs, not the whole history.
      const paths = await page.getByTestId("db-diff").locator(".diff-path").allInnerTexts();
      expect(paths.map((p) => p.replace(/\s+/g, ""))).toEqual(["payment_history[1]", "status"]);
      expect(await page.getByTestId("position").innerText()).toMatch(/^10 of 24 /);
      expect(await noSidewaysScroll(page)).toBe(true);
      await page.screenshot({ path: path.join(SCREENS, `explorer-simulation-${width}.png`), fullPage: true });

      // ← → move through the run; with Shift, through its failures only; j and k too.
      await page.keyboard.press("ArrowRight");
      await expect.poll(() => hashOf(page)).toBe(simulationHash(runs.seeded, "7", 2));
      await page
        .getByTestId("position")
        .filter({ hasText: /^11 of 24/ })
        .waitFor();
      await page.keyboard.press("Shift+ArrowRight");
      await expect.poll(() => hashOf(page)).toBe(simulationHash(runs.seeded, "7", 3));
      await page
        .getByTestId("position")
        .filter({ hasText: /^12 of 24/ })
        .waitFor();
      await page.keyboard.press("Shift+ArrowRight");
      await expect.poll(() => hashOf(page)).toBe(simulationHash(runs.seeded, "11", 0));
      await page
        .getByTestId("position")
        .filter({ hasText: /^17 of 24/ })
        .waitFor();
      await page.keyboard.press("Shift+ArrowLeft");
      await expect.poll(() => hashOf(page)).toBe(simulationHash(runs.seeded, "7", 3));
      await page
        .getByTestId("position")
        .filter({ hasText: /^12 of 24/ })
        .waitFor();
      await page.keyboard.press("k");
      await expect.poll(() => hashOf(page)).toBe(simulationHash(runs.seeded, "7", 2));
      await page.close();
    });
  }

  for (const width of WIDTHS) {
    it(`says a telecom failure is on the customer's device, never "no differences" under a failed check (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/${simulationHash(runs.telecom, TELECOM_TASK, 0, "telecom")}`);
      const diffs = page.getByTestId("db-diff");
      await diffs.first().waitFor();
      expect(await page.locator(".page-head h1").innerText()).toMatch(
        /^service issue · airplane mode on · no persona · trial 0/,
      );
      const database = page.locator(".check-section", { has: page.locator("h4", { hasText: "Database" }) });
      expect(await database.innerText()).toContain(
        "the customer's side (their device and account as they see it) differs from the gold one; the agent's database matches",
      );
      // The customer's side first, with the field that differs; then the agent's, equal, saying where the difference is.
      expect(await diffs.count()).toBe(2);
      expect(await diffs.nth(0).locator("h3").innerText()).toMatch(/^Customer's side/);
      const row = diffs
        .nth(0)
        .locator(".diff-row", { has: page.locator(".diff-path", { hasText: /^airplane_mode$/ }) });
      expect(await row.locator(".diff-old .value").innerText()).toBe("true");
      expect(await row.locator(".diff-new .value").innerText()).toBe("false");
      expect(await diffs.nth(1).innerText()).toContain(
        "Equal to the gold one: the difference is on the customer's side (above).",
      );
      expect(await page.locator("main").innerText()).not.toContain("No differences");
      // The customer never turned airplane mode off.
      expect(await page.getByTestId("divergence").innerText()).toContain(
        "Gold action 1, the customer's toggle_airplane_mode({}), was never done: this is the agent's last turn.",
      );
      // "What failed" stays inside its card.
      const failed = page.locator(".failed-summary");
      expect(await failed.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      expect(await noSidewaysScroll(page)).toBe(true);
      await page.close();
    });
  }

  for (const width of WIDTHS) {
    it(`numbers every turn with a link to it, shows tool calls only, and folds a long message (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/${simulationHash(runs.long, "7", 0)}`);
      const messages = page.locator(".messages > li");
      await messages.first().waitFor();
      // Every shown message carries its number, linking to its turn.
      const numbers = page.locator(".messages .turn-number");
      const indexes = await messages.evaluateAll((items) => items.map((li) => li.getAttribute("data-index")));
      expect(await numbers.allInnerTexts()).toEqual(indexes.map((i) => `#${i}`));
      expect(await numbers.nth(2).getAttribute("href")).toBe(
        `${simulationHash(runs.long, "7", 0)}/turn/${indexes[2]}`,
      );
      // The long message is folded to its start, and opens whole.
      const folded = page.getByTestId("folded-message");
      expect(await folded.count()).toBe(1);
      const shown = await folded.innerText();
      expect(shown.length).toBeLessThan(600);
      expect(shown).toContain(`show all ${LONG_STORY.length.toLocaleString("en")} characters`);
      await folded.getByRole("button").click();
      await page.locator(".bubble", { hasText: "please cancel reservation XEHM4B" }).waitFor();
      expect(await page.getByTestId("folded-message").count()).toBe(0);
      // Tool calls only: the messages that call tools (and the tool results), nothing said in words only.
      const all = await messages.count();
      await page.getByLabel("Tool calls only").check();
      await expect.poll(() => messages.count()).toBeLessThan(all);
      const kinds = await messages.evaluateAll((items) =>
        items.map((li) =>
          li.classList.contains("tool-result") ? "result" : li.querySelector(".call-note") ? "call" : "words",
        ),
      );
      expect(kinds).not.toContain("words");
      expect(kinds).toContain("call");
      expect(await noSidewaysScroll(page)).toBe(true);
      await page.close();
    });
  }

  it("searches the run's transcripts and opens a hit at its turn", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/runs/${runs.seeded}`);
    await page.getByLabel("Words to find in this run's transcripts").fill("59xx6w");
    await page.getByRole("button", { name: "Search" }).click();
    const summary = page.getByTestId("search-summary");
    await summary.waitFor();
    expect(await summary.innerText()).toMatch(/^\d+ messages hold “59xx6w” \(24 conversations searched\)\.$/);
    const first = page.locator(".search-hits li").first();
    expect(await first.locator("mark").innerText()).toBe("59XX6W");
    const link = first.locator("a");
    const turn = /message (\d+)/.exec(await link.innerText())![1]!;
    await link.click();
    await expect.poll(() => hashOf(page)).toMatch(new RegExp(`/turn/${turn}$`));
    // The simulation opens with that message marked, and it holds the words.
    const marked = page.locator(`.messages li.marked[data-index="${turn}"]`);
    await marked.waitFor();
    expect((await marked.innerText()).toLowerCase()).toContain("59xx6w");
    // Words found nowhere say so.
    await page.goto(`${web.url}/#/runs/${runs.seeded}`);
    await page.getByLabel("Words to find in this run's transcripts").fill("no such words");
    await page.getByRole("button", { name: "Search" }).click();
    await expect
      .poll(() => page.getByTestId("search-summary").innerText())
      .toBe("“no such words” is in none of the 24 conversations.");
    await page.close();
  });

  it("sorts the grid failing first, by id or flakiest first, with each task's purpose", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/runs/${runs.seeded}`);
    await page.getByTestId("run-grid").locator(".grid-row").first().waitFor();
    const order = () => page.locator(".grid-row .grid-task-id").allInnerTexts();
    expect(await order()).toEqual(["11", "7", "14", "0", "1", "8"]);
    await page.getByLabel("Sort").selectOption({ label: "by task id" });
    expect(await order()).toEqual(["0", "1", "7", "8", "11", "14"]);
    await page.getByLabel("Sort").selectOption({ label: "flakiest first" });
    expect(await order()).toEqual(["7", "14", "11", "0", "1", "8"]);
    const row = page.locator(".grid-row", { has: page.locator(".grid-task-id", { hasText: /^7$/ }) });
    expect(await row.locator(".grid-task-title").innerText()).toBe(
      "Testing introducing new user intent in the middle of the conversation.",
    );
    // Every cell's ✓ or ✗ reads against its colour at 4.5:1 or more (WCAG AA, small text).
    const colours = (await page.evaluate(
      `[...document.querySelectorAll(".grid-cell")].map((cell) => [getComputedStyle(cell).color, getComputedStyle(cell).backgroundColor])`,
    )) as Array<[string, string]>;
    const luminance = (css: string) => {
      const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const contrasts = colours.map(([color, background]) => {
      const [fg, bg] = [luminance(color), luminance(background)];
      return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    });
    expect(contrasts.length).toBe(TASKS.length * 4);
    expect(Math.min(...contrasts)).toBeGreaterThanOrEqual(4.5);
    // The reviewed failure's cell and the run's tally name the culprit in words.
    expect(await row.locator('.grid-cell[data-culprit="agent"]').getAttribute("title")).toBe(
      "task 7 trial 1: reward 0, failed DB; caused by the agent: the agent answered with a number instead of cancelling 59XX6W",
    );
    expect(await page.getByRole("list", { name: "Failures by culprit" }).innerText()).toBe("the agent 1");
    // Filtered and sorted, then into a simulation and Back: the grid is as it was left.
    const filters = page.getByRole("group", { name: "Filter by failing check" });
    await filters.getByRole("button", { name: /^DB failed/ }).click();
    await page.getByLabel("Search tasks").fill("1");
    expect(await order()).toEqual(["14", "11"]);
    await page.locator(".grid-row .grid-cell").first().click();
    await page.getByTestId("position").waitFor();
    await page.goBack();
    await page.getByTestId("run-grid").locator(".grid-row").first().waitFor();
    expect(await order()).toEqual(["14", "11"]);
    expect(await page.getByLabel("Sort").inputValue()).toBe("flaky");
    expect(await page.getByLabel("Search tasks").inputValue()).toBe("1");
    expect(await filters.getByRole("button", { name: /^DB failed/ }).getAttribute("aria-pressed")).toBe(
      "true",
    );
    // A run of one trial per task still shows its interval (a whisker, and in words).
    await page.goto(`${web.url}/#/runs/${runs.single}`);
    const chart = page.getByTestId("pass-k-chart");
    await chart.locator("canvas").waitFor();
    expect(await chart.locator("figcaption").innerText()).toMatch(
      /pass\^1 50\.0% \(95% interval \d+%–\d+%\)/,
    );
    await page.close();
  });

  for (const width of WIDTHS) {
    it(`lists runs with pass^1, pass^k and the curve; renames, deletes after asking, and warns about a file imported twice (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/runs`);
      const seeded = page.locator(`tr[data-run-id="${runs.seeded}"]`);
      await seeded.waitFor();
      // pass^1 = mean(c/4) = 17/24; pass^4 = mean(C(c,4)) = 3/6.
      expect(await seeded.locator("td.pass-1").innerText()).toBe("70.8%");
      expect(await seeded.locator("td.pass-k").innerText()).toMatch(/^50\.0%\s+k=4$/);
      expect(await seeded.getByTestId("sparkline").getAttribute("aria-label")).toMatch(
        /^pass\^k curve: pass\^1 70\.8%, pass\^2 .*, pass\^3 .*, pass\^4 50\.0%$/,
      );
      if (width === 1280) {
        const headers = await page.locator(".runs-table thead th").allInnerTexts();
        expect(headers.filter((h) => h.startsWith("pass^"))).toEqual(["pass^1", "pass^k", "pass^1…k"]);
      } else {
        // A card per run, and nothing wider than the phone.
        expect(
          await seeded.evaluate((tr) => tr.ownerDocument.defaultView!.getComputedStyle(tr).display),
        ).toBe("grid");
        expect(await noSidewaysScroll(page)).toBe(true);
      }

      // The same file twice: a warning naming the run, and a choice.
      const file = path.join(folder, `official-${width}.json`);
      writeFileSync(
        file,
        // Each width its own file (the same bytes would be a file imported twice).
        JSON.stringify(
          buildOfficialResults(
            airline,
            [0, 1].map((trial) => ({ task: width === 1280 ? "8" : "1", trial, variant: "gold" as const })),
          ),
        ),
      );
      const before = store.listRuns().length;
      await page.getByTestId("upload").setInputFiles(file);
      await page.getByText(`Imported official-${width}.json`).waitFor();
      const first = store.listRuns().find((r) => r.label === `official-${width}.json`)!;
      await page.getByTestId("upload").setInputFiles(file);
      const warning = page.getByTestId("duplicate-import");
      await warning.waitFor();
      expect(await warning.innerText()).toContain(`official-${width}.json was imported before`);
      expect(await warning.getByRole("link", { name: "this run" }).getAttribute("href")).toBe(
        `#/runs/${first.id}`,
      );
      await warning.getByRole("button", { name: "Cancel" }).click();
      expect(store.listRuns().length).toBe(before + 1);
      await page.getByTestId("upload").setInputFiles(file);
      await page.getByTestId("duplicate-import").getByRole("button", { name: "Import again anyway" }).click();
      await page.getByText(`Imported official-${width}.json`).waitFor();
      expect(store.listRuns().length).toBe(before + 2);
      const copy = store.listRuns().find((r) => r.label === `official-${width}.json` && r.id !== first.id)!;

      // Rename the copy in place.
      const row = page.locator(`tr[data-run-id="${copy.id}"]`);
      await row.getByRole("button", { name: `Rename official-${width}.json` }).click();
      await row.getByLabel(`New name for official-${width}.json`).fill(`copy at ${width}`);
      await row.getByRole("button", { name: "Save" }).click();
      await row.getByRole("link", { name: `copy at ${width}` }).waitFor();
      expect(store.getRun(copy.id)?.label).toBe(`copy at ${width}`);

      // Delete it: nothing happens until confirmed.
      await row.getByRole("button", { name: `Delete copy at ${width}` }).click();
      const confirm = page.getByTestId("confirm-delete");
      expect(await confirm.innerText()).toContain(`Delete copy at ${width} and its 2 simulations`);
      await confirm.getByRole("button", { name: "Keep it" }).click();
      expect(store.getRun(copy.id)).toBeDefined();
      await row.getByRole("button", { name: `Delete copy at ${width}` }).click();
      const reloaded = page.waitForResponse(
        (r) => r.url().endsWith("/api/runs") && r.request().method() === "GET",
      );
      await page.getByTestId("confirm-delete").getByRole("button", { name: "Delete the run" }).click();
      await page.getByText(`Deleted copy at ${width} and its 2 simulations.`).waitFor();
      // Gone with the notice, and still gone once the list is loaded again.
      expect(await row.count()).toBe(0);
      await reloaded;
      expect(await row.count()).toBe(0);
      expect(store.getRun(copy.id)).toBeUndefined();
      await page.close();
    });
  }

  it("answers an unknown run or page with a way back", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/runs/no-such-run`);
    const notFound = page.getByTestId("not-found");
    await notFound.waitFor();
    expect(await notFound.locator("h1").innerText()).toBe("Run not found");
    expect(await notFound.innerText()).toContain('run "no-such-run" is not in the store');
    await notFound.getByRole("link", { name: "← All runs" }).click();
    await page.locator(`tr[data-run-id="${runs.seeded}"]`).waitFor();
    await page.goto(`${web.url}/#/nowhere/at/all`);
    expect(await page.getByTestId("not-found").locator("h1").innerText()).toBe("No such page");
    await page.getByTestId("not-found").getByRole("link", { name: "Playground" }).click();
    await page.getByLabel("Domain").waitFor();
    await page.goto(`${web.url}/${simulationHash(runs.seeded, "7", 9)}`);
    expect(await page.getByTestId("not-found").locator("h1").innerText()).toBe("Simulation not found");
    await page.close();
  });

  for (const width of WIDTHS) {
    it(`shows where two conversations of a task part ways, from a comparison of runs and from a simulation (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/compare/${runs.seeded}/${runs.candidate}`);
      const regressed = page.getByTestId("compare-table").locator("tr.regressed");
      await regressed.first().waitFor();
      expect(await regressed.count()).toBe(1);
      // Task 7: a trial that passed in A beside one that fails in B.
      await regressed.getByRole("link", { name: "Where task 7 diverges: A trial 0 vs B trial 0" }).click();
      await expect.poll(() => hashOf(page)).toBe(`#/trials/airline/7/${runs.seeded}/0/${runs.candidate}/0`);
      const divergence = page.getByTestId("trial-divergence");
      await divergence.waitFor();
      expect(await divergence.innerText()).toBe(
        'They part ways at turn 10. After 4 common calls, only the first goes on with cancel_reservation({"reservation_id":"59XX6W"}).',
      );
      const marked = page.locator(".messages li.marked");
      expect(await marked.count()).toBe(2);
      expect(await marked.nth(0).innerText()).toContain("cancel_reservation");
      // Turns are numbered as on the simulation page (from 0), each a link to that turn there.
      const number = marked.nth(0).locator("a.turn-number");
      expect(await number.innerText()).toBe("#10");
      expect(await number.getAttribute("href")).toBe(`${simulationHash(runs.seeded, "7", 0)}/turn/10`);
      expect(await marked.nth(1).locator(".bubble").innerText()).toBe("1628");
      expect(await noSidewaysScroll(page)).toBe(true);

      // From a failing trial, its passing sibling is one click away.
      await page.goto(`${web.url}/${simulationHash(runs.seeded, "7", 1)}`);
      await page.getByRole("link", { name: "trial 0", exact: true }).click();
      await expect.poll(() => hashOf(page)).toBe(`#/trials/airline/7/${runs.seeded}/1/${runs.seeded}/0`);
      expect(await page.getByTestId("trial-divergence").innerText()).toBe(
        'They part ways at turn 10. After 4 common calls, only the second goes on with cancel_reservation({"reservation_id":"59XX6W"}).',
      );
      await page.close();
    });
  }

  it("says two runs with no task in common have nothing to compare, instead of drawing empty charts", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/compare/${runs.seeded}/${runs.telecom}`);
    const nothing = page.getByTestId("nothing-in-common");
    await nothing.waitFor();
    expect(await nothing.innerText()).toMatch(
      /These runs share no task: .+ ran 6 tasks, .+ ran 1, and none is in both\./,
    );
    expect(await page.getByTestId("pass-k-chart").count()).toBe(0);
    expect(await page.getByTestId("compare-table").count()).toBe(0);
    await page.close();
  });
});
