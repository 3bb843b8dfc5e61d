import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// The demo's moment: when a conversation has been graded, its verdict in words at the top of the
// conversation, linking to the check-by-check reward card. Keyless scripted agent and customer.
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  web = await startWebServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(15_000);
  return page;
}

/** Whether the element's box lies within the window. */
async function inWindow(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  const height = page.viewportSize()!.height;
  return !!box && box.height > 0 && box.y >= -1 && box.y + box.height <= height + 1;
}

/** The test id of the element that has the keyboard focus. */
const focused = (page: Page) =>
  page.evaluate("document.activeElement && document.activeElement.getAttribute('data-testid')");

describe("the verdict banner in Chromium", () => {
  for (const width of [1280, 390]) {
    it(`says "every check passed" above the conversation and links to the reward card (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/`);
      await page.getByRole("button", { name: /Book a flight/ }).click();
      const banner = page.getByTestId("verdict-banner");
      await banner.waitFor({ timeout: 30_000 });
      expect(await banner.locator(".verdict-words").innerText()).toBe("1.00 — every check passed");
      // At the top of the conversation pane: above its first message, and in view without scrolling.
      const conversation = page.locator("section", { has: page.locator("#pane-conversation") });
      const [top, firstMessage] = await Promise.all([
        banner.boundingBox(),
        conversation.locator(".message").first().boundingBox(),
      ]);
      expect(top!.y).toBeLessThan(firstMessage!.y);
      expect(await inWindow(page, '[data-testid="verdict-banner"]')).toBe(true);
      await page.screenshot({ path: path.join(SCREENS, `playground-verdict-${width}.png`) });

      await banner.getByRole("button", { name: "See every check" }).click();
      await expect.poll(() => focused(page)).toBe("reward-card");
      await expect.poll(() => inWindow(page, '[data-testid="reward-value"]')).toBe(true);
      expect(await page.getByTestId("reward-value").innerText()).toBe("1.00");
      await page.close();
    });

    it(`names the first failed check in words when the grade is 0 (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/play/airline/8`);
      await page.locator('[data-task-id="8"][aria-selected="true"]').waitFor();
      await page.getByLabel("Me (type as the customer)").check();
      await page.getByRole("button", { name: "Start conversation" }).click();
      await expect.poll(() => page.getByLabel("Message to the agent").isEnabled()).toBe(true);
      // Ended before asking for anything: the flight the task expects was never booked.
      await page.getByRole("button", { name: "End & grade" }).click();
      const banner = page.getByTestId("verdict-banner");
      await banner.waitFor({ timeout: 30_000 });
      expect(await banner.getAttribute("class")).toMatch(/\bfailed\b/);
      expect(await banner.locator(".verdict-words").innerText()).toBe(
        "0.00 — the final database is not the one the task expects",
      );
      await page.screenshot({ path: path.join(SCREENS, `playground-verdict-failed-${width}.png`) });
      await banner.getByRole("button", { name: "See every check" }).click();
      await expect.poll(() => focused(page)).toBe("reward-card");
      await expect.poll(() => inWindow(page, '[data-testid="reward-value"]')).toBe(true);
      expect(await page.getByTestId("reward-card").innerText()).toMatch(/What failed:[\s\S]*DB/);
      await page.close();
    });
  }
});
