import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/core/agent.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { goldUser } from "../../src/users/gold-user.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// The policy linked to the action: a tool call highlights the policy passage it exercises, and its
// card's badge brings that passage into view. Keyless scripted agent and customer (airline task 8:
// get_user_details, get_reservation_details, search_direct_flight, book_reservation).
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let runId: string;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  // A stored run of task 8 played by the gold agent, for the explorer's simulation page.
  const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
  const store = memoryRunCatalog();
  const results = await buildResults(airline, { taskIds: ["8"], trials: 1, fails: () => false });
  runId = store.importResults(parseResults(JSON.stringify(results), "gold.json"), {
    label: "gold",
    domain: "airline",
  });
  web = await startWebServer({ store });
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

describe("policy passages on the explorer's simulation page, in Chromium", () => {
  it("notes each linked tool call's passage under it, its text one click away", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/runs/${runId}/simulations/airline/8/0`);
    const book = page.locator(".message.agent", {
      has: page.locator(".call-name", { hasText: "book_reservation" }),
    });
    const note = book.getByTestId("policy-note");
    await note.waitFor();
    expect(await note.locator("summary").innerText()).toBe("§ Book flight — book_reservation");
    // The flight search has no passage worth linking: no note under it.
    const search = page.locator(".message.agent", {
      has: page.locator(".call-name", { hasText: "search_direct_flight" }),
    });
    expect(await search.getByTestId("policy-note").count()).toBe(0);
    await note.locator("summary").click();
    await expect.poll(() => note.locator(".policy-excerpt").innerText()).toContain("free checked bag");
    await page.close();
  });
});

describe("a refusal linked to the rule it rests on, in Chromium", () => {
  // An agent that declines what the policy forbids, in words only (no tool call).
  const refusing: Agent = {
    name: "refusing",
    start: () => ({
      respond: async (incoming) => ({
        role: "assistant",
        content: /basic economy/i.test(String(incoming.at(-1)?.content))
          ? "I'm sorry, but basic economy flights cannot be modified."
          : "Sure, which reservation is it?",
      }),
    }),
  };
  let refusingWeb: WebServer;
  beforeAll(async () => {
    refusingWeb = await startWebServer({
      participants: {
        agents: ["scripted:refusing"],
        users: ["scripted:gold"],
        agentFor: () => refusing,
        customerFor: () => goldUser,
      },
    });
  });
  afterAll(async () => {
    await refusingWeb?.kill();
  });

  it("shows the agent's refusal in the trace, its rule highlighted in the policy (1280 px)", async () => {
    const page = await openPage(1280);
    await page.goto(`${refusingWeb.url}/#/play/airline/0`);
    await page.locator('[data-task-id="0"][aria-selected="true"]').waitFor();
    await page.getByLabel("Me (type as the customer)").check();
    await page.getByRole("button", { name: "Start conversation" }).click();
    const box = page.getByLabel("Message to the agent");
    await expect.poll(() => box.isEnabled()).toBe(true);
    await box.fill("Please change my basic economy flight to May 20.");
    await box.press("Enter");
    const refusal = page.getByTestId("refusal-card");
    await refusal.waitFor();
    expect(await refusal.getByTestId("policy-link").innerText()).toBe("§ Modify flight");
    await expect
      .poll(() => page.getByTestId("linked-passage-by").innerText())
      .toMatch(/^the agent's refusal · score/);
    expect(await page.getByTestId("linked-passage").innerText()).toContain(
      "Basic economy flights cannot be modified.",
    );
    await expect
      .poll(() => within(page.getByTestId("linked-passage"), page.getByTestId("policy-text")))
      .toBe(true);
    await page.screenshot({ path: path.join(SCREENS, "playground-policy-refusal-1280.png") });
    await expect.poll(() => box.isEnabled()).toBe(true);
    await page.getByRole("button", { name: "End & grade" }).click();
    await page.getByTestId("verdict-banner").waitFor({ timeout: 30_000 });
    await page.close();
  });
});
