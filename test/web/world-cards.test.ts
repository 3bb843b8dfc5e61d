import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// The agent's world drawn as the domain's own things (airline's reservations, retail's orders),
// changing as the keyless scripted agent acts; and a "policy forbids" chip whose agent held the line.
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  web = await startWebServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

const WIDTHS = [1280, 390] as const;
/** A scripted conversation ends in about a second here; a loaded machine gets far more. */
const CONVERSATION_MS = 45_000;

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(15_000);
  return page;
}

/** Nothing on the page is wider than the screen. */
const fitsWidth = (page: Page) =>
  page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");

/** Wide, the records are shown open beside the chat; on a phone, one line above it until tapped. */
async function openWorld(page: Page, width: number, summary: RegExp) {
  const world = page.getByTestId("world-cards");
  expect(await world.locator("summary").innerText()).toMatch(summary);
  if (width < 900) {
    expect(await world.getAttribute("open")).toBeNull();
    await world.locator("summary").click();
  }
  await expect.poll(() => world.getAttribute("open")).toBe("");
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });

describe("the world's records in the playground, in Chromium", () => {
  for (const width of WIDTHS) {
    it(`draws the reservation the agent changed, old → new (airline, ${width} px)`, async () => {
      const page = await openPage(width);
      // Task 11: the agent moves reservation GV1N64 from business down to basic economy.
      await page.goto(`${web.url}/#/play/airline/11`);
      await page.locator('[data-task-id="11"][aria-selected="true"]').waitFor();
      await page.getByRole("button", { name: "Simulate" }).click();
      await page.getByTestId("verdict-banner").waitFor({ timeout: CONVERSATION_MS });
      await openWorld(page, width, /^Reservation GV1N64\s*1 changed$/);
      const card = page.getByTestId("reservation-card");
      expect(await card.count()).toBe(1);
      expect(await card.getAttribute("data-id")).toBe("GV1N64");
      expect(await card.locator("header").innerText()).toMatch(/Reservation GV1N64\s+active/);
      // The world as it now stands: the new cabin, the same two flights and three passengers.
      const trip = card.locator(".world-row", { hasText: "Trip" });
      expect(await trip.innerText()).toContain("LAS → DEN · round trip · basic economy");
      expect(await trip.getAttribute("data-changed")).toBe("true");
      expect(await card.locator(".world-row", { hasText: "Flights" }).locator("li").allInnerTexts()).toEqual([
        expect.stringMatching(/^HAT003 LAS→DEN 2024-05-19 \$\d/),
        expect.stringMatching(/^HAT290 DEN→LAS 2024-05-20 \$\d/),
      ]);
      expect(await card.locator(".world-row", { hasText: "Passengers" }).innerText()).toContain(
        "James Patel, James Sanchez, Sophia Johansson",
      );
      expect(
        await card.locator(".world-row", { hasText: "Passengers" }).getAttribute("data-changed"),
      ).toBeNull();
      // What changed, old → new.
      const changes = await card.getByTestId("world-changes").locator("li").allInnerTexts();
      expect(changes).toContain("cabin business → basic economy");
      expect(changes.some((c) => c.startsWith("payment history $5,700 gift_card_1642017 → "))).toBe(true);
      expect(await fitsWidth(page)).toBe(true);
      await card.scrollIntoViewIfNeeded();
      await shot(page, `playground-airline-reservation-${width}`);
      // A conversation with no "policy forbids" chip says nothing of holding the line.
      expect(await page.getByTestId("held-the-line-note").count()).toBe(0);
      await page.close();
    });
  }

  for (const width of WIDTHS) {
    it(`draws the orders the agent read, the changed one first with its new address (retail, ${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/play/retail`);
      // Retail's happy-path chip: task 17 reads three orders and changes #W8665881's address.
      await page.getByRole("button", { name: /Change a delivery address/ }).click();
      await page.getByTestId("verdict-banner").waitFor({ timeout: CONVERSATION_MS });
      await openWorld(page, width, /^3 orders\s*1 changed$/);
      const cards = page.getByTestId("order-card");
      expect(await cards.evaluateAll((all) => all.map((c) => c.getAttribute("data-id")))).toEqual([
        "#W8665881",
        "#W9389413",
        "#W5199551",
      ]);
      const changed = cards.first();
      expect(await changed.locator("header").innerText()).toMatch(/Order #W8665881\s+pending/);
      expect(await changed.locator(".world-row", { hasText: "Ship to" }).innerText()).toContain(
        "123 Elm Street, Suite 641, Austin, TX, 78712, USA",
      );
      expect(await changed.locator(".world-row", { hasText: "Ship to" }).getAttribute("data-changed")).toBe(
        "true",
      );
      expect(await changed.locator(".world-row", { hasText: "Items" }).locator("li").count()).toBe(5);
      expect(await changed.getByTestId("world-changes").locator("li").allInnerTexts()).toEqual([
        "address.address2 Suite 640 → Suite 641",
      ]);
      // The orders only read are shown as they are, nothing marked changed.
      expect(await cards.nth(1).getByTestId("world-changes").count()).toBe(0);
      expect(await cards.nth(1).locator('[data-changed="true"]').count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      await changed.scrollIntoViewIfNeeded();
      await shot(page, `playground-retail-order-${width}`);
      await page.close();
    });
  }

  it("says the agent held the line when a 'policy forbids' conversation ends with no write", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/play/airline`);
    // Airline's trap: cancelling past the deadline; the right outcome changes nothing.
    const chip = page.locator('button.scenario-chip[data-kind="trap"]');
    await chip.click();
    await page.getByTestId("verdict-banner").waitFor({ timeout: CONVERSATION_MS });
    const held = "no tool call — refusing is what the policy requires";
    await chip.getByTestId("held-the-line").waitFor();
    expect(await chip.getByTestId("held-the-line").innerText()).toContain(held);
    expect(await page.getByTestId("held-the-line-note").innerText()).toContain(held);
    // Only that chip says it.
    expect(await page.getByTestId("held-the-line").count()).toBe(1);
    await page.close();
  });
});
