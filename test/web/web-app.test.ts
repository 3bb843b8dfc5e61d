import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { DomainData } from "../../src/formats/tau2/domain-data.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { DomainDetailSchema } from "../../src/server/api-schemas.js";
import { createServer } from "../../src/server/create-server.js";
import { memoryRunCatalog, type RunCatalog } from "../../src/server/run-catalog.js";
import { goldScript } from "../../src/testing/gold-model.js";
import {
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../../src/testing/index.js";
import type { MockLlmReply } from "../../src/testing/mock-llm-reply.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { createUserSimulator, readUserGuidelines } from "../../src/users/create-user.js";
import { ARTIFACTS, WEB_DIST, ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { buildOfficialResults } from "../helpers/official-results.js";
import { buildResults } from "./helpers/seed-results.js";

// The airline domain when it is registered (the issue's scenario), else the mock domain.
const DOMAIN = builtinDomains.has("airline") ? "airline" : "mock";
const SIMULATED_TASK = DOMAIN === "airline" ? "8" : "create_task_1";
const SEED_TASKS =
  DOMAIN === "airline"
    ? ["0", "1", "7", "8", "11", "14"]
    : ["create_task_1", "update_task_1", "impossible_task_1"];
const FAILING = (task: string, trial: number) =>
  (task === SEED_TASKS[2] && trial % 2 === 1) || (task === SEED_TASKS[SEED_TASKS.length - 1] && trial === 2);
const API_KEY = "sk-passk-e2e-DO-NOT-LEAK-0123456789";
const AGENT_SPEC = "openai-compatible:mock-agent";
const USER_SPEC = "openai-compatible:mock-user";
const HUMAN_REPLY = "Happy to help. Could you give me your reservation number?";

const dataDir = tau2DataDir();
const data = new DomainData(builtinDomains.get(DOMAIN)!, dataDir);
let mock: MockLlmServer;
let script: (request: MockLlmRequest) => MockLlmReply = () => mockReply.text(HUMAN_REPLY);
let server: ServerType;
let baseUrl: string;
let store: RunCatalog;
let folder: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const seen: string[] = [];

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  folder = mkdtempSync(path.join(tmpdir(), "passk-web-"));
  mock = await startMockLlmServer({ script: (request) => script(request) });
  const env = { OPENAI_COMPATIBLE_API_KEY: API_KEY };
  store = memoryRunCatalog();
  const seeded = await buildResults(data, {
    taskIds: SEED_TASKS,
    trials: 4,
    fails: FAILING,
    model: "openai:seeded-model",
  });
  store.importResults(parseResults(JSON.stringify(seeded), "seeded.json"), {
    label: "seeded run",
    domain: DOMAIN,
  });
  const app = createServer({
    domains: builtinDomains,
    dataDir,
    loadDomainData: (domain) => (domain.name === DOMAIN ? data : new DomainData(domain, dataDir)),
    participants: {
      agents: [AGENT_SPEC],
      users: [USER_SPEC],
      agentFor: (spec) => createAgent(spec, { env, baseUrl: mock.baseUrl, retry: { maxAttempts: 1 } }),
      customerFor: (spec) =>
        createUserSimulator(spec, {
          env,
          baseUrl: mock.baseUrl,
          guidelines: () => readUserGuidelines(dataDir),
        }),
    },
    store,
    webRoot: WEB_DIST,
    secrets: [API_KEY],
    limits: { dailySpendCapUsd: 5 },
  });
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  // Everything the browser receives from the server is kept, to check that no key is in it.
  browser.context.on("response", (response) => {
    if (!response.url().startsWith(baseUrl)) return;
    response
      .text()
      .then((text) => seen.push(text))
      .catch(() => {});
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await mock?.close();
  rmSync(folder, { recursive: true, force: true });
});

async function openPage(width = 1280, height = 800): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height });
  page.setDefaultTimeout(15_000);
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });

describe(`web app in Chromium (${DOMAIN})`, () => {
  it("streams a simulated conversation against the mock model: tool-call cards, world diffs, then the reward card", async () => {
    script = goldScript(data.task(SIMULATED_TASK));
    const page = await openPage();
    await page.goto(`${baseUrl}/#/`);
    await page.getByLabel("Domain").selectOption(DOMAIN);
    await page.getByLabel("Task", { exact: true }).fill(SIMULATED_TASK);
    await page.locator(`[data-task-id="${SIMULATED_TASK}"]`).click();
    await page.getByRole("button", { name: "Simulate" }).click();
    await page.getByTestId("tool-call-card").first().waitFor();
    await page.getByTestId("reward-card").waitFor({ timeout: 30_000 });
    const cards = await page.getByTestId("tool-call-card").count();
    const gold = (data.task(SIMULATED_TASK).evaluation_criteria?.actions ?? []).length;
    expect(cards).toBe(gold);
    expect(await page.getByTestId("world-change-card").count()).toBeGreaterThan(0);
    expect(await page.getByTestId("reward-value").textContent()).toBe("1.00");
    // A conversation that passed has no one to blame.
    expect(await page.getByTestId("review").count()).toBe(0);
    await expect.poll(() => page.locator(".tool-card .latency").first().textContent()).toMatch(/ms$/);
    await page.getByTestId("reward-card").scrollIntoViewIfNeeded();
    await shot(page, "playground-simulated");
    await page.close();
  });

  it("simulates a conversation that meets a perturbation: the faulted tool call is marked in the trace", async () => {
    script = goldScript(data.task(SIMULATED_TASK));
    const page = await openPage();
    await page.goto(`${baseUrl}/#/`);
    await page.getByLabel("Domain").selectOption(DOMAIN);
    await page.getByLabel("Task", { exact: true }).fill(SIMULATED_TASK);
    await page.locator(`[data-task-id="${SIMULATED_TASK}"]`).click();
    await page.locator("details.perturb > summary").click();
    await page.getByLabel("tool-faults").check();
    await page.getByRole("button", { name: "Simulate" }).click();
    await page.getByTestId("reward-card").waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("conversation-perturbations").textContent()).toBe(
      "perturbed: tool-faults@1",
    );
    const marks = page.getByTestId("perturbation-mark");
    await marks.first().waitFor();
    expect(await marks.first().textContent()).toMatch(/^tool-faults@1: (transient|timeout|partial)/);
    // The faulted call's card says what the agent was answered.
    const faulted = page.getByTestId("tool-call-card").filter({ has: marks.first() });
    expect(await faulted.count()).toBe(1);
    await faulted.scrollIntoViewIfNeeded();
    await shot(page, "playground-perturbed");
    await page.close();
  });

  it("answers a message a person types", async () => {
    script = () => mockReply.text(HUMAN_REPLY);
    const page = await openPage();
    await page.goto(`${baseUrl}/#/`);
    await page.getByLabel("Domain").selectOption(DOMAIN);
    await page.getByLabel("Me (type as the customer)").check();
    await page.getByRole("button", { name: "Start a free conversation" }).click();
    const box = page.getByLabel("Message to the agent");
    await expect.poll(() => box.isEnabled()).toBe(true);
    await box.fill("Hi, I want to change my flight.");
    await box.press("Enter");
    await page.locator(".message.customer .bubble", { hasText: "change my flight" }).waitFor();
    await page.locator(".message.agent .bubble", { hasText: HUMAN_REPLY }).waitFor();
    // The agent model saw what the person typed.
    const last = mock.requests.at(-1)!;
    expect(JSON.stringify(last.messages)).toContain("Hi, I want to change my flight.");
    await shot(page, "playground-human");
    await page.getByRole("button", { name: "End & grade" }).click();
    await page.getByTestId("end-card").waitFor();
    await page.close();
  });

  it.runIf(DOMAIN === "airline")(
    "tells a person who played the customer and failed the task who caused it, with the evidence",
    async () => {
      script = () => mockReply.text(HUMAN_REPLY);
      const page = await openPage();
      await page.goto(`${baseUrl}/#/`);
      await page.getByLabel("Domain").selectOption(DOMAIN);
      await page.getByLabel("Task", { exact: true }).fill(SIMULATED_TASK);
      await page.locator(`[data-task-id="${SIMULATED_TASK}"]`).click();
      await page.getByLabel("Me (type as the customer)").check();
      await page.getByRole("button", { name: "Start conversation" }).click();
      const box = page.getByLabel("Message to the agent");
      await expect.poll(() => box.isEnabled()).toBe(true);
      // A reservation number that is in neither the task's scenario nor the conversation.
      await box.fill("Hello! My reservation is QX7Z2K, could you cancel it please?");
      await box.press("Enter");
      await page.locator(".message.agent .bubble", { hasText: HUMAN_REPLY }).last().waitFor();
      await page.getByRole("button", { name: "End & grade" }).click();
      await page.getByTestId("reward-card").waitFor({ timeout: 30_000 });
      expect(await page.getByTestId("reward-value").textContent()).toBe("0.00");
      const review = page.getByTestId("review");
      await review.waitFor();
      expect(await review.locator(".badge").textContent()).toBe("you (the customer)");
      const text = (await review.textContent()) ?? "";
      expect(text).toContain("check customer-invented-fact");
      expect(text).toContain('the customer stated "QX7Z2K"');
      // The evidence quotes what the person typed, as theirs.
      expect(await review.getByRole("list", { name: "Evidence" }).textContent()).toMatch(
        /you, turn \d+:.*My reservation is QX7Z2K/,
      );
      await review.scrollIntoViewIfNeeded();
      await shot(page, "playground-human-review");
      await page.close();
    },
  );

  it("keeps the trace where a reader scrolled it while new cards arrive, and follows when they are at the end", async () => {
    // Each thing the person says, the agent looks up the customer, then answers.
    script = (request) =>
      request.messages.at(-1)?.role === "tool"
        ? mockReply.text("Noted. Anything else?")
        : mockReply.toolCall("get_user_details", { user_id: "sophia_silva_7557" });
    const page = await openPage(1280, 560);
    await page.goto(`${baseUrl}/#/`);
    await page.getByLabel("Domain").selectOption(DOMAIN);
    await page.getByLabel("Me (type as the customer)").check();
    await page.getByRole("button", { name: "Start a free conversation" }).click();
    const box = page.getByLabel("Message to the agent");
    const cards = page.getByTestId("tool-call-card");
    const trace = page.locator(".trace");
    const say = async (text: string) => {
      const before = await cards.count();
      await expect.poll(() => box.isEnabled(), { timeout: 15_000 }).toBe(true);
      await box.fill(text);
      await box.press("Enter");
      await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(before + 1);
      await cards.nth(before).locator(".latency").waitFor();
    };
    // After two frames the page has seen where the trace is scrolled.
    const settle = () =>
      page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))");
    const position = () =>
      trace.evaluate((el) => ({
        top: el.scrollTop,
        bottomGap: el.scrollHeight - el.clientHeight - el.scrollTop,
      }));
    for (let i = 0; i < 6; i++) await say(`Question ${i}: what do you have on file for me?`);
    expect(await trace.evaluate((el) => el.scrollHeight > el.clientHeight + 200)).toBe(true);
    // Following: the newest card is in view.
    await expect.poll(async () => (await position()).bottomGap, { timeout: 15_000 }).toBeLessThan(40);
    // Reading an earlier card: a new one does not pull the trace away from it.
    await trace.evaluate((el) => (el.scrollTop = 0));
    await settle();
    await say("One more question, please.");
    await settle();
    expect((await position()).top).toBe(0);
    // Back at the end: it follows again.
    await trace.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await settle();
    await say("And a last one.");
    await expect.poll(async () => (await position()).bottomGap, { timeout: 15_000 }).toBeLessThan(40);
    await page.getByRole("button", { name: "End & grade" }).click();
    await page.getByTestId("end-card").waitFor();
    expect(await page.getByTestId("end-card").innerText()).toMatch(/ s · cost: agent (\$\S+|unknown)$/);
    await page.close();
  });

  it("shows a run's grid and pass^k chart, and opens a failing simulation's diff", async () => {
    const page = await openPage();
    await page.goto(`${baseUrl}/#/runs`);
    await page.getByRole("link", { name: "seeded run" }).click();
    await page.getByTestId("run-grid").waitFor();
    await page.getByTestId("pass-k-chart").locator("canvas").waitFor();
    expect(await page.locator(".grid-cell").count()).toBe(SEED_TASKS.length * 4);
    // Tasks that both pass and fail are marked flaky, their Wilson interval in the tooltip.
    expect(await page.locator(".grid-score .flaky").count()).toBe(2);
    expect(await page.locator(".grid-score[title]").first().getAttribute("title")).toMatch(
      /95% Wilson interval/,
    );
    // The page says whether the run can stand beside the leaderboard, and why not.
    expect(await page.locator(".page-head .comparability").innerText()).toMatch(
      /^not τ²-comparable: .*base-split tasks not run \(a task subset\)/,
    );
    const failing = page.locator('.grid-cell[data-reward="0"]');
    expect(await failing.count()).toBe(3);
    // Filtering by the failing check keeps only the tasks that failed it.
    await page.getByRole("button", { name: /DB failed/ }).click();
    expect(await page.locator(".grid-row").count()).toBe(2);
    await shot(page, "explorer-run");
    await failing.first().click();
    await page.getByTestId("db-diff").first().waitFor();
    await page.getByTestId("reward-card").waitFor();
    expect(await page.locator(".check-section.failing").count()).toBeGreaterThan(0);
    expect(await page.getByTestId("db-diff").first().locator(".record").count()).toBeGreaterThan(0);
    await shot(page, "explorer-simulation");
    await page.close();
  });

  it("imports an official results file by upload", async () => {
    // An official-shape results file (as `tau2 run --save-to` writes), with failures of several kinds.
    const variants = [
      "gold",
      "missing_action",
      "wrong_final_message",
      "max_steps",
      "infrastructure_error",
      "gold",
    ] as const;
    const results = buildOfficialResults(
      data,
      SEED_TASKS.slice(0, 3).flatMap((task, t) =>
        [0, 1].map((trial) => ({ task, trial, variant: variants[(2 * t + trial) % variants.length]! })),
      ),
    );
    const file = path.join(folder, "official-results.json");
    writeFileSync(file, JSON.stringify(results));
    const page = await openPage();
    await page.goto(`${baseUrl}/#/runs`);
    await page.getByTestId("upload").setInputFiles(file);
    await page.getByText("Imported official-results.json").waitFor();
    await page.getByRole("link", { name: "official-results.json" }).waitFor();
    expect(store.listRuns().map((r) => r.label)).toContain("official-results.json");
    // A broken file is refused with the reason.
    const broken = path.join(folder, "broken.json");
    writeFileSync(broken, '{"info": {}, "tasks": [], "simulations": [{"id": 3}]}');
    await page.getByTestId("upload").setInputFiles(broken);
    await page.getByRole("alert").filter({ hasText: "broken.json is not valid" }).waitFor();
    // Two runs on one chart.
    await page.getByLabel("select seeded run").check();
    await page.getByLabel("select official-results.json").check();
    await page.getByTestId("pass-k-chart").locator("canvas").waitFor();
    await shot(page, "explorer-runs");
    await page.getByRole("link", { name: "Compare these two" }).click();
    await page.getByTestId("compare-table").waitFor();
    expect(await page.getByTestId("compare-table").locator("tbody tr").count()).toBe(3);
    // Is the difference real? One sentence with the test, the interval, and what the design can see.
    expect(await page.getByTestId("significance").innerText()).toMatch(
      /^B − A success rate: [+−]\d\.\d{3} \[95% CI .*\] \(p = .*paired sign-flip test over \d+ tasks/,
    );
    await shot(page, "explorer-compare");
    await page.close();
  });

  it("lists every run's pass^1 and pass^k with its curve, whatever its number of trials", async () => {
    const six = await buildResults(data, { taskIds: SEED_TASKS.slice(0, 1), trials: 6, fails: () => false });
    store.importResults(parseResults(JSON.stringify(six), "six.json"), {
      label: "six trials",
      domain: DOMAIN,
    });
    const page = await openPage();
    await page.goto(`${baseUrl}/#/runs`);
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "six trials" }) });
    await row.waitFor();
    // No column per trial: pass^1, the run's own pass^k, and the curve between them.
    const headers = await page.locator(".runs-table thead th").allTextContents();
    expect(headers.filter((h) => h.startsWith("pass^"))).toEqual(["pass^1", "pass^k", "pass^1…k"]);
    expect(await row.locator("td.pass-1").innerText()).toBe("100.0%");
    expect(await row.locator("td.pass-k").innerText()).toMatch(/^100\.0%\s+k=6$/);
    expect(await row.getByTestId("sparkline").getAttribute("aria-label")).toBe(
      `pass^k curve: ${[1, 2, 3, 4, 5, 6].map((k) => `pass^${k} 100.0%`).join(", ")}`,
    );
    expect(await row.getByTestId("sparkline").locator("circle").count()).toBe(6);
    // The run's page leads with pass^1…pass^3 and the run's own pass^k.
    await row.getByRole("link", { name: "six trials" }).click();
    await page.locator(".stats .stat-label").first().waitFor();
    const labels = await page.locator(".stats .stat-label").allTextContents();
    expect(labels.filter((l) => l.startsWith("pass^"))).toEqual(["pass^1", "pass^2", "pass^3", "pass^6"]);
    await page.close();
  });

  it("starts a scenario chip's conversation in one click", async () => {
    const detail = DomainDetailSchema.parse(await (await fetch(`${baseUrl}/api/domains/${DOMAIN}`)).json());
    const chip = detail.scenarios[0]!;
    script = goldScript(data.task(chip.taskId));
    const page = await openPage();
    await page.goto(`${baseUrl}/#/`);
    await page.getByLabel("Domain").selectOption(DOMAIN);
    await page.getByRole("button", { name: chip.label }).click();
    // The chip is disabled while its conversation runs: keyboard focus moves to the conversation.
    await expect
      .poll(() => page.evaluate("document.activeElement?.id"), { timeout: 15_000 })
      .toBe("pane-conversation");
    await page.getByText(` · ${chip.taskId} · `, { exact: false }).waitFor();
    await page.getByTestId("end-card").waitFor({ timeout: 30_000 });
    await page.close();
  });

  it.runIf(builtinDomains.has("telecom"))(
    "shows the customer's phone changing as their tools act (telecom)",
    async () => {
      const telecom = new DomainData(builtinDomains.get("telecom")!, dataDir);
      const taskId = "[service_issue]airplane_mode_on[PERSONA:None]";
      script = goldScript(telecom.task(taskId));
      const page = await openPage();
      await page.goto(`${baseUrl}/#/`);
      await page.getByLabel("Domain").selectOption("telecom");
      await page.getByLabel("Task", { exact: true }).fill("airplane_mode_on[PERSONA:None]");
      await page.locator(`[data-task-id="${taskId}"]`).click();
      await page.getByRole("button", { name: "Simulate" }).click();
      const airplane = page.getByTestId("phone").locator("li", { hasText: "Airplane mode" });
      await page.getByTestId("reward-card").waitFor({ timeout: 30_000 });
      await expect.poll(() => airplane.textContent()).toBe("Airplane modeOff");
      // The customer's toggle shows as a change on their side: airplane mode true → false.
      const change = page
        .getByTestId("world-change-card")
        .filter({ hasText: "Customer's side changed" })
        .filter({ hasText: "airplane_mode" });
      expect(await change.first().locator(".diff-old .value").first().textContent()).toBe("true");
      expect(await change.first().locator(".diff-new .value").first().textContent()).toBe("false");
      expect(await page.getByTestId("phone-status").textContent()).not.toContain("Airplane");
      expect(await page.getByTestId("reward-value").textContent()).toBe("1.00");
      await page.getByTestId("phone").scrollIntoViewIfNeeded();
      await shot(page, "playground-telecom-phone");

      // A person playing the customer uses their phone's tools themselves.
      script = () => mockReply.text("Please turn airplane mode off.");
      await page.getByLabel("Me (type as the customer)").check();
      await page.getByRole("button", { name: "Start conversation" }).click();
      await expect.poll(() => page.getByLabel("Message to the agent").isEnabled()).toBe(true);
      await expect.poll(() => airplane.textContent()).toBe("Airplane modeOn");
      await page.getByText(/^Your tools/).click();
      await page.getByRole("button", { name: "toggle airplane mode" }).click();
      await expect.poll(() => airplane.textContent()).toBe("Airplane modeOff");
      await shot(page, "playground-telecom-human");
      await page.close();
    },
  );

  it("loads a 1,000-simulation run without stalling (virtualised grid)", async () => {
    const base = await buildResults(data, {
      taskIds: SEED_TASKS.slice(0, 2),
      trials: 4,
      fails: (_t, trial) => trial === 3,
    });
    const copies = Math.ceil(1000 / base.simulations.length);
    const big = {
      ...base,
      tasks: Array.from({ length: copies }, (_, c) =>
        base.tasks.map((t) => ({ ...t, id: `${t.id}-copy-${c}` })),
      ).flat(),
      simulations: Array.from({ length: copies }, (_, c) =>
        base.simulations.map((s) => ({ ...s, id: `${s.id}-${c}`, task_id: `${s.task_id}-copy-${c}` })),
      ).flat(),
    };
    const runId = store.importResults(parseResults(JSON.stringify(big), "big.json"), {
      label: "big run",
      domain: DOMAIN,
    });
    const page = await openPage();
    const started = Date.now();
    await page.goto(`${baseUrl}/#/runs/${runId}`);
    await page.getByTestId("run-grid").locator(".grid-row").first().waitFor();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(5_000);
    expect(await page.getByText(`(${big.simulations.length} simulations)`).count()).toBe(1);
    // Only the rows in view are in the page.
    expect(await page.locator(".grid-row").count()).toBeLessThan(60);
    await page.getByTestId("run-grid").evaluate((grid) => grid.scrollTo(0, grid.scrollHeight));
    await page
      .locator(".grid-row", { hasText: `-copy-${copies - 1}` })
      .first()
      .waitFor();
    await shot(page, "explorer-big-run");
    await page.close();
  });

  it("works on a phone-sized screen and from the keyboard", async () => {
    const page = await openPage(390, 844);
    await page.goto(`${baseUrl}/#/`);
    await page.getByLabel("Domain").waitFor();
    // The first Tab reaches the skip link; Enter moves focus to the content.
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate("document.activeElement?.id")).toBe("main");
    await page.getByRole("button", { name: "Policy", exact: true }).click();
    await page.getByLabel("Search the policy").fill("cancel");
    await page.locator(".pane.active mark").first().waitFor();
    expect(await page.locator(".pane.active").count()).toBe(1);
    await shot(page, "playground-phone");
    await page.goto(`${baseUrl}/#/runs`);
    await page.getByRole("link", { name: "seeded run" }).waitFor();
    await shot(page, "explorer-phone");
    await page.close();
  });

  it("shows the budget banner and refuses new conversations once the daily cap is spent", async () => {
    const capped = createServer({
      domains: builtinDomains,
      dataDir,
      loadDomainData: (domain) => (domain.name === DOMAIN ? data : new DomainData(domain, dataDir)),
      participants: {
        agents: [AGENT_SPEC],
        users: [USER_SPEC],
        agentFor: () => {
          throw new Error("no conversation may start");
        },
        customerFor: () => {
          throw new Error("no conversation may start");
        },
      },
      webRoot: WEB_DIST,
      limits: { dailySpendCapUsd: 0 },
    });
    const other = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: capped.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    try {
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const page = await openPage();
      await page.goto(`${otherUrl}/#/`);
      await page.getByTestId("budget-banner").filter({ hasText: "Today's budget is used up" }).waitFor();
      await page.getByLabel("Task", { exact: true }).fill(SIMULATED_TASK);
      await page.locator(`[data-task-id="${SIMULATED_TASK}"]`).click();
      expect(await page.getByRole("button", { name: "Simulate" }).isDisabled()).toBe(true);
      await shot(page, "playground-budget-exhausted");
      await page.close();
      const refused = await fetch(`${otherUrl}/api/conversations`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ domain: DOMAIN, mode: "human" }),
      });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { code: string }).code).toBe("spend_cap_reached");
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("keeps API keys on the server: not in the bundle, not in any answer", async () => {
    // The key did reach the model provider (the mock), so it was in use.
    expect(mock.requests.some((r) => r.headers["authorization"] === `Bearer ${API_KEY}`)).toBe(true);
    const files = readdirSync(WEB_DIST, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(2);
    for (const entry of files) {
      const text = readFileSync(path.join(entry.parentPath, entry.name), "utf8");
      expect(text).not.toContain(API_KEY);
      expect(text).not.toMatch(/sk-[A-Za-z0-9]{20,}/);
    }
    expect(seen.length).toBeGreaterThan(10);
    for (const text of seen) expect(text).not.toContain(API_KEY);
  });
});
