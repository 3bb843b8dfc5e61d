import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// A person playing the customer of a task keeps the customer's brief beside the composer.
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  web = await startWebServer();
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(60_000);
  return page;
}

describe("the customer's brief", () => {
  for (const width of [1280, 390] as const) {
    it(`shows who the customer is, the ids they know and why they call, beside the composer (${width} px)`, async () => {
      const page = await openPage(width);
      try {
        await page.goto(`${web.url}/#/play/airline/0`);
        await page.locator('[data-task-id="0"][aria-selected="true"]').waitFor();
        await page.getByLabel("Me (type as the customer)").check();
        await page.getByRole("button", { name: "Start conversation" }).click();
        const composer = page.locator("#customer-message");
        await expect.poll(() => composer.isEnabled(), { timeout: 90_000 }).toBe(true);
        const brief = page.getByTestId("customer-brief");
        await brief.waitFor();
        expect(await page.getByTestId("brief-name").textContent()).toContain("Emma Kim");
        const ids = await brief.locator(".brief-id").allTextContents();
        expect(ids).toEqual(expect.arrayContaining(["emma_kim_9957", "EHGLP3"]));
        expect(await page.getByTestId("brief-goal").textContent()).toContain("cancel reservation EHGLP3");
        // Only what the customer is told: nothing of how the task is graded.
        expect(await brief.textContent()).not.toMatch(/cancel_reservation|evaluation|expected/i);
        // Beside the composer: both in view at once, the brief just above it.
        await composer.scrollIntoViewIfNeeded();
        const [b, c] = [await brief.boundingBox(), await composer.boundingBox()];
        expect(b && c).toBeTruthy();
        expect(b!.y + b!.height).toBeLessThanOrEqual(c!.y + 1);
        expect(b!.y).toBeGreaterThanOrEqual(0);
        expect(c!.y + c!.height).toBeLessThanOrEqual(width < 600 ? 844 : 800);
      } finally {
        await page.close();
      }
    }, 180_000);
  }
});
