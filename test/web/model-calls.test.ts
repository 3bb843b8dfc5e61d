import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../src/core/message.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { DomainData } from "../../src/formats/tau2/domain-data.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { SimulationModelCallsResponseSchema } from "../../src/server/api-schemas.js";
import { sqliteRunCatalog } from "../../src/server/run-catalog.js";
import { Store } from "../../src/store/store.js";
import {
  goldScript,
  mockReply,
  startMockLlmServer,
  type MockLlmReply,
  type MockLlmRequest,
  type MockLlmServer,
} from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { runCli } from "../helpers/run-cli.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// The explorer's simulation page of a `passk run` against a mock provider: each agent and customer
// message has its "model call" — closed, one line; open, the system prompt, the tools, the messages
// sent, tokens, latency, and the 500 the retries served before the first call's answer.
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const API_KEY = "sk-test-calls-web-0123456789abcdef";
const TASK = "8";
const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

let folder: string;
let store: Store;
let model: MockLlmServer;
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let runId: string;
let messages: Message[];

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  folder = mkdtempSync(path.join(tmpdir(), "passk-model-calls-web-"));
  const gold = goldScript(data.task(TASK));
  model = await startMockLlmServer({
    promptCache: false,
    script: (request: MockLlmRequest): MockLlmReply => {
      if (request.index === 0)
        return mockReply.error(500, { retryAfterSeconds: 0, message: "upstream failed, try again" });
      const reply = gold(request);
      return reply.kind === "message"
        ? { ...reply, usage: { promptTokens: 1200 + request.index, completionTokens: 30 + request.index } }
        : reply;
    },
  });
  const file = path.join(folder, "run.db");
  const result = await runCli(
    [
      "run",
      "--domain",
      "airline",
      "--task-ids",
      TASK,
      "--agent-llm",
      "openai:gpt-4.1",
      "--agent-llm-base-url",
      model.baseUrl,
      "--user-llm",
      "openai:gpt-4.1",
      "--user-llm-base-url",
      model.baseUrl,
      "--store",
      file,
      "--save-to",
      path.join(folder, "run.json"),
      "--progress",
      "none",
    ],
    { env: { PASSK_DATA_DIR: tau2DataDir(), OPENAI_API_KEY: API_KEY } },
  );
  expect(result.code, result.stderr).toBe(0);
  messages = parseResults(readFileSync(path.join(folder, "run.json"), "utf8"), "run.json").results
    .simulations[0]!.messages;
  store = Store.open(file, { create: false });
  runId = store.listRuns()[0]!.id;
  web = await startWebServer({ store: sqliteRunCatalog(store) });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
  await model?.close();
  store?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function openPage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(30_000);
  return page;
}

describe("the model call behind each turn, in Chromium", { timeout: 120_000 }, () => {
  it("the API answers the simulation's recorded calls, without the key", async () => {
    const response = await fetch(`${web.url}/api/runs/${runId}/simulations/airline/${TASK}/0/model-calls`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(API_KEY);
    const body = SimulationModelCallsResponseSchema.parse(JSON.parse(text));
    const produced = messages.filter((m) => (m.role === "assistant" || m.role === "user") && m.usage);
    expect(body.record?.calls.length).toBe(produced.length);
  });

  for (const width of [1280, 390] as const) {
    it(`shows a model call under each agent and customer message, and one opens to its request (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/runs/${runId}/simulations/airline/${TASK}/0`);
      const calls = page.getByTestId("model-call");
      const produced = messages.filter((m) => (m.role === "assistant" || m.role === "user") && m.usage);
      await expect.poll(() => calls.count(), { timeout: 30_000 }).toBe(produced.length);
      // The greeting is passk's fixed text: no model call under it.
      expect(await page.locator('.messages li[data-index="0"] [data-testid="model-call"]').count()).toBe(0);

      // The customer's first message: the call retried once after a 500.
      const first = messages.findIndex((m) => m.role === "user" && m.usage);
      const customerCall = page.locator(`.messages li[data-index="${first}"] [data-testid="model-call"]`);
      const summary = customerCall.locator("summary").first();
      expect(await summary.innerText()).toMatch(
        new RegExp(`^model call customer · openai:gpt-4\\.1 · 1,201 → 31 tokens · .+ · 2 attempts$`),
      );
      await summary.click();
      const body = customerCall.locator(".model-call-body");
      await body.waitFor();
      const errors = body.getByRole("list", { name: "Provider errors served" });
      expect(await errors.innerText()).toMatch(
        /^Attempt 1: HTTP 500 — HTTP 500: .*upstream failed, try again/,
      );

      // The agent's first tool call: its system prompt is the policy prompt, the tools are airline's,
      // and the messages sent end with the customer's request.
      const agentTurn = messages.findIndex((m) => m.role === "assistant" && (m.tool_calls ?? []).length > 0);
      const agentCall = page.locator(`.messages li[data-index="${agentTurn}"] [data-testid="model-call"]`);
      expect(await agentCall.locator("summary").first().innerText()).toMatch(
        /^model call agent · openai:gpt-4\.1 · /,
      );
      await agentCall.locator("summary").first().click();
      const agentBody = agentCall.locator(".model-call-body");
      await agentBody.waitFor();
      const system = agentBody.locator("details.model-call-part", { hasText: "System prompt" });
      await system.locator("summary").click();
      expect(await system.locator("pre").innerText()).toContain(data.policy.slice(0, 80));
      const tools = agentBody.locator("details.model-call-part", { hasText: "Tools the model saw" });
      expect(await tools.locator("summary").first().innerText()).toBe(
        `Tools the model saw (${data.domain.agent.tools.length})`,
      );
      await tools.locator("summary").first().click();
      expect(await tools.locator(".model-call-tools > li code").allInnerTexts()).toContain(
        "book_reservation",
      );
      const sent = agentBody.locator("details.model-call-part", { hasText: "Messages sent" });
      await sent.locator("summary").click();
      const sentItems = sent.locator(".sent-message");
      // Everything of the trajectory up to that turn, the greeting included.
      expect(await sentItems.count()).toBe(agentTurn);
      const lastCustomer = messages.slice(0, agentTurn).findLast((m) => m.role === "user")!;
      expect(await sentItems.last().innerText()).toContain(lastCustomer.content!.slice(0, 40));
      expect(await page.locator("body").innerText()).not.toContain(API_KEY);
      expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true);
      await page.screenshot({ path: path.join(SCREENS, `model-call-${width}.png`), fullPage: false });
      await page.close();
    });
  }
});
