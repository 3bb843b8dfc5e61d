import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent, UserSimulator } from "../../src/core/agent.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// A stopped simulation is continued from the page: the new conversation starts with the earlier messages.
const echoAgent: Agent = {
  name: "echo-agent",
  resumesFromHistory: true,
  start: () => ({
    respond: (incoming) =>
      Promise.resolve({ role: "assistant", content: `You said: ${String(incoming.at(-1)?.content)}` }),
  }),
};

/** Says one line; in its first conversation its next call hangs until stopped, in a later one it ends. */
function customer(): UserSimulator {
  let conversations = 0;
  return {
    name: "first-line-customer",
    resumesFromHistory: true,
    start: ({ signal, history }) => {
      const first = conversations++ === 0;
      let turns = history.filter((m) => m.role === "user").length;
      return {
        respond: () => {
          const turn = turns++;
          if (turn === 0) return Promise.resolve({ role: "user", content: "My first line." });
          if (first)
            return new Promise((_, reject) =>
              signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
            );
          return Promise.resolve({ role: "user", content: turn === 1 ? "My second line." : "###STOP###" });
        },
      };
    },
  };
}

let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

describe("continuing a stopped conversation", () => {
  for (const width of [1280, 390] as const) {
    it(`continues it with the earlier messages there (${width} px)`, async () => {
      await web?.kill();
      const user = customer();
      web = await startWebServer({
        participants: {
          agents: ["test:echo"],
          users: ["test:customer"],
          agentFor: () => echoAgent,
          customerFor: () => user,
        },
      });
      const page: Page = await browser.context.newPage();
      await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
      page.setDefaultTimeout(60_000);
      try {
        await page.goto(`${web.url}/#/play/airline/0`);
        await page.locator('[data-task-id="0"][aria-selected="true"]').waitFor();
        await page.getByRole("button", { name: "Simulate" }).click();
        await page.getByText("You said: My first line.").waitFor();
        await page.getByRole("button", { name: "Stop", exact: true }).click();
        const closed = page.getByTestId("conversation-closed");
        await expect.poll(() => closed.getAttribute("data-reason"), { timeout: 60_000 }).toBe("abandoned");
        await closed.getByRole("button", { name: "Continue" }).click();
        await page.getByTestId("continues-link").waitFor();
        await page.getByText("You said: My second line.").waitFor();
        // The earlier messages open the continued conversation, once each.
        await expect.poll(() => page.getByText("You said: My first line.").count()).toBe(1);
        await expect.poll(() => page.getByText("My first line.", { exact: true }).count()).toBe(1);
      } finally {
        await page.close();
      }
    }, 180_000);
  }
});
