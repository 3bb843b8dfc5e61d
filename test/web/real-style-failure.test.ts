import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MessageSchema } from "../../src/core/message.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { evaluateSimulationSync } from "../../src/evaluation/evaluate-simulation.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { reviewSimulations } from "../../src/review/review-run.js";
import { memoryRunCatalog, type RunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { buildOfficialResults } from "../helpers/official-results.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// The simulation page of a conversation written the way real models and customers talk (the labelled
// corpus of test/fixtures/verdicts/): long, polite, the customer says "not before 11am" and the agent
// books the 6am flight. Graded and reviewed by passk itself here, not seeded: the page must say what failed, who
// caused it and where, from that evidence.
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const CASE_ID = "airline-20-wrong-flight-booked";
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());

const CorpusSchema = z.object({
  cases: z.array(
    z.object({
      id: z.string(),
      task_id: z.string(),
      simulation: z.object({ termination_reason: z.string(), messages: z.array(z.unknown()) }),
    }),
  ),
});
const corpusCase = CorpusSchema.parse(
  JSON.parse(
    readFileSync(path.join(import.meta.dirname, "..", "fixtures", "verdicts", "airline.json"), "utf8"),
  ),
).cases.find((c) => c.id === CASE_ID)!;

let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let runId: string;
let reviewedTurn: number | null;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  // The corpus conversation in place of the gold one, in a results file as τ² writes it, graded by passk.
  const results = buildOfficialResults(airline, [{ task: corpusCase.task_id, trial: 0, variant: "gold" }]);
  const messages = z.array(MessageSchema).parse(corpusCase.simulation.messages);
  const terminationReason = corpusCase.simulation.termination_reason as "user_stop";
  const rewardInfo = evaluateSimulationSync(
    { termination_reason: terminationReason, messages },
    airline.task(corpusCase.task_id),
    { newWorld: (options) => airline.newWorld(options), validation: "lenient" },
  );
  const simulation = {
    ...results.simulations[0]!,
    termination_reason: terminationReason,
    reward_info: rewardInfo,
    messages: corpusCase.simulation.messages,
  };
  const { reviews } = await reviewSimulations(
    [
      {
        domain: "airline",
        task_id: corpusCase.task_id,
        trial: 0,
        termination_reason: terminationReason,
        reward_info: rewardInfo,
        messages,
        info: null,
      },
    ],
    {
      taskOf: (_domain, taskId) => airline.task(taskId),
      domainOf: () => ({
        domain: airline.domain,
        policy: airline.policy,
        newWorld: (options) => airline.newWorld(options),
      }),
    },
  );
  reviewedTurn = reviews[0]!.review.turn;
  const memory = memoryRunCatalog();
  const store: RunCatalog = { ...memory, reviews: (id) => (id === runId ? reviews : []) };
  runId = store.importResults(
    parseResults(JSON.stringify({ ...results, simulations: [simulation] }), "real-style.json"),
    {
      label: "real-style failure",
      domain: "airline",
    },
  );
  web = await startWebServer({ store });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(30_000);
  return page;
}

describe("a real-style failed conversation on the simulation page", () => {
  for (const width of [1280, 390]) {
    it(`says it failed, who caused it and at which turn, from passk's own grading and review (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/runs/${runId}/simulations/airline/${corpusCase.task_id}/0`);
      const reviewed = page.getByTestId("review");
      await reviewed.waitFor();
      // The wrong flight was booked: the database check fails, and the review names the agent.
      expect(await page.locator("main").innerText()).toMatch(/reward\s*0\.00|0\.00/i);
      expect(reviewedTurn).not.toBeNull();
      expect(await reviewed.innerText()).toContain(`Who caused it: the agent at turn ${reviewedTurn}`);
      // The turn the review names is on the page, numbered as the review counts.
      const turn = page.locator(`.messages li[data-index="${reviewedTurn}"]`);
      expect(await turn.locator(".turn-number").innerText()).toBe(`#${reviewedTurn}`);
      // The departure banner names the gold action done with other arguments.
      expect(await page.getByTestId("divergence").innerText()).toContain("book_reservation");
      expect(
        (await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")) === true,
      ).toBe(true);
      await page.screenshot({
        path: path.join(SCREENS, `explorer-real-failure-${width}.png`),
        fullPage: true,
      });
      await page.close();
    }, 90_000);
  }
});
