import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// Every file of the app a page asks for exists: no 404 in the console (the favicon included).
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  web = await startWebServer();
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
});
