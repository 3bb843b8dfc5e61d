import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  VoiceCallDetailSchema,
  VoiceRunDetailSchema,
  VoiceRunListSchema,
  type VoiceCallDetail,
} from "../../src/server/voice-api-schemas.js";
import { makeVoiceRuns } from "../helpers/voice-run-dir.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// A voice run in the explorer, as someone debugging a call by ear uses it: the run's reliability and
// interaction metrics, then one call's recording with its transcript and two-lane timeline — press a
// line and the player jumps there, the line under the playhead lights up. The runs are made by the real
// pipeline (`passk run --voice` against the mock realtime agent); screenshots go to $PASSK_SCREENS
// (default /tmp/passk-screens) as voice-run-<width>.png, voice-call-<width>.png, voice-compare-<width>.png.

const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const WIDTHS = [1280, 390] as const;
let work: string;
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
/** A call whose agent used tools, as the API describes it. */
let call: VoiceCallDetail;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  work = mkdtempSync(path.join(tmpdir(), "passk-voice-explorer-web-"));
  await makeVoiceRuns(work, { tasks: 2, trials: 2, complexities: ["control", "regular"] });
  web = await startWebServer({ voiceRuns: [work] });
  const detail = VoiceRunDetailSchema.parse(
    await (await fetch(`${web.url}/api/voice-runs/airline-regular`)).json(),
  );
  for (const c of detail.calls) {
    const view = VoiceCallDetailSchema.parse(
      await (await fetch(`${web.url}/api/voice-runs/airline-regular/calls/${c.id}`)).json(),
    );
    if (view.toolCalls.length > 0 && new Set(view.segments.map((s) => s.side)).size === 2) {
      call = view;
      break;
    }
  }
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(20_000);
  return page;
}

/** What the tests read of the page's <audio> element (the test's own types have no DOM). */
interface Media {
  currentTime: number;
  readyState: number;
  duration: number;
}
const noSidewaysScroll = async (page: Page) =>
  (await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")) === true;
const currentTime = (page: Page) =>
  page.getByTestId("voice-audio").evaluate((audio) => (audio as unknown as Media).currentTime);

describe("voice runs in the explorer (Chromium)", () => {
  for (const width of WIDTHS) {
    it(`lists the voice runs and shows a run's pass^k and interaction metrics (${width} px)`, async () => {
      const list = VoiceRunListSchema.parse(await (await fetch(`${web.url}/api/voice-runs`)).json());
      const regular = list.runs.find((r) => r.id === "airline-regular")!;
      const page = await openPage(width);
      try {
        await page.goto(`${web.url}/#/runs`);
        const section = page.getByTestId("voice-runs");
        await section.getByRole("link", { name: "airline-regular" }).click();
        await page.getByRole("heading", { name: "airline-regular" }).waitFor();
        const panel = page.getByTestId("interaction-panel");
        const responseRate = regular.interaction!.rows.find((r) => r.key === "response_rate")!;
        const rateRow = panel.locator('tr[data-metric="response_rate"]');
        await rateRow.waitFor();
        expect(await rateRow.innerText()).toContain(`${(responseRate.value! * 100).toFixed(1)}%`);
        expect(await rateRow.innerText()).toContain(String(responseRate.events));
        expect(await page.getByTestId("voice-pass-hat-k").innerText()).toMatch(/pass\^2/);
        expect(await page.getByTestId("voice-calls").locator("tbody tr").count()).toBe(regular.simulations);
        expect(await noSidewaysScroll(page)).toBe(true);
        await page.screenshot({ path: path.join(SCREENS, `voice-run-${width}.png`), fullPage: true });

        await page.goto(`${web.url}/#/voice-compare/airline-control/airline-regular`);
        const compare = page.getByTestId("voice-compare");
        await compare.locator('tr[data-metric="response_rate"]').waitFor();
        expect(await compare.locator('tr[data-metric="pass^1"]').count()).toBe(1);
        expect(await compare.locator("tbody tr").count()).toBe(2 + regular.interaction!.rows.length);
        expect(await noSidewaysScroll(page)).toBe(true);
        await page.screenshot({ path: path.join(SCREENS, `voice-compare-${width}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });

    it(`plays a call: both lanes and the tool calls on the timeline, a pressed line seeks the player (${width} px)`, async () => {
      expect(call).toBeDefined();
      const page = await openPage(width);
      try {
        await page.goto(`${web.url}/#/voice/airline-regular/calls/${call.call.id}`);
        const timeline = page.getByTestId("voice-timeline");
        await timeline.waitFor();
        for (const side of ["customer", "agent"] as const) {
          const segments = timeline.locator(`[data-lane="${side}"] [data-testid="voice-segment"]`);
          expect(await segments.count()).toBe(call.segments.filter((s) => s.side === side).length);
          await segments.first().waitFor({ state: "visible" });
        }
        const tools = timeline.getByTestId("voice-tool-call");
        expect(await tools.count()).toBe(call.toolCalls.length);
        expect(await tools.first().getAttribute("aria-label")).toContain(call.toolCalls[0]!.name);
        await tools.first().waitFor({ state: "visible" });

        // The recording is there and the player knows its length before anything is pressed.
        const audio = page.getByTestId("voice-audio");
        await expect
          .poll(() => audio.evaluate((a) => (a as unknown as Media).readyState), { timeout: 20_000 })
          .toBeGreaterThanOrEqual(1);
        expect(await audio.evaluate((a) => (a as unknown as Media).duration)).toBeCloseTo(
          call.call.durationSec,
          1,
        );

        // Press the agent's first line: the player moves to its start and the line is the current one.
        const agentLine = call.segments.find((s) => s.side === "agent")!;
        const customerLine = call.segments.find((s) => s.side === "customer")!;
        const lineOf = (start: number) =>
          page.getByTestId("voice-transcript").locator(`li.voice-line[data-start="${start}"]`).first();
        await lineOf(agentLine.start).getByRole("button").click();
        await expect.poll(() => currentTime(page)).toBeCloseTo(agentLine.start, 1);
        await expect.poll(() => lineOf(agentLine.start).getAttribute("aria-current")).toBe("true");
        expect(await lineOf(customerLine.start).getAttribute("aria-current")).toBeNull();

        // And back to the customer's first line.
        await lineOf(customerLine.start).getByRole("button").click();
        await expect.poll(() => currentTime(page)).toBeCloseTo(customerLine.start, 1);
        await expect.poll(() => lineOf(customerLine.start).getAttribute("aria-current")).toBe("true");
        expect(await lineOf(agentLine.start).getAttribute("aria-current")).toBeNull();
        expect(await noSidewaysScroll(page)).toBe(true);
        await page.screenshot({ path: path.join(SCREENS, `voice-call-${width}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });
  }
});
