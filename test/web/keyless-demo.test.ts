import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { DomainDetailSchema } from "../../src/server/api-schemas.js";
import { HUMAN_PACED_REPLAY, SCRIPTED_REPLAY_NOTICE } from "../../src/server/scripted-replay.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// The keyless playground as `passk serve` with no model serves it: a paced replay of the gold path,
// which says what it is. In Chromium, over the five airline chips.
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  web = await startWebServer({ scriptedReplay: HUMAN_PACED_REPLAY });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

/** The lines of the task's scenario instructions: written to the customer, never said by it. */
function instructionLines(taskId: string): string[] {
  const instructions = airline.task(taskId).user_scenario.instructions;
  return (typeof instructions === "string" ? [instructions] : Object.values(instructions))
    .filter((text): text is string => typeof text === "string")
    .flatMap((text) => text.split(/\n+/))
    .map((line) => line.trim())
    .filter((line) => line.length > 20);
}

describe("the keyless playground", () => {
  it("each airline chip unfolds over seconds, the customer speaking as a customer, under a banner saying what this is", async () => {
    const detail = DomainDetailSchema.parse(await (await fetch(`${web.url}/api/domains/airline`)).json());
    expect(detail.scenarios).toHaveLength(5);
    const page = await browser.context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${web.url}/#/`);
    const banner = page.getByRole("region", { name: "What this is" });
    await banner.waitFor();
    const text = await banner.innerText();
    for (const part of Object.values(SCRIPTED_REPLAY_NOTICE)) expect(text).toContain(part);

    for (const chip of detail.scenarios) {
      const began = Date.now();
      await page.getByRole("button", { name: chip.label }).click();
      // The first customer message arrives after a pause, not with the page.
      const first = page.locator(".message.customer .bubble").first();
      await first.waitFor();
      expect(Date.now() - began, chip.label).toBeGreaterThanOrEqual(800);
      await page.getByTestId("reward-card").waitFor();
      const elapsed = Date.now() - began;
      expect(elapsed, chip.label).toBeGreaterThanOrEqual(3000);
      expect(await page.getByTestId("reward-value").textContent(), chip.label).toBe("1.00");
      const said = await page.locator(".message.customer .bubble").allInnerTexts();
      expect(said[0], chip.label).toBe(chip.openingLine);
      for (const line of instructionLines(chip.taskId))
        for (const message of said) expect(message, chip.label).not.toContain(line);
    }
    await page.close();
  }, 180_000);
});
