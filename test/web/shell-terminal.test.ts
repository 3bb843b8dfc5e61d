import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// A banking_knowledge conversation (terminal_use) in the explorer: the agent's `shell` calls show as a
// terminal — `$ command`, then what the sandbox answered — while other tool calls keep their notes.
const banking = sharedDomainData(builtinDomains.get("banking_knowledge")!, tau2DataDir());
const TASK = "task_001";
const GREP = "grep -ril 'wire transfer' . | head -3";
// Indented lines and a blank line: the terminal keeps them as the tool wrote them.
const GREP_OUTPUT = "./wire_transfers.md\n./fees/international.md\n\n    ./faq/limits.md";
const CAT = "cat missing.md";
const CAT_OUTPUT = "Error (exit code 1): cat: missing.md: No such file or directory";

let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let runId = "";

beforeAll(async () => {
  ensureWebBuilt();
  const call = (id: string, name: string, args: Record<string, unknown>) => ({
    id,
    name,
    arguments: args,
    requestor: "assistant",
  });
  const results = {
    timestamp: "2025-06-01T12:00:00Z",
    info: {
      num_trials: 1,
      max_steps: 200,
      max_errors: 10,
      user_info: { implementation: "user_simulator", llm: "scripted:gold" },
      agent_info: { implementation: "llm_agent", llm: "scripted:gold" },
      environment_info: { domain_name: "banking_knowledge" },
      seed: 300,
    },
    tasks: [banking.task(TASK)],
    simulations: [
      {
        id: "shell-sim",
        task_id: TASK,
        trial: 0,
        seed: 300,
        termination_reason: "user_stop",
        reward_info: { reward: 0 },
        messages: [
          { role: "assistant", content: "Hi! How can I help you today?" },
          { role: "user", content: "What does a wire transfer cost?" },
          { role: "assistant", content: null, tool_calls: [call("c1", "shell", { command: GREP })] },
          { role: "tool", id: "c1", content: GREP_OUTPUT },
          { role: "assistant", content: null, tool_calls: [call("c2", "shell", { command: CAT })] },
          { role: "tool", id: "c2", content: CAT_OUTPUT },
          {
            role: "assistant",
            content: null,
            tool_calls: [call("c3", "KB_search_bm25", { query: "wire transfer fee" })],
          },
          { role: "tool", id: "c3", content: "No documents matched." },
          { role: "assistant", content: "A wire transfer costs $25." },
          { role: "user", content: "Thanks! ###STOP###" },
        ],
      },
    ],
  };
  const store = memoryRunCatalog();
  runId = store.importResults(parseResults(JSON.stringify(results), "shell.json"), {
    label: "terminal_use",
    domain: "banking_knowledge",
  });
  web = await startWebServer({ store });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

async function openSimulation(): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  page.setDefaultTimeout(15_000);
  await page.goto(`${web.url}/#/runs/${runId}/simulations/banking_knowledge/${TASK}/0`);
  return page;
}

describe("a shell call in the explorer", () => {
  it("shows as a terminal with the command and its output; other tools keep their notes", async () => {
    const page = await openSimulation();
    const terminals = page.getByTestId("shell-terminal");
    await terminals.nth(1).waitFor();
    expect(await terminals.count()).toBe(2);

    const grep = terminals.nth(0);
    expect(await grep.locator(".shell-command").innerText()).toBe(`$ ${GREP}`);
    // The output exactly as the tool answered, whitespace kept.
    expect(await grep.locator(".shell-output").textContent()).toBe(GREP_OUTPUT);
    // (Each function runs in the page, so each spells out its own lookup.)
    const output = grep.locator(".shell-output");
    expect(await output.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).whiteSpace)).toBe(
      "pre-wrap",
    );
    expect(
      await grep.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).fontFamily),
    ).toMatch(/monospace/);
    expect(
      await grep.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor),
    ).toBe("rgb(15, 23, 42)");
    expect(await grep.getAttribute("class")).not.toMatch(/failed/);

    // A failed command: its exit-code line is the output, marked as a failure.
    const cat = terminals.nth(1);
    expect(await cat.locator(".shell-command").innerText()).toBe(`$ ${CAT}`);
    expect(await cat.locator(".shell-output").textContent()).toBe(CAT_OUTPUT);
    expect(await cat.getAttribute("class")).toMatch(/failed/);

    // The shell calls show no JSON-arguments note and their results are not repeated; the other tool
    // call keeps its note and its folded result.
    const notes = page.locator(".messages .call-note");
    expect(await notes.count()).toBe(1);
    expect(await notes.innerText()).toMatch(/^→ KB_search_bm25/);
    const results = page.locator(".messages li.tool-result");
    expect(await results.count()).toBe(1);
    expect(await results.locator("pre").textContent()).toBe("No documents matched.");
    await page.close();
  });
});
