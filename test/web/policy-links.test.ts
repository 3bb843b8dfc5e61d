import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// The policy linked to the action: a tool call highlights the policy passage it exercises, and its
// card's badge brings that passage into view. Keyless scripted agent and customer (airline task 8:
// get_user_details, get_reservation_details, search_direct_flight, book_reservation).
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

/** Whether `inner`'s box lies within `outer`'s (and has a size). */
async function within(inner: Locator, outer: Locator): Promise<boolean> {
  const [a, b] = await Promise.all([inner.boundingBox(), outer.boundingBox()]);
  return !!a && !!b && a.height > 0 && a.y >= b.y - 1 && a.y + Math.min(a.height, 40) <= b.y + b.height + 1;
}

const card = (page: Page, tool: string) =>
  page.locator(`[data-testid="tool-call-card"][aria-label="Tool call ${tool}"]`);

describe("policy passages linked to tool calls, in Chromium", () => {
  it("highlights the passage the newest tool call exercises, and a card's badge shows its own (1280 px)", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/`);
    await page.getByRole("button", { name: /Book a flight/ }).click();
    await page.getByTestId("verdict-banner").waitFor({ timeout: 30_000 });

    // Each call the policy speaks of carries the badge of its section; the flight search has none.
    expect(await card(page, "book_reservation").getByTestId("policy-link").innerText()).toBe("§ Book flight");
    expect(await card(page, "get_user_details").getByTestId("policy-link").innerText()).toBe("§ User");
    expect(await card(page, "search_direct_flight").getByTestId("policy-link").count()).toBe(0);

    // The newest linked call is book_reservation: its passage is highlighted, in view in the policy pane.
    const policy = page.getByTestId("policy-text");
    const linked = page.getByTestId("linked-passage");
    await expect
      .poll(() => page.getByTestId("linked-passage-by").innerText())
      .toMatch(/^book_reservation · score/);
    expect(await linked.innerText()).toContain("free checked bag");
    expect(await page.getByTestId("linked-passage").count()).toBe(1);
    await expect.poll(() => within(linked, policy)).toBe(true);

    // The first card's badge: the user profile passage, far above, scrolled into view.
    await card(page, "get_user_details").getByTestId("policy-link").click();
    await expect
      .poll(() => page.getByTestId("linked-passage-by").innerText())
      .toMatch(/^get_user_details · score/);
    expect(await linked.innerText()).toContain("Each user has a profile containing");
    await expect.poll(() => within(linked, policy)).toBe(true);
    await page.screenshot({ path: path.join(SCREENS, "playground-policy-link-1280.png") });
    await page.close();
  });

  it("on a phone, a card's badge opens the policy tab at the passage (390 px)", async () => {
    const page = await openPage(390);
    await page.goto(`${web.url}/#/`);
    await page.getByRole("button", { name: /Book a flight/ }).click();
    await page.getByTestId("verdict-banner").waitFor({ timeout: 30_000 });
    await page.getByRole("navigation", { name: "Panes" }).getByRole("button", { name: "Trace" }).click();
    const badge = card(page, "book_reservation").getByTestId("policy-link");
    await badge.scrollIntoViewIfNeeded();
    await badge.click();
    const linked = page.getByTestId("linked-passage");
    await expect.poll(() => page.getByTestId("linked-passage-by").innerText()).toMatch(/^book_reservation/);
    await expect.poll(() => within(linked, page.getByTestId("policy-text"))).toBe(true);
    await expect.poll(() => linked.isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENS, "playground-policy-link-390.png") });
    await page.close();
  });
});
