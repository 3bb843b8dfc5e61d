import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// Every file of the app a page asks for exists: no 404 in the console (the favicon included); the
// pages speak to people, not to API clients. The store is empty.
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  web = await startWebServer({ store: memoryRunCatalog() });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

describe("the web app's own files in Chromium", () => {
  it("has an icon, and none of the playground's own files is answered 404", async () => {
    const page = await browser.context.newPage();
    const missing: string[] = [];
    page.on("response", (response) => {
      if (response.status() === 404 && !new URL(response.url()).pathname.startsWith("/api/"))
        missing.push(response.url());
    });
    const icon = page.waitForResponse((r) => new URL(r.url()).pathname === "/favicon.svg");
    await page.goto(`${web.url}/#/`);
    await page.locator("button.scenario-chip").first().waitFor();
    const answered = await icon;
    expect(answered.status()).toBe(200);
    expect(answered.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(missing).toEqual([]);
    await page.close();
  });

  it("answers /favicon.ico with the app's icon (pages that name none ask for it)", async () => {
    const page = await browser.context.newPage();
    const answer = await page.goto(`${web.url}/favicon.ico`);
    expect(answer?.status()).toBe(200);
    expect(new URL(answer!.url()).pathname).toBe("/favicon.svg");
    expect(answer?.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
    await page.close();
  });

  it("says things in words: commands as code, no literal backticks, no API routes", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${web.url}/#/runs`);
    const empty = page.getByText(/^No runs yet/);
    await empty.waitFor();
    expect(await empty.innerText()).toBe("No runs yet. Import a τ²-bench results file, or run passk run.");
    expect(await empty.locator("code").innerText()).toBe("passk run");
    await page.goto(`${web.url}/#/runs/no-such-run`);
    const notFound = page.getByTestId("not-found");
    await notFound.locator("h1").waitFor();
    const text = await notFound.innerText();
    expect(text).toContain('run "no-such-run" is not in the store: it was deleted, or the link is wrong');
    expect(text).not.toMatch(/GET |\/api\/|`/);
    await page.close();
  });
});
