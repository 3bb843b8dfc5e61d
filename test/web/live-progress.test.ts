import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../src/core/simulation.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { DomainData } from "../../src/formats/tau2/domain-data.js";
import { trialSeeds } from "../../src/runner/run-plan.js";
import { RunListSchema, STALLED_AFTER_SECONDS } from "../../src/server/api-schemas.js";
import { sqliteRunCatalog } from "../../src/server/run-catalog.js";
import { SqliteJobQueue } from "../../src/store/sqlite-job-queue.js";
import { Store } from "../../src/store/store.js";
import {
  isUserSimulatorRequest,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { mockModelFlags, runCli, type CliRun } from "../helpers/run-cli.js";
import { startRedisServer, type TestRedis } from "../helpers/redis-server.js";
import { craftedModel } from "../helpers/run-mock-model.js";
import { ensureWebBuilt, launchChromium, REPO } from "./helpers/browser.js";
import { buildResults } from "./helpers/seed-results.js";
import { startWebServer } from "./helpers/web-server.js";

// Watching a run from `passk serve` while `passk run` (or a coordinator) writes into the same store:
// the explorer shows it advancing, then completed, without a reload.
const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-live-progress" };

let folder: string;
let storeFile: string;
let serve: ChildProcess;
let url: string;
let model: MockLlmServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let results: Results;
let redis: TestRedis;
const children: ChildProcess[] = [];
// Each run's third conversation waits at the gate until the test lets the run go on.
let openGate: () => void = () => {};
let gate = Promise.resolve();
let conversationsStarted = 0;
function closeGate(): void {
  conversationsStarted = 0;
  gate = new Promise<void>((resolve) => (openGate = resolve));
}

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  folder = mkdtempSync(path.join(tmpdir(), "passk-live-progress-"));
  storeFile = path.join(folder, "coordinator.db");
  results = await buildResults(data, { taskIds: TASKS, trials: 2, fails: () => false });
  const crafted = craftedModel({ tasks: TASKS.map((id) => data.task(id)), trialSeeds: trialSeeds(300, 2) });
  redis = await startRedisServer();
  model = await startMockLlmServer({
    delayMs: 5,
    script: async (request: MockLlmRequest) => {
      const opening =
        isUserSimulatorRequest(request) && !request.messages.some((m) => m.role === "assistant");
      if (opening && ++conversationsStarted > 2) await gate;
      return crafted(request);
    },
  });
  serve = spawn(
    process.execPath,
    [
      path.join(REPO, "bin", "passk.js"),
      "serve",
      "--port",
      "0",
      "--data",
      tau2DataDir(),
      "--store",
      storeFile,
    ],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  serve.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`passk serve did not start: ${stderr}`)), 45_000);
    serve.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    serve.on("exit", (code) => reject(new Error(`passk serve exited with ${code}: ${stderr}`)));
  });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  openGate();
  for (const child of children) child.kill("SIGKILL");
  await browser?.close();
  serve?.kill("SIGTERM");
  await model?.close();
  await redis?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function runs() {
  return RunListSchema.parse(await (await fetch(`${url}/api/runs`)).json()).runs;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The pages ask again every 2 s.
const SOON = { timeout: 30_000 };

async function openPage(width: number, pathName: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  await page.goto(`${url}${pathName}`);
  // Set once: still there at the end means the page was never reloaded.
  await page.evaluate(() => ((globalThis as unknown as { loadedOnce: boolean }).loadedOnce = true));
  return page;
}

/** Requests the page makes to the runs API from now on. */
function countRunRequests(page: Page): () => number {
  let asked = 0;
  page.on("request", (r) => {
    if (r.url().includes("/api/runs")) asked++;
  });
  return () => asked;
}

/** Hide or show the page as switching tabs would (headless Chromium never hides it by itself). */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate(
    `Object.defineProperty(document, "hidden", { configurable: true, get: () => ${hidden} });
     document.dispatchEvent(new Event("visibilitychange"));`,
  );

const loadedOnce = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { loadedOnce?: boolean }).loadedOnce === true);

describe("the explorer follows a run in progress", () => {
  // The same from the store's side: a run in one process, and a coordinator handing jobs to a worker.
  it.each([
    { how: "in one process", width: 1280, distributed: false },
    { how: "across machines (coordinator, Redis, a worker)", width: 390, distributed: true },
  ])(
    "a real `passk run` $how into the store `passk serve` reads: the run page goes from 2 / 6 to 6 / 6 and completed by itself ($width px)",
    async ({ width, distributed }) => {
      closeGate();
      const label = `live run ${width}`;
      let output = "";
      if (distributed) {
        const worker = spawn(
          process.execPath,
          [
            path.join(REPO, "bin", "passk.js"),
            "worker",
            "--queue",
            redis.url,
            "--concurrency",
            "1",
            "--allow-endpoint",
            model.baseUrl,
          ],
          { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
        );
        children.push(worker);
        worker.stdout!.on("data", (d: Buffer) => (output += d.toString()));
        worker.stderr!.on("data", (d: Buffer) => (output += d.toString()));
        await until("the worker", async () => (output.includes("ready") ? true : undefined));
      }
      const run: Promise<CliRun> = runCli(
        [
          "run",
          "--domain",
          "mock",
          ...mockModelFlags(model.baseUrl),
          "--task-ids",
          ...TASKS,
          "--num-trials",
          "2",
          "--max-concurrency",
          "1",
          "--progress",
          "lines",
          "--label",
          label,
          "--store",
          storeFile,
          ...(distributed ? ["--queue", redis.url] : []),
        ],
        { env },
      );
      // Two conversations are stored, the third waits at the gate.
      const live = await until("two stored conversations", async () =>
        (await runs()).find((r) => r.label === label && r.progress.done === 2),
      );
      expect(live.status).toBe("running");
      expect(live.progress.planned).toBe(6);

      const page = await openPage(width, `/#/runs/${live.id}`);
      const progress = page.getByTestId("run-progress");
      await expect.poll(() => progress.textContent(), SOON).toContain("2 / 6 conversations");
      expect(await page.getByTestId("run-status").first().textContent()).toBe("running");
      expect(await page.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("2");
      expect(await page.locator(".grid-cell").count()).toBe(2);
      const box = await progress.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      await page.screenshot({
        path: path.join(SCREENS, `live-progress-running-${width}.png`),
        fullPage: true,
      });

      openGate();
      const finished = await run;
      expect(finished.code, finished.stderr).toBe(0);
      // Across machines, the worker ran every conversation.
      if (distributed) expect(output.match(/ trial \d+: /g) ?? []).toHaveLength(6);
      await expect.poll(() => progress.textContent(), { timeout: 15_000 }).toContain("6 / 6 conversations");
      await expect.poll(() => page.getByTestId("run-status").first().textContent(), SOON).toBe("completed");
      await expect.poll(() => page.locator(".grid-cell").count(), SOON).toBe(6);
      expect(await page.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("6");
      expect(await loadedOnce(page)).toBe(true);
      await page.screenshot({
        path: path.join(SCREENS, `live-progress-completed-${width}.png`),
        fullPage: true,
      });

      // Finished: the page stops asking.
      const asked = countRunRequests(page);
      await page.waitForTimeout(5_000);
      expect(asked()).toBe(0);
      await page.close();
    },
    120_000,
  );

  it("at 390 px the runs list shows a live run, a stalled one, and both changing without a reload", async () => {
    // A coordinator writing into the store (the Store class, as the runner does), and one that went
    // silent long ago: its clock is set back past the stalled threshold.
    const silentSince = new Date(Date.now() - (STALLED_AFTER_SECONDS + 120) * 1000);
    const writers = {
      live: Store.open(storeFile),
      silent: Store.open(storeFile, { now: () => silentSince }),
    };
    try {
      const start = (store: Store, label: string) => {
        const run = store.createRun({
          label,
          numTrials: 2,
          info: results.info,
          config: { runner: { pid: 1, host: "coordinator", started_at: store.now() } },
        });
        store.putTasks(run.id, "mock", results.tasks);
        return run.id;
      };
      const put = (store: Store, runId: string, index: number) =>
        store.putSimulation(runId, "mock", results.simulations[index]!);
      const liveId = start(writers.live, "coordinator A");
      const silentId = start(writers.silent, "coordinator B");
      const jobs = TASKS.flatMap((taskId) => [0, 1].map((trial) => ({ domain: "mock", taskId, trial })));
      await new SqliteJobQueue(writers.live).enqueue(liveId, jobs);
      await new SqliteJobQueue(writers.silent).enqueue(silentId, jobs);
      put(writers.live, liveId, 0);
      put(writers.live, liveId, 1);
      put(writers.silent, silentId, 0);

      const page = await openPage(390, "/#/runs");
      const row = (id: string) => page.locator(`tr[data-run-id="${id}"]`);
      await expect.poll(() => row(liveId).getByTestId("run-progress").textContent(), SOON).toContain("2 / 6");
      expect(await row(liveId).getByTestId("run-status").textContent()).toBe("running");
      expect(await row(silentId).getByTestId("run-status").textContent()).toBe("stalled?");
      expect(await row(silentId).getByTestId("run-progress").textContent()).toMatch(
        /1 \/ 6.*no news for 1[0-9]m\d\ds/,
      );
      // The row fits the phone's width.
      const box = await row(liveId).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      await page.screenshot({ path: path.join(SCREENS, "live-progress-runs-390.png"), fullPage: true });

      // A hidden page asks nothing, and asks again as soon as it is shown.
      await setHidden(page, true);
      await page.waitForTimeout(2_500); // a refresh already under way lands
      const whileHidden = countRunRequests(page);
      await page.waitForTimeout(5_000);
      expect(whileHidden()).toBe(0);
      const shown = countRunRequests(page);
      await setHidden(page, false);
      await expect.poll(shown, { timeout: 1_000 }).toBeGreaterThan(0);

      // The live run advances and completes; the silent one is heard from again.
      for (const index of [2, 3, 4, 5]) put(writers.live, liveId, index);
      writers.live.updateRun(liveId, { status: "completed", config: { runner: null } });
      put(writers.live, silentId, 1);
      await expect.poll(() => row(liveId).getByTestId("run-status").textContent(), SOON).toBe("completed");
      expect(await row(liveId).getByTestId("run-progress").count()).toBe(0);
      expect(await row(liveId).locator('[data-label="Tasks × trials"]').textContent()).toBe("3 × 2");
      await expect.poll(() => row(silentId).getByTestId("run-status").textContent(), SOON).toBe("running");
      expect(await row(silentId).getByTestId("run-progress").textContent()).toContain("2 / 6");
      expect(await loadedOnce(page)).toBe(true);
      await page.screenshot({ path: path.join(SCREENS, "live-progress-runs-390-after.png"), fullPage: true });
      writers.live.updateRun(silentId, { status: "interrupted", config: { runner: null } });
      await expect
        .poll(() => row(silentId).getByTestId("run-status").textContent(), SOON)
        .toBe("interrupted");
      await page.close();
    } finally {
      writers.live.close();
      writers.silent.close();
    }
  }, 180_000);
  it("the server going away pauses the updates with a sentence, the page keeps what it shows, and picks up again", async () => {
    // An in-process server over its own store, so that it can be killed and restarted.
    const file = path.join(folder, "restarted.db");
    const writer = Store.open(file);
    const served = Store.open(file);
    const web = await startWebServer({ store: sqliteRunCatalog(served) });
    try {
      const run = writer.createRun({
        label: "through a restart",
        numTrials: 2,
        info: results.info,
        config: { runner: { pid: 1, host: "coordinator", started_at: writer.now() } },
      });
      await new SqliteJobQueue(writer).enqueue(
        run.id,
        TASKS.flatMap((taskId) => [0, 1].map((trial) => ({ domain: "mock", taskId, trial }))),
      );
      writer.putSimulation(run.id, "mock", results.simulations[0]!);
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${web.url}/#/runs/${run.id}`);
      const progress = page.getByTestId("run-progress");
      await expect.poll(() => progress.textContent(), SOON).toContain("1 / 6 conversations");

      await web.kill();
      await expect
        .poll(() => page.getByText("Live updates paused").textContent(), SOON)
        .toContain("cannot reach the passk server");
      expect(await progress.textContent()).toContain("1 / 6 conversations");
      for (const index of [1, 2]) writer.putSimulation(run.id, "mock", results.simulations[index]!);
      await web.restart();
      await expect.poll(() => progress.textContent(), { timeout: 20_000 }).toContain("3 / 6 conversations");
      expect(await page.getByText("Live updates paused").count()).toBe(0);
      await page.close();
    } finally {
      await web.kill();
      writer.close();
      served.close();
    }
  }, 60_000);
});
