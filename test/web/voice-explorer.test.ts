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
import { makeVoiceRuns, writeTurnTakingRun } from "../helpers/voice-run-dir.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// A voice run in the explorer, as someone debugging a call by ear uses it: the run's reliability and
// interaction metrics, then one call's recording with its transcript and two-lane timeline — press a
// line and the player jumps there, the line under the playhead lights up. The runs are made by the real
// pipeline (`passk run --voice` against the mock realtime agent); screenshots go to $PASSK_SCREENS
// (default /tmp/passk-screens) as voice-run-<width>.png, voice-call-<width>.png, voice-compare-<width>.png.

/** Waits are on state; 90 s is over 3× the slowest test measured under load (12 s: two pages, two screenshots). */
const POLL = { timeout: 90_000 };
const TEST_TIMEOUT = 360_000;
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const WIDTHS = [1280, 390] as const;
let work: string;
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
/** A call whose agent used tools, as the API describes it. */
let call: VoiceCallDetail;
/** The hand-built call with an interruption, a backchannel and the agent talking over the caller. */
let turnTakingCall: string;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  work = mkdtempSync(path.join(tmpdir(), "passk-voice-explorer-web-"));
  await makeVoiceRuns(work, { tasks: 2, trials: 2, complexities: ["control", "regular"] });
  turnTakingCall = writeTurnTakingRun(path.join(work, "turn-taking"));
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
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(POLL.timeout);
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
    it(
      `lists the voice runs and shows a run's pass^k and interaction metrics (${width} px)`,
      async () => {
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
      },
      TEST_TIMEOUT,
    );

    it(
      `plays a call: both lanes and the tool calls on the timeline, a pressed line seeks the player (${width} px)`,
      async () => {
        expect(call).toBeDefined();
        const page = await openPage(width);
        try {
          await page.goto(`${web.url}/#/voice-runs/airline-regular/calls/${call.call.id}`);
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
            .poll(() => audio.evaluate((a) => (a as unknown as Media).readyState), POLL)
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
          await expect.poll(() => currentTime(page), POLL).toBeCloseTo(agentLine.start, 1);
          await expect.poll(() => lineOf(agentLine.start).getAttribute("aria-current"), POLL).toBe("true");
          expect(await lineOf(customerLine.start).getAttribute("aria-current")).toBeNull();

          // And back to the customer's first line.
          await lineOf(customerLine.start).getByRole("button").click();
          await expect.poll(() => currentTime(page), POLL).toBeCloseTo(customerLine.start, 1);
          await expect.poll(() => lineOf(customerLine.start).getAttribute("aria-current"), POLL).toBe("true");
          expect(await lineOf(agentLine.start).getAttribute("aria-current")).toBeNull();
          expect(await noSidewaysScroll(page)).toBe(true);
          await page.screenshot({ path: path.join(SCREENS, `voice-call-${width}.png`), fullPage: true });
        } finally {
          await page.close();
        }
      },
      TEST_TIMEOUT,
    );

    it(
      `marks where both spoke, the interruption and the interaction events on the timeline (${width} px)`,
      async () => {
        const page = await openPage(width);
        try {
          await page.goto(`${web.url}/#/voice-runs/turn-taking/calls/${turnTakingCall}`);
          const timeline = page.getByTestId("voice-timeline");
          await timeline.waitFor();
          // Both spoke at 22–26 (the interruption), 28 (the backchannel) and 53–55 (the agent over the caller).
          await expect.poll(() => timeline.getByTestId("voice-overlap").count(), POLL).toBe(3);
          expect(await timeline.locator('[data-lane="customer"] [data-interruption="true"]').count()).toBe(1);
          expect(await timeline.locator('[data-lane="customer"] [data-backchannel="true"]').count()).toBe(1);
          expect(await timeline.locator('[data-lane="agent"] [data-interruption="true"]').count()).toBe(1);
          const events = timeline.getByTestId("voice-event");
          expect(await events.evaluateAll((items) => items.map((e) => e.getAttribute("aria-label")))).toEqual(
            [
              "1.0 s: late response (2.4 s)",
              "4.4 s: failed to yield to the caller's interruption",
              "5.6 s: talked through a backchannel",
              "8.4 s: response after 0.4 s",
              "10.6 s: the agent started talking over the caller",
            ],
          );
          expect(await timeline.locator('[data-testid="voice-event"][data-error="true"]').count()).toBe(2);
          // What went wrong is listed under the player; its time seeks there.
          await page
            .getByRole("list", { name: "What went wrong in the turn-taking" })
            .getByRole("button", { name: "4.4 s" })
            .click();
          await expect.poll(() => currentTime(page), POLL).toBeCloseTo(4.4, 1);
          expect(await noSidewaysScroll(page)).toBe(true);
          await page.screenshot({
            path: path.join(SCREENS, `voice-turn-taking-${width}.png`),
            fullPage: true,
          });
        } finally {
          await page.close();
        }
      },
      TEST_TIMEOUT,
    );
  }
});
