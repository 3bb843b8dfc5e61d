import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryConversationStore } from "../../src/store/conversation-store.js";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { HUMAN_PACED_REPLAY } from "../../src/server/scripted-replay.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// A simulation stopped in the playground reads "Stopped" there, and the same word in the explorer's
// list of playground conversations (the stored reason is "abandoned", a word the page never showed).
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  // The keyless playground's paced replay: a conversation takes seconds, so Stop lands while it runs.
  web = await startWebServer({
    store: memoryRunCatalog(),
    conversations: createMemoryConversationStore(),
    scriptedReplay: HUMAN_PACED_REPLAY,
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

async function openPage(): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  page.setDefaultTimeout(30_000);
  return page;
}

describe("a stopped playground conversation", () => {
  it('reads "Stopped" in the playground and "stopped" in the explorer\'s list, never "abandoned"', async () => {
    const page = await openPage();
    await page.goto(`${web.url}/#/play/airline/8`);
    await page.getByRole("button", { name: "Simulate", exact: true }).click();
    // The customer has spoken; the conversation goes on.
    await page.locator(".message.customer .bubble").first().waitFor();
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    const closed = page.getByTestId("conversation-closed");
    await closed.waitFor();
    expect(await closed.getAttribute("data-reason")).toBe("abandoned");
    expect(await closed.innerText()).toMatch(/^Stopped\./);
    await page.goto(`${web.url}/#/runs`);
    const listed = page.getByTestId("conversations").locator("li").first();
    await listed.waitFor();
    expect(await listed.locator(".badge").innerText()).toBe("stopped");
    expect(await page.getByTestId("conversations").innerText()).not.toContain("abandoned");
    await page.close();
  }, 120_000);
});
