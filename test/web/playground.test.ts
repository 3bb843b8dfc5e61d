import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/core/agent.js";
import { goldAgent } from "../../src/agents/gold-agent.js";
import { startAgent, taskReadingAgent } from "../../src/core/task-reading-agent.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { goldUser } from "../../src/users/gold-user.js";
import { parseResults } from "../../src/formats/tau2/results.js";
import { DomainDetailSchema } from "../../src/server/api-schemas.js";
import { createMemoryConversationStore } from "../../src/store/conversation-store.js";
import { memoryRunCatalog, type RunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// The playground as a first-time visitor meets it, against the keyless scripted agent and customer.
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
const telecom = sharedDomainData(builtinDomains.get("telecom")!, tau2DataDir());
let store: RunCatalog;
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let seededRunId: string;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  store = memoryRunCatalog();
  // scripted:gold on airline: task 7 passes 2 of 4 trials, task 8 all 4 — pass^1 = (2/4 + 1)/2 = 75%,
  // pass^4 = (0 + 1)/2 = 50%.
  const seeded = await buildResults(airline, {
    taskIds: ["7", "8"],
    trials: 4,
    fails: (task, trial) => task === "7" && trial % 2 === 1,
  });
  seededRunId = store.importResults(parseResults(JSON.stringify(seeded), "gold.json"), {
    label: "gold on airline",
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

const WIDTHS = [1280, 390] as const;
const phone = (width: number) => width < 900;

/** On a phone the panes are tabs: show one. */
async function showPane(page: Page, width: number, pane: "Chat" | "Trace" | "Policy") {
  if (phone(width))
    await page.getByRole("navigation", { name: "Panes" }).getByRole("button", { name: pane }).click();
}

async function startHumanConversation(page: Page, width: number): Promise<string> {
  await page.goto(`${web.url}/#/play/airline/8`);
  await page.locator('[data-task-id="8"][aria-selected="true"]').waitFor();
  await page.getByLabel("Me (type as the customer)").check();
  await page.getByRole("button", { name: "Start conversation" }).click();
  await expect.poll(() => page.getByLabel("Message to the agent").isEnabled()).toBe(true);
  // The conversation has a link of its own.
  await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/play\/airline\/8\/[\w-]+$/);
  await showPane(page, width, "Chat");
  return new URL(page.url()).hash.split("/").at(-1)!;
}

const greetings = (page: Page) => page.locator(".message.agent .bubble", { hasText: "How can I help you" });

async function isInView(list: Locator, item: Locator): Promise<boolean> {
  const [outer, inner] = await Promise.all([list.boundingBox(), item.boundingBox()]);
  return !!outer && !!inner && inner.y >= outer.y - 1 && inner.y + inner.height <= outer.y + outer.height + 1;
}

describe("the playground in Chromium", () => {
  for (const width of WIDTHS) {
    it(`says the connection is lost when the server dies mid-conversation, then ends in a state where the controls work (${width} px)`, async () => {
      const page = await openPage(width);
      const id = await startHumanConversation(page, width);
      // What the page has is kept by the server as it goes.
      const conversations = store.conversations!;
      await expect
        .poll(() => conversations.get(id)?.events.some((e) => e.type === "awaiting-customer"))
        .toBe(true);

      await web.kill();
      const banner = page.getByTestId("connection-lost");
      await banner.waitFor();
      expect(await banner.innerText()).toMatch(/Connection lost, retrying/);
      expect(await page.getByLabel("Message to the agent").isDisabled()).toBe(true);

      if (width === 1280) {
        // The server comes back with its store: the conversation is known, and ended as interrupted.
        await web.restart();
        const closed = page.getByTestId("conversation-closed");
        await closed.waitFor({ timeout: 20_000 });
        expect(await closed.getAttribute("data-reason")).toBe("interrupted");
        expect(await closed.innerText()).toMatch(
          /^Interrupted\. The server stopped while this conversation was running/,
        );
      } else {
        // The server comes back without what it had: the page says the conversation is gone.
        await web.restart({ store, conversations: createMemoryConversationStore() });
        const lost = page.getByTestId("conversation-lost");
        await lost.waitFor({ timeout: 20_000 });
        expect(await lost.innerText()).toMatch(/The server does not have this conversation/);
      }
      expect(await banner.count()).toBe(0);
      // What was said stays, once; the controls work: a new conversation starts and is answered.
      expect(await greetings(page).count()).toBe(1);
      expect(await page.getByLabel("Message to the agent").isDisabled()).toBe(true);
      await page.getByRole("button", { name: "Start conversation" }).click();
      const box = page.getByLabel("Message to the agent");
      await expect.poll(() => box.isEnabled()).toBe(true);
      await box.fill("I want to book a one-way flight from ORD to PHL on May 26.");
      await box.press("Enter");
      await page.locator(".message.customer .bubble", { hasText: "ORD to PHL" }).waitFor();
      await expect.poll(() => page.locator(".message.agent .bubble").count()).toBeGreaterThanOrEqual(2);
      await page.close();
      if (width === 390) {
        await web.kill();
        await web.restart({ store });
      }
    });
  }

  it("pages opened while the server is down recover by themselves when it comes back", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/runs`);
    await page.getByText("gold on airline").first().waitFor();
    const sections = page.getByRole("navigation", { name: "Sections" });
    const unreachable = page.getByRole("alert").filter({ hasText: "cannot reach the passk server" });

    await web.kill();
    await sections.getByRole("link", { name: "Playground" }).click();
    await unreachable.waitFor();
    await web.restart();
    // No reload: the chips and the policy come back, and the page no longer says the server is gone.
    await page.getByRole("button", { name: /Book a flight/ }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole("region", { name: "Policy" }).innerText()).not.toMatch(/Loading…/);
    expect(await unreachable.count()).toBe(0);

    await web.kill();
    await sections.getByRole("link", { name: "Runs" }).click();
    await unreachable.waitFor();
    await web.restart();
    await page.getByText("gold on airline").first().waitFor({ timeout: 30_000 });
    expect(await unreachable.count()).toBe(0);
    await page.close();
  });

  it("resumes after a dropped connection without showing anything twice", async () => {
    const page = await openPage(1280);
    await startHumanConversation(page, 1280);
    web.dropConnections();
    // The stream comes back by itself (the server kept the conversation): the person can go on.
    const box = page.getByLabel("Message to the agent");
    await expect.poll(() => page.getByTestId("connection-lost").count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => box.isEnabled()).toBe(true);
    await box.fill("I want to book a one-way flight from ORD to PHL on May 26.");
    await box.press("Enter");
    await expect.poll(() => page.getByTestId("tool-call-card").count()).toBe(4);
    await page.getByRole("button", { name: "End & grade" }).click();
    await page.getByTestId("reward-card").waitFor();
    expect(await greetings(page).count()).toBe(1);
    // "End & grade" is an event of the conversation, not words the person typed.
    expect(await page.locator(".message.customer .bubble", { hasText: "###" }).count()).toBe(0);
    expect(await page.getByTestId("stop-event").last().innerText()).toMatch(/You ended the conversation$/);
    await page.close();
  });

  it("End & grade pressed while the agent is answering grades the conversation after its turn", async () => {
    // The gold agent, held in its second turn (its answer to the person) until the test lets it go.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const heldAgent: Agent = taskReadingAgent({ name: "held-gold" }, async (init, task) => {
      const session = await startAgent(goldAgent, init, task);
      let turns = 0;
      return {
        respond: async (incoming) => (turns++ === 1 ? await held : undefined, session.respond(incoming)),
      };
    });
    const slow = await startWebServer({
      store,
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        agentFor: () => heldAgent,
        customerFor: () => goldUser,
      },
    });
    const page = await openPage(1280);
    try {
      await page.goto(`${slow.url}/#/play/airline/8`);
      await page.locator('[data-task-id="8"][aria-selected="true"]').waitFor();
      await page.getByLabel("Me (type as the customer)").check();
      await page.getByRole("button", { name: "Start conversation" }).click();
      const box = page.getByLabel("Message to the agent");
      await expect.poll(() => box.isEnabled()).toBe(true);
      await box.fill("I want to book a one-way flight from ORD to PHL on May 26.");
      await box.press("Enter");
      await page.locator(".message.customer .bubble", { hasText: "ORD to PHL" }).waitFor();
      expect(await box.isDisabled()).toBe(true);
      await page.getByRole("button", { name: "End & grade" }).click();
      await expect.poll(() => page.getByTestId("stop-event").count()).toBe(0);
      release();
      await page.getByTestId("reward-card").waitFor({ timeout: 30_000 });
      expect(await page.getByTestId("closed-card").count()).toBe(0);
      expect(await page.getByTestId("stop-event").last().innerText()).toMatch(/You ended the conversation$/);
    } finally {
      release();
      await page.close();
      await slow.kill();
    }
  });

  it("a shared link lets another browser watch, not control; the starter still types and ends it", async () => {
    const page = await openPage(1280);
    await startHumanConversation(page, 1280);
    const link = new URL(page.url()).hash;
    // Another person's browser: its own profile, so none of the starter's owner tokens.
    const stranger = await launchChromium();
    try {
      const watcher = await stranger.context.newPage();
      await watcher.setViewportSize({ width: 1280, height: 800 });
      await watcher.goto(`${web.url}/${link}`);
      await greetings(watcher).waitFor({ timeout: 15_000 });
      expect(await watcher.getByTestId("watching-only").innerText()).toMatch(/You are watching/);
      expect(await watcher.getByLabel("Message to the agent").count()).toBe(0);
      expect(await watcher.getByRole("button", { name: "End & grade" }).count()).toBe(0);
      // Its explorer does not list the conversation (it did not start it).
      const listed = watcher.waitForResponse((r) => r.url().includes("/api/conversations?"));
      await watcher.goto(`${web.url}/#/runs`);
      expect(await (await listed).json()).toEqual({ conversations: [] });
      expect(await watcher.locator(`a[href="${link}"]`).count()).toBe(0);
    } finally {
      await stranger.close();
    }
    const box = page.getByLabel("Message to the agent");
    await box.fill("I want to book a one-way flight from ORD to PHL on May 26.");
    await box.press("Enter");
    await page.locator(".message.customer .bubble", { hasText: "ORD to PHL" }).waitFor();
    await page.getByRole("button", { name: "End & grade" }).click();
    await page.getByTestId("stop-event").waitFor();
    await page.close();
  });

  it("keeps conversations: the link reopens one after a reload, and the explorer lists it", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/`);
    await page.getByRole("button", { name: /Book a flight/ }).click();
    await page.getByTestId("reward-card").waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("reward-value").textContent()).toBe("1.00");
    const link = new URL(page.url()).hash;
    expect(link).toMatch(/^#\/play\/airline\/8\/[\w-]+$/);
    // The simulated customer's stop token is an event, not words.
    expect(await page.locator(".message.customer .bubble", { hasText: "###STOP###" }).count()).toBe(0);
    expect(await page.getByTestId("stop-event").innerText()).toMatch(/The customer ended the conversation$/);
    const said = await page.locator(".message .bubble").allInnerTexts();

    await page.reload();
    await page.getByTestId("reward-card").waitFor();
    expect(await page.locator(".message .bubble").allInnerTexts()).toEqual(said);
    expect(await page.locator('[data-task-id="8"]').getAttribute("aria-selected")).toBe("true");

    await page.goto(`${web.url}/#/runs`);
    const listed = page.getByTestId("conversations").locator(`a[href="${link}"]`);
    await listed.click();
    await page.getByTestId("reward-card").waitFor();
    expect(await page.locator(".message .bubble").allInnerTexts()).toEqual(said);
    await page.close();
  });

  it("a person who picks a scenario chip starts from its opening line, theirs to edit or send", async () => {
    const detail = DomainDetailSchema.parse(await (await fetch(`${web.url}/api/domains/airline`)).json());
    const chip = detail.scenarios.find((c) => c.taskId === "8") ?? detail.scenarios[0]!;
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/`);
    await page.getByLabel("Me (type as the customer)").check();
    await page.getByRole("button", { name: chip.label }).click();
    const box = page.getByLabel("Message to the agent");
    await expect.poll(() => box.isEnabled(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => box.inputValue()).toBe(chip.openingLine);
    await box.press("Enter");
    await page.locator(".message.customer .bubble", { hasText: chip.openingLine }).waitFor();
    await page.getByRole("button", { name: "End & grade" }).click();
    await page.getByTestId("stop-event").waitFor();
    await page.close();
  });

  it("a reopened conversation shows its own agent and customer models in the setup, not the defaults", async () => {
    const offering = await startWebServer({
      store,
      participants: {
        agents: ["scripted:gold", "scripted:gold-second"],
        users: ["scripted:gold", "scripted:gold-second"],
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
      },
    });
    try {
      const page = await openPage(1280);
      await page.goto(`${offering.url}/#/play/airline/8`);
      await page.locator('[data-task-id="8"][aria-selected="true"]').waitFor();
      await page.getByLabel("Agent model").selectOption("scripted:gold-second");
      await page.getByLabel("User model").selectOption("scripted:gold-second");
      await page.getByRole("button", { name: "Simulate" }).click();
      await page.getByTestId("reward-card").waitFor({ timeout: 30_000 });
      await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/play\/airline\/8\/[\w-]+$/);
      const link = new URL(page.url()).hash;
      const reopened = await openPage(1280);
      await reopened.goto(`${offering.url}/${link}`);
      await reopened.getByTestId("reward-card").waitFor();
      expect(await reopened.getByLabel("Agent model").inputValue()).toBe("scripted:gold-second");
      expect(await reopened.getByLabel("User model").inputValue()).toBe("scripted:gold-second");
      await Promise.all([page.close(), reopened.close()]);
    } finally {
      await offering.kill();
    }
  });

  for (const width of WIDTHS) {
    it(`shows the whole reward card when a conversation ends, not a sliver (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/`);
      await page.getByRole("button", { name: /Book a flight/ }).click();
      await showPane(page, width, "Trace");
      const card = page.getByTestId("reward-card");
      await card.waitFor({ timeout: 30_000 });
      await card.scrollIntoViewIfNeeded();
      const { shown, content } = await card.evaluate((el) => ({
        shown: el.clientHeight,
        content: el.scrollHeight,
      }));
      expect(shown).toBeGreaterThan(100);
      expect(shown).toBeGreaterThanOrEqual(content - 1);
      expect(await isInView(page.locator(".trace"), page.getByTestId("reward-value"))).toBe(true);
      await page.close();
    });
  }

  for (const width of WIDTHS) {
    it(`shows real requests, the rendered policy and the agent's measured reliability (${width} px)`, async () => {
      const page = await openPage(width);
      await page.goto(`${web.url}/#/`);
      const chips = page.locator(".scenario-chip");
      await chips.first().waitFor();
      // At least five real requests, each a kind of situation, each with the customer's opening line.
      expect(await chips.count()).toBeGreaterThanOrEqual(5);
      expect(await page.locator(".scenario-chip .kind").allInnerTexts()).toEqual(
        expect.arrayContaining([
          "HAPPY PATH",
          "POLICY DECIDES",
          "POLICY FORBIDS",
          "LOOKUP ONLY",
          "CONTRADICTION",
        ]),
      );
      for (const line of await page.locator(".scenario-chip .chip-line").allInnerTexts())
        expect(line).toMatch(/^“.{15,}”$/);

      // pass^1 and pass^k of scripted:gold on airline, from its run, linked to it.
      const strip = page.getByTestId("agent-score");
      expect(await strip.getByTestId("agent-pass-1").innerText()).toBe("75.0%");
      expect(await strip.getByTestId("agent-pass-k").innerText()).toBe("50.0%");
      expect(await strip.getByRole("link").getAttribute("href")).toBe(`#/runs/${seededRunId}`);

      // The policy is rendered Markdown: headings and lists, no Markdown marks left in the text.
      await showPane(page, width, "Policy");
      const policy = page.getByTestId("policy-text");
      await policy.locator("h3", { hasText: "Airline Agent Policy" }).waitFor();
      expect(await policy.locator("h4").count()).toBeGreaterThan(2);
      expect(await policy.locator("li").count()).toBeGreaterThan(10);
      expect(await policy.locator("strong").count()).toBeGreaterThan(0);
      const text = await policy.innerText();
      expect(text).not.toMatch(/^#{1,6} /m);
      expect(text).not.toContain("**");
      // Searching keeps a match under its section's heading.
      await page.getByLabel("Search the policy").fill("cancel");
      await policy.locator("mark").first().waitFor();
      expect(await policy.locator("h4").count()).toBeGreaterThan(0);
      await page.close();
    });
  }

  it("searches banking_knowledge's documents from the policy pane, as the agent had to find them", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/play/banking_knowledge`);
    const views = page.getByRole("group", { name: "What to read" });
    await views.getByRole("button", { name: "Knowledge base" }).click();
    await page.getByLabel("Search the knowledge base").fill("overdraft fee");
    const hits = page.getByTestId("knowledge-hits").locator("li");
    await hits.first().waitFor();
    // The documents BM25 ranks first for the query, best first, each titled and scored.
    const expected = sharedDomainData(
      builtinDomains.get("banking_knowledge")!,
      tau2DataDir(),
    ).searchDocuments("overdraft fee");
    expect(expected.length).toBeGreaterThan(0);
    expect(await hits.locator("summary strong").allInnerTexts()).toEqual(expected.map((hit) => hit.title));
    expect(await hits.locator("summary code").allInnerTexts()).toEqual(expected.map((hit) => hit.id));
    // A hit opens to its text, the query's words marked.
    await hits.first().locator("summary").click();
    await hits.first().locator(".markdown mark").first().waitFor();
    await page.screenshot({ path: path.join(SCREENS, "playground-knowledge-1280.png") });
    // Back to the policy: the pane keeps both.
    await views.getByRole("button", { name: "Policy" }).click();
    await page.getByTestId("policy-text").locator("h1, h2, h3").first().waitFor();
    await page.close();
  });

  it("keeps the link and the playground on the same domain, and says when a linked domain is unknown", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/play/airline`);
    await page.getByRole("button", { name: /Book a flight/ }).waitFor();
    await page.getByLabel("Domain").selectOption("telecom");
    await expect.poll(() => new URL(page.url()).hash).toBe("#/play/telecom");
    // Following a link to another domain, without a reload, shows it.
    await page.evaluate("location.hash = '#/play/airline'");
    await expect.poll(() => page.getByLabel("Domain").inputValue()).toBe("airline");
    await page.evaluate("location.hash = '#/play/nowhere'");
    expect(await page.getByTestId("unknown-domain").innerText()).toBe(
      "This server has no domain “nowhere”; showing airline instead.",
    );
    await page.close();
  });

  it("keeps the link and the selected task the same, and says when a linked task is unknown", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/play/airline/8`);
    await page.locator('[data-task-id="8"][aria-selected="true"]').waitFor();
    await page.locator('[data-task-id="9"]').click();
    await expect.poll(() => new URL(page.url()).hash).toBe("#/play/airline/9");
    // Following a link to another task, without a reload, selects it.
    await page.evaluate("location.hash = '#/play/airline/8'");
    await page.locator('[data-task-id="8"][aria-selected="true"]').waitFor();
    // A pick and a link followed before the page has read the pick's hash change (as on a loaded
    // machine): the link, last, wins.
    await page.evaluate(`
      document.querySelector('[data-task-id="9"]').click();
      location.hash = '#/play/airline/8';
    `);
    await expect.poll(() => new URL(page.url()).hash).toBe("#/play/airline/8");
    await page.locator('[data-task-id="8"][aria-selected="true"]').waitFor();
    await page.evaluate("location.hash = '#/play/airline/no-such-task'");
    expect(await page.getByTestId("unknown-task").innerText()).toBe(
      "airline has no task “no-such-task”; pick one below.",
    );
    await page.close();
  });

  it("shows telecom's two policies as sections, not their tags", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/play/telecom`);
    const policy = page.getByTestId("policy-text");
    await policy.locator("h3", { hasText: "Tech support policy" }).waitFor();
    expect(await policy.locator("h3", { hasText: /^Main policy$/ }).count()).toBe(1);
    expect(await policy.innerText()).not.toMatch(/<\/?(main|tech_support)_policy>/);
    await page.close();
  });

  it("names telecom tasks by issue · faults · persona, and keeps the task list's selection in view", async () => {
    const page = await openPage(1280);
    await page.goto(`${web.url}/#/play/telecom`);
    const list = page.getByRole("listbox", { name: "Tasks" });
    await list.locator(".task-option").first().waitFor();
    const detail = DomainDetailSchema.parse(await (await fetch(`${web.url}/api/domains/telecom`)).json());
    // The domain's answer brings the first tasks; the rest of the 2,285 follow, and then nothing is loading.
    expect(detail.tasks.length).toBeLessThan(detail.taskCount);
    expect(detail.taskCount).toBe(telecom.tasks.length);
    await page.getByTestId("tasks-loading").waitFor({ state: "detached" });
    const ids = telecom.tasks.map((t) => t.id);
    const long =
      "[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Easy]";
    expect(telecom.task(long).id).toBe(long);
    await page.getByLabel("Task", { exact: true }).fill(long);
    const option = page.locator(`[data-task-id="${long}"]`);
    const label = await option.locator(".task-id").innerText();
    // Issue and persona always show; the faults are cut in the middle; the tooltip has the whole id.
    expect(label).toBe("mms issue · airplane mode on + … + user abroad roaming disabled on · easy persona");
    expect(await option.getAttribute("title")).toContain(long);

    // Home and End reach both ends of 2,285 tasks, each kept in view.
    await page.getByLabel("Task", { exact: true }).fill("");
    await expect.poll(() => list.locator(".task-option").count()).toBeGreaterThan(5);
    await list.focus();
    await page.keyboard.press("End");
    const last = list.locator(`[data-task-id="${ids.at(-1)!}"]`);
    await expect.poll(() => last.getAttribute("aria-selected")).toBe("true");
    expect(await isInView(list, last)).toBe(true);
    await page.keyboard.press("Home");
    const first = list.locator(`[data-task-id="${ids[0]!}"]`);
    await expect.poll(() => first.getAttribute("aria-selected")).toBe("true");
    expect(await isInView(list, first)).toBe(true);
    // A scenario chip far down the list selects its task and scrolls to it.
    const chip = detail.scenarios.find((c) => ids.indexOf(c.taskId) > 50)!;
    await page.locator(".scenario-chip", { hasText: chip.label }).click();
    const picked = list.locator(`[data-task-id="${chip.taskId}"]`);
    await expect.poll(() => picked.getAttribute("aria-selected")).toBe("true");
    await expect.poll(() => isInView(list, picked)).toBe(true);
    await page.close();
  });

  for (const width of WIDTHS) {
    it(`screenshot: the playground mid-conversation (${width} px)`, async () => {
      const page = await openPage(width);
      await startHumanConversation(page, width);
      const box = page.getByLabel("Message to the agent");
      await box.fill("Hi, I want to book a one-way flight from ORD to PHL on May 26.");
      await box.press("Enter");
      await expect.poll(() => page.locator(".message.agent .bubble").count()).toBeGreaterThanOrEqual(2);
      await page.screenshot({ path: path.join(SCREENS, `playground-${width}.png`) });
      if (phone(width)) {
        await showPane(page, width, "Trace");
        await page.screenshot({ path: path.join(SCREENS, `playground-${width}-trace.png`) });
      }
      await page.close();
    });
  }
});
