/**
 * Distributed runs (`passk run --queue`, `passk worker`) on a local redis-server, against a mock
 * OpenAI-compatible model with fixed latency in another process (bench/mock-llm-process.ts).
 *
 * The coordinator runs here, through the same pieces `passk run --queue` uses (SQLite store and job
 * queue, BullMQ dispatcher); workers are `passk worker` processes (src/cli/main.ts under tsx).
 *
 * Figures:
 * - scaling: steps (model calls) per second with 1, 2 and 4 worker processes of C conversations each,
 *   as a ratio to the ideal (every conversation always waiting on a reply: W × C ÷ latency);
 * - Redis commands per conversation (coordinator and workers together, from Redis's own counter);
 * - queue overhead: the same conversations run in this process (no queue, same concurrency) against the
 *   run through Redis and one worker, as a share of the distributed run's wall time;
 * - turn checkpoints (`--checkpoint-turns`): the one-worker run again with each turn saved in Redis —
 *   its Redis commands and bytes per conversation, and its wall time against the run without.
 *
 * Usage: node --import tsx bench/distributed-run.ts [conversationsPerWorker=40] [concurrency=8] [latencyMs=200] [turns=3]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import os from "node:os";
import path from "node:path";
import type { RunRecord } from "../src/core/run-store.js";
import type { Task } from "../src/core/task.js";
import { builtinDomains } from "../src/domains/registry.js";
import { openDispatcher } from "../src/distributed/dispatcher.js";
import { openRedisClient } from "../src/distributed/redis-client.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { conversationJob } from "../src/runner/conversation-job.js";
import { executeRun, type RunJob } from "../src/runner/execute-run.js";
import { RunConfigSchema, type RunConfig } from "../src/runner/run-spec.js";
import { planRun } from "../src/runner/run-plan.js";
import { SqliteJobQueue } from "../src/store/sqlite-job-queue.js";
import { Store } from "../src/store/store.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { benchParticipants, modelCalls } from "./bench-script.js";
import { spawnMockLlm } from "./spawn-mock-llm.js";

const perWorker = Number(process.argv[2] ?? 40);
const concurrency = Number(process.argv[3] ?? 8);
const latencyMs = Number(process.argv[4] ?? 200);
const turns = Number(process.argv[5] ?? 3);
const repo = path.resolve(import.meta.dirname, "..");

const port = await new Promise<number>((resolve) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const address = server.address();
    server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
  });
});
const redisProcess = spawn(
  "/usr/bin/redis-server",
  ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  { stdio: "ignore" },
);
for (;;) {
  const up = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
  if (up) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const address = { host: "127.0.0.1", port, db: 0, tls: false };
const redisUrl = `redis://127.0.0.1:${port}`;
const admin = openRedisClient(address);
const commandsProcessed = async () =>
  Number(/total_commands_processed:(\d+)/.exec(await admin.info("stats"))![1]);

const mock = await spawnMockLlm(latencyMs, turns);
const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const tasks = data.tasks;
const env = { ...process.env, OPENAI_COMPATIBLE_API_KEY: "bench", PASSK_DATA_DIR: tau2DataDir() };
const config: RunConfig = RunConfigSchema.parse({
  kind: "passk-run",
  version: 2,
  domains: ["mock"],
  dataDir: tau2DataDir(),
  protocol: "passk",
  agent: { model: "openai-compatible:bench-agent", baseUrl: mock.baseUrl },
  user: { model: "openai-compatible:bench-user", baseUrl: mock.baseUrl },
  maxRetries: 1,
  scriptedDemo: false,
});

/** Run `conversations` through the store and job queue, with `runJob` built for the run. */
async function runOnce(
  conversations: number,
  inFlight: number,
  build: (run: RunRecord, domains: Map<string, { data: DomainData; tasks: Map<string, Task> }>) => RunJob,
) {
  const folder = mkdtempSync(path.join(os.tmpdir(), "passk-bench-distributed-"));
  const store = Store.open(path.join(folder, "passk.db"));
  const queue = new SqliteJobQueue(store);
  const numTrials = Math.ceil(conversations / tasks.length);
  const plan = planRun({ domains: [{ domain: "mock", tasks }], numTrials, seed: 300 });
  const jobs = plan.jobs.slice(0, conversations);
  const run = store.createRun({ numTrials, config });
  store.putTasks(run.id, "mock", tasks);
  await queue.enqueue(run.id, jobs);
  const domains = new Map([["mock", { data, tasks: new Map(tasks.map((t) => [t.id, t])) }]]);
  const start = performance.now();
  const outcome = await executeRun({
    queue,
    runId: run.id,
    concurrency: inFlight,
    seedOf: (job) => plan.trialSeeds[job.trial]!,
    runJob: build(run, domains),
  });
  const wallMs = performance.now() - start;
  const stored = store.getSimulations(run.id).map((s) => s.simulation);
  const steps = stored.reduce((sum, s) => sum + modelCalls(s.messages), 0);
  const distinct = new Set(stored.map((s) => `${s.task_id}/${s.trial}`)).size;
  store.close();
  rmSync(folder, { recursive: true, force: true });
  if (outcome.reason !== "completed" || distinct !== jobs.length)
    throw new Error(`the run did not complete: ${outcome.reason}, ${distinct} of ${jobs.length}`);
  return { wallMs, steps, conversations: jobs.length };
}

async function startWorkers(count: number): Promise<ChildProcess[]> {
  const workers = Array.from({ length: count }, () =>
    spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(repo, "src/cli/main.ts"),
        "worker",
        "--queue",
        redisUrl,
        "--concurrency",
        String(concurrency),
        "--allow-endpoint",
        mock.baseUrl,
      ],
      { cwd: repo, env, stdio: ["ignore", "ignore", "pipe"] },
    ),
  );
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          let text = "";
          worker.stderr!.on("data", (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes("ready")) resolve();
          });
        }),
    ),
  );
  return workers;
}

const dispatcher = await openDispatcher({ address });
const results: Array<Record<string, number>> = [];
let redisPerConversation = 0;
let oneWorkerWallMs = 0;
for (const count of [1, 2, 4]) {
  const workers = await startWorkers(count);
  // A short warm-up run, so that each worker has compiled its code paths before the measured run.
  await runOnce(count * concurrency, count * concurrency, (run, domains) =>
    dispatcher.runJob({ run, config, domains }),
  );
  const before = await commandsProcessed();
  const measured = await runOnce(count * perWorker, count * concurrency, (run, domains) =>
    dispatcher.runJob({ run, config, domains }),
  );
  const commands = (await commandsProcessed()) - before;
  for (const worker of workers) worker.kill("SIGKILL");
  const stepsPerSecond = measured.steps / (measured.wallMs / 1000);
  const ideal = (count * concurrency * 1000) / latencyMs;
  results.push({
    workers: count,
    steps_per_s: Number(stepsPerSecond.toFixed(1)),
    ideal_steps_per_s: ideal,
    ratio_to_ideal: Number((stepsPerSecond / ideal).toFixed(3)),
  });
  if (count === 1) {
    redisPerConversation = commands / measured.conversations;
    oneWorkerWallMs = measured.wallMs;
  }
}
// One worker again, each turn saved in Redis (`--checkpoint-turns`).
const checkpointed = { ...config, checkpointTurns: true };
const bytesIn = async () => Number(/total_net_input_bytes:(\d+)/.exec(await admin.info("stats"))![1]);
const [checkpointWorker] = await startWorkers(1);
await runOnce(concurrency, concurrency, (run, domains) =>
  dispatcher.runJob({ run, config: checkpointed, domains }),
);
const checkpointBefore = { commands: await commandsProcessed(), bytes: await bytesIn() };
const withCheckpoints = await runOnce(perWorker, concurrency, (run, domains) =>
  dispatcher.runJob({ run, config: checkpointed, domains }),
);
const checkpointCommands = (await commandsProcessed()) - checkpointBefore.commands;
const checkpointBytes = (await bytesIn()) - checkpointBefore.bytes;
checkpointWorker!.kill("SIGKILL");

// The same conversations in this process, at the same concurrency as one worker: no queue at all.
const { agent, user, protocol } = benchParticipants(mock.baseUrl, {
  env,
  maxAttempts: 1,
  timeoutSeconds: 60,
});
await runOnce(concurrency, concurrency, (_run, domains) =>
  conversationJob({ domains, agent, user, protocol }),
);
const local = await runOnce(perWorker, concurrency, (_run, domains) =>
  conversationJob({ domains, agent, user, protocol }),
);
await dispatcher.close();
await mock.stop();
admin.disconnect();
redisProcess.kill("SIGKILL");

console.log(
  JSON.stringify({
    bench: "distributed-run",
    machine_cores: os.availableParallelism(),
    latency_ms: latencyMs,
    conversations_per_worker: perWorker,
    concurrency_per_worker: concurrency,
    scaling: results,
    redis_commands_per_conversation: Number(redisPerConversation.toFixed(1)),
    local_wall_s: Number((local.wallMs / 1000).toFixed(2)),
    one_worker_wall_s: Number((oneWorkerWallMs / 1000).toFixed(2)),
    queue_overhead_share_of_wall: Number(((oneWorkerWallMs - local.wallMs) / oneWorkerWallMs).toFixed(4)),
    checkpoints: {
      redis_commands_per_conversation: Number(
        (checkpointCommands / withCheckpoints.conversations).toFixed(1),
      ),
      redis_kb_in_per_conversation: Number(
        (checkpointBytes / 1024 / withCheckpoints.conversations).toFixed(1),
      ),
      wall_s: Number((withCheckpoints.wallMs / 1000).toFixed(2)),
      overhead_share_of_wall: Number(
        ((withCheckpoints.wallMs - oneWorkerWallMs) / withCheckpoints.wallMs).toFixed(4),
      ),
    },
  }),
);
