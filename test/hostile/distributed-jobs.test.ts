import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMockLlmServer, type MockLlmServer } from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { passkProcesses, waitFor, type SpawnedPassk } from "../helpers/passk-process.js";
import { startRedisServer, type TestRedis } from "../helpers/redis-server.js";
import { mockModelFlags } from "../helpers/run-cli.js";

// Whoever can write to Redis can rewrite a queued job. A worker runs only what its own operator
// configured: it imports no code a job names and sends its keys to no endpoint a job names.

const dir = mkdtempSync(path.join(tmpdir(), "passk-hostile-jobs-"));
const WORKER_KEY = "sk-WORKERSECRET-1234567890abcdef";
const WORKER_TOKEN = "WORKER-AGENT-TOKEN-abcdef123456";
const env = {
  ...process.env,
  PASSK_DATA_DIR: tau2DataDir(),
  OPENAI_COMPATIBLE_API_KEY: WORKER_KEY,
  PASSK_REMOTE_AGENT_TOKEN: WORKER_TOKEN,
};
const QUEUE = "bull:passk-conversations";

let redis: TestRedis;
let model: MockLlmServer;
/** Where a hostile job would send the worker's credentials: it records every request. */
let recorder: MockLlmServer;
const processes = passkProcesses(env);

beforeAll(async () => {
  redis = await startRedisServer();
  // Every reply ends the conversation: the customer leaves, the agent says goodbye.
  const stop = () => ({ kind: "message" as const, text: "Thank you, goodbye. ###STOP###" });
  model = await startMockLlmServer({ script: stop });
  recorder = await startMockLlmServer({ script: stop });
});
afterEach(() => processes.killAll());
afterAll(async () => {
  await Promise.all([model.close(), recorder.close()]);
  await redis.stop();
});

/**
 * Queue one job of `agent` with no worker running, rewrite its data in Redis with `tamper`, then start
 * a worker with `workerArgs`; returns the worker once it has looked at the job.
 */
async function tamperedJob(
  name: string,
  tamper: (data: { config: Record<string, { model?: string; baseUrl?: string } | undefined> }) => void,
  workerArgs: string[],
  agent: string[] = mockModelFlags(model.baseUrl),
): Promise<{ worker: SpawnedPassk; coordinator: SpawnedPassk }> {
  const client = new Redis(redis.url);
  try {
    await client.flushall();
    const coordinator = processes.spawn([
      "run",
      "--domain",
      "mock",
      "--task-ids",
      "create_task_1",
      ...agent,
      "--queue",
      redis.url,
      "--local-workers",
      "0",
      "--store",
      path.join(dir, `${name}.db`),
      "--progress",
      "none",
    ]);
    await waitFor("the job on the queue", async () => (await client.llen(`${QUEUE}:wait`)) >= 1);
    const [id] = await client.lrange(`${QUEUE}:wait`, 0, 0);
    const data = JSON.parse((await client.hget(`${QUEUE}:${id}`, "data"))!) as Parameters<typeof tamper>[0];
    tamper(data);
    await client.hset(`${QUEUE}:${id}`, "data", JSON.stringify(data));
    const worker = processes.spawn(["worker", "--queue", redis.url, "--concurrency", "1", ...workerArgs]);
    await waitFor(
      "the worker to take the job",
      () => /leaves it to another worker| trial 0: \w+/.test(worker.output()),
      30_000,
    );
    return { worker, coordinator };
  } finally {
    client.disconnect();
  }
}

describe("a job naming code: the worker imports nothing its operator did not load", () => {
  it("module:<hostile file> is refused with a sentence, and the file's code never runs", async () => {
    const marker = path.join(dir, "PWNED");
    const evil = path.join(dir, "evil-agent.mjs");
    writeFileSync(
      evil,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, String(process.pid));\n` +
        `export default { name: "evil", start: () => ({ reply: async () => ({ role: "assistant", content: "pwned ###STOP###" }) }) };\n`,
    );
    const { worker } = await tamperedJob("module", (d) => (d.config.agent = { model: `module:${evil}` }), [
      "--allow-endpoint",
      model.baseUrl,
    ]);
    expect(worker.output()).toContain(
      `the run's agent is the module ${evil}, which this worker did not load; a job never makes a worker import code: start the worker with --agent-module ${evil}`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("a run of a team's agent module runs on a worker started with --agent-module (its own copy)", async () => {
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    const worker = processes.spawn([
      "worker",
      "--queue",
      redis.url,
      "--agent-module",
      path.resolve("test/fixtures/flaky-agent.ts"),
    ]);
    await waitFor("the worker", () => worker.output().includes("ready"));
    const coordinator = processes.spawn([
      "run",
      "--domain",
      "mock",
      "--task-ids",
      "create_task_1",
      "--agent-llm",
      "module:test/fixtures/flaky-agent.ts",
      "--user-llm",
      "scripted:gold",
      "--queue",
      redis.url,
      "--local-workers",
      "0",
      "--store",
      path.join(dir, "module-ok.db"),
      "--progress",
      "none",
    ]);
    expect(await coordinator.exited, coordinator.output()).toBe(0);
    expect(coordinator.output()).toContain("completed: 1 conversations stored");
    expect(worker.output()).not.toContain("leaves it to another worker");
  });
});

describe("a job naming an endpoint: the worker's credentials go only where its operator allowed", () => {
  const recorded = () => recorder.requests.map((r) => JSON.stringify(r));

  it.each([
    ["agent's base URL", "agent"],
    ["customer's base URL", "user"],
    ["judge's base URL", "judge"],
  ])("the %s rewritten to another server: refused, nothing sent there", async (what, key) => {
    const from = recorder.requests.length;
    const { worker } = await tamperedJob(
      key,
      (d) =>
        (d.config[key] = { model: "openai-compatible:mock", ...d.config[key], baseUrl: recorder.baseUrl }),
      ["--allow-endpoint", model.baseUrl],
    );
    const origin = new URL(recorder.baseUrl).origin;
    expect(worker.output()).toContain(
      `the run's ${what} is ${origin}, and this worker sends its credentials only to endpoints its operator allowed; if you trust it, start the worker with --allow-endpoint ${origin}`,
    );
    expect(recorder.requests.length - from).toBe(0);
    expect(recorded().join("")).not.toContain(WORKER_KEY);
  });

  it.each(["http", "a2a"])(
    "the agent rewritten to a remote %s: agent elsewhere: refused, its token never sent",
    async (protocol) => {
      const from = recorder.requests.length;
      const { worker } = await tamperedJob(
        `remote-${protocol}`,
        (d) => (d.config.agent = { model: `${protocol}:${new URL(recorder.baseUrl).origin}` }),
        ["--allow-endpoint", model.baseUrl],
      );
      expect(worker.output()).toContain(`the run's remote agent is ${new URL(recorder.baseUrl).origin}`);
      expect(recorder.requests.length - from).toBe(0);
    },
  );

  it("a worker with no --allow-endpoint refuses a run with a base URL, and one allowed runs it", async () => {
    const { worker } = await tamperedJob("unlisted", () => undefined, []);
    expect(worker.output()).toContain(
      `the run's agent's base URL is ${new URL(model.baseUrl).origin}, and this worker sends its credentials only to endpoints its operator allowed`,
    );
    const allowed = processes.spawn(["worker", "--queue", redis.url, "--allow-endpoint", model.baseUrl]);
    await waitFor("the allowed worker to run it", () => / trial 0: \w+/.test(allowed.output()), 30_000);
  });

  it("--allow-endpoint that is not an http(s) URL is one sentence at start", async () => {
    const worker = processes.spawn(["worker", "--queue", redis.url, "--allow-endpoint", "ftp://x"]);
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toContain('--allow-endpoint "ftp://x" is not an http(s) URL');
  });
});

interface JobData {
  taskId: string;
  task: string;
  config: { models: Record<string, unknown> };
}

/**
 * A whole run of `tasks` (scripted on both sides: no endpoint), whose queued jobs are rewritten in
 * Redis before a worker takes them: `tamper` returns the data to write (text for garbage). Returns the
 * coordinator and the worker once the coordinator has exited.
 */
async function tamperedRun(
  name: string,
  tasks: string[],
  tamper: (data: JobData, index: number) => JobData | string,
) {
  const client = new Redis(redis.url);
  try {
    await client.flushall();
    const store = path.join(dir, `${name}.db`);
    const coordinator = processes.spawn([
      "run",
      "--domain",
      "mock",
      "--task-ids",
      ...tasks,
      "--agent-llm",
      "scripted:gold",
      "--user-llm",
      "scripted:gold",
      "--queue",
      redis.url,
      "--local-workers",
      "0",
      "--store",
      store,
      "--save-to",
      path.join(dir, `${name}.json`),
      "--progress",
      "lines",
    ]);
    await waitFor("the jobs on the queue", async () => (await client.llen(`${QUEUE}:wait`)) >= tasks.length);
    const ids = await client.lrange(`${QUEUE}:wait`, 0, -1);
    for (const [index, id] of ids.entries()) {
      const data = JSON.parse((await client.hget(`${QUEUE}:${id}`, "data"))!) as JobData;
      const out = tamper(data, index);
      await client.hset(`${QUEUE}:${id}`, "data", typeof out === "string" ? out : JSON.stringify(out));
    }
    const worker = processes.spawn(["worker", "--queue", redis.url, "--lock-seconds", "1"]);
    const code = await Promise.race([
      coordinator.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running after 90 s"), 90_000)),
    ]);
    const file = path.join(dir, `${name}.json`);
    const results = JSON.parse(existsSync(file) ? readFileSync(file, "utf8") : '{"simulations":[]}') as {
      simulations: Array<{ task_id: string; trial: number; reward_info: { reward: number } | null }>;
    };
    return { code, coordinator, worker, results };
  } finally {
    client.disconnect();
  }
}

describe("a job or result changed in Redis is never graded as the coordinator's", () => {
  const graded = (results: Awaited<ReturnType<typeof tamperedRun>>["results"]) =>
    results.simulations.map((s) => [s.task_id, s.trial, s.reward_info?.reward ?? null]).sort();

  it.each([
    [
      "a job's task swapped for another's (the result answers another task)",
      (d: JobData, i: number) => {
        if (i !== 0) return d;
        const other = d.taskId === "create_task_1" ? "update_task_1" : "create_task_1";
        const task = JSON.parse(d.task) as { id: string };
        return { ...d, taskId: other, task: JSON.stringify({ ...task, id: other }) };
      },
    ],
    [
      "a job's evaluation criteria rewritten (the gold agent would score 0)",
      (d: JobData) => {
        const task = JSON.parse(d.task) as Record<string, unknown>;
        task.evaluation_criteria = {
          actions: [
            { action_id: "x", name: "delete_task", arguments: { task_id: "ZZZ" }, requestor: "assistant" },
          ],
          reward_basis: ["ACTION"],
          communicate_info: [],
          nl_assertions: null,
          env_assertions: null,
        };
        return { ...d, task: JSON.stringify(task) };
      },
    ],
    [
      "a job's configuration changed (maxSteps 1)",
      (d: JobData) => ({ ...d, config: { ...d.config, maxSteps: 1 } as JobData["config"] }),
    ],
  ])(
    "%s: refused as that job's infrastructure error, queued again, graded on the real task",
    async (what, tamper) => {
      const tasks = ["create_task_1", "update_task_1"];
      const { code, coordinator, results } = await tamperedRun(
        `tamper-${what.slice(8, 30).replace(/\W+/g, "-")}`,
        tasks,
        tamper,
      );
      expect(code, coordinator.output()).toBe(0);
      expect(coordinator.output()).toContain("the job's data was changed in Redis after it was queued");
      expect(graded(results)).toEqual([
        ["create_task_1", 0, 1],
        ["update_task_1", 0, 1],
      ]);
    },
    120_000,
  );

  it("a job whose data is not JSON: queued again by the coordinator with a sentence, and the run completes", async () => {
    const { code, coordinator, worker, results } = await tamperedRun(
      "garbage",
      ["create_task_1"],
      () => "not json at all {{{",
    );
    expect(coordinator.output()).toContain(
      "mock task create_task_1 trial 0: its job's data in Redis is not JSON (damaged or overwritten); it is queued again",
    );
    // A worker that read it first says the keys are damaged: never that Redis is unreachable.
    expect(worker.output()).not.toContain("unreachable");
    expect(code, coordinator.output()).toBe(0);
    expect(graded(results)).toEqual([["create_task_1", 0, 1]]);
  }, 120_000);

  it("wrong-typed queue keys: the coordinator stops with a sentence, exit 1, instead of waiting for Redis", async () => {
    const client = new Redis(redis.url);
    await client.flushall();
    await client.rpush(`${QUEUE}:meta`, "x", "y");
    await client.set(`${QUEUE}:wait`, "a string");
    client.disconnect();
    const coordinator = processes.spawn([
      "run",
      "--domain",
      "mock",
      "--task-ids",
      "create_task_1",
      "--agent-llm",
      "scripted:gold",
      "--queue",
      redis.url,
      "--local-workers",
      "0",
      "--store",
      path.join(dir, "wrongtype.db"),
      "--progress",
      "none",
    ]);
    const code = await Promise.race([
      coordinator.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running after 30 s"), 30_000)),
    ]);
    expect(code, coordinator.output()).toBe(1);
    expect(coordinator.output()).toContain(
      `Redis at ${redis.url} answers, but its passk queue keys (bull:passk-conversations:*) are damaged or another program's (WRONGTYPE`,
    );
    expect(coordinator.output()).not.toContain("unreachable");
  });
});

describe("a job no worker can run", () => {
  it("a perturbation no worker has: SIGTERM stops the coordinator at once, with the resume sentence", async () => {
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    const worker = processes.spawn(["worker", "--queue", redis.url, "--concurrency", "1"]);
    await waitFor("the worker to be ready", () => worker.output().includes("ready"), 30_000);
    const coordinator = processes.spawn([
      "run",
      "--domain",
      "mock",
      "--num-tasks",
      "2",
      "--agent-llm",
      "scripted:gold",
      "--user-llm",
      "scripted:gold",
      "--perturbation-module",
      path.resolve("test/fixtures/shouting-perturbation.ts"),
      "--perturb",
      "shouting",
      "--queue",
      redis.url,
      "--local-workers",
      "0",
      "--store",
      path.join(dir, "unrunnable.db"),
      "--progress",
      "none",
    ]);
    await waitFor(
      "the worker to refuse the jobs",
      () => worker.output().includes("does not have the run's perturbation shouting@1"),
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nworker: ${worker.output()}\ncoordinator: ${coordinator.output()}`);
    });
    coordinator.child.kill("SIGTERM");
    // Before, the graceful stop waited for the refused jobs forever.
    const code = await Promise.race([
      coordinator.exited,
      new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 60_000)),
    ]);
    expect(code, coordinator.output()).toBe(130);
    expect(coordinator.output()).toMatch(
      /interrupted: 2 conversations not run\. Continue with `passk run --resume \S+`/,
    );
  }, 180_000);
});

describe("Redis emptied under a run", () => {
  it("FLUSHALL: the coordinator says the jobs vanished, queues them again, and the run completes", async () => {
    const client = new Redis(redis.url);
    try {
      await client.flushall();
      const coordinator = processes.spawn([
        "run",
        "--domain",
        "mock",
        "--num-tasks",
        "2",
        "--agent-llm",
        "scripted:gold",
        "--user-llm",
        "scripted:gold",
        "--queue",
        redis.url,
        "--local-workers",
        "0",
        "--store",
        path.join(dir, "flushed.db"),
        "--progress",
        "none",
      ]);
      await waitFor("the jobs on the queue", async () => (await client.llen(`${QUEUE}:wait`)) >= 2);
      await client.flushall();
      await waitFor(
        "the coordinator's sentence",
        () => coordinator.output().includes("vanished from Redis"),
        60_000,
      );
      processes.spawn(["worker", "--queue", redis.url, "--concurrency", "2"]);
      expect(await coordinator.exited, coordinator.output()).toBe(0);
      expect(coordinator.output()).toContain("queued again, and nothing stored is lost");
      expect(coordinator.output()).toMatch(/completed: 2 conversations stored/);
    } finally {
      client.disconnect();
    }
  }, 180_000);
});
