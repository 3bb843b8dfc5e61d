/**
 * `passk run` at scale: N conversations (the 10 mock-domain tasks × N/10 trials) at concurrency C
 * through the runner itself — SQLite store and job queue, per-trial seeds, grading, cost tracking —
 * against a mock OpenAI-compatible model with fixed latency in another process (bench/mock-llm-process.ts).
 *
 * Figures:
 * - wall time versus the ideal: total model calls × latency ÷ C (every worker always waiting on a
 *   reply, no time lost between calls or between conversations);
 * - store write overhead per simulation: time inside the queue's `complete` (one SQLite transaction
 *   storing the simulation with its messages and reward info, and finishing its job);
 * - peak RSS of the runner's process.
 *
 * Usage: node --import tsx bench/run-scale.ts [conversations=1000] [concurrency=200] [latencyMs=500] [turns=3]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { conversationJob } from "../src/runner/conversation-job.js";
import { executeRun } from "../src/runner/execute-run.js";
import { planRun } from "../src/runner/run-plan.js";
import { SqliteJobQueue } from "../src/store/sqlite-job-queue.js";
import { Store } from "../src/store/store.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { benchParticipants, modelCalls } from "./bench-script.js";
import { spawnMockLlm } from "./spawn-mock-llm.js";

const conversations = Number(process.argv[2] ?? 1000);
const concurrency = Number(process.argv[3] ?? 200);
const latencyMs = Number(process.argv[4] ?? 500);
const turns = Number(process.argv[5] ?? 3);

const mock = await spawnMockLlm(latencyMs, turns);
const baseUrl = mock.baseUrl;

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const tasks = data.tasks;
const numTrials = Math.ceil(conversations / tasks.length);
const plan = planRun({ domains: [{ domain: "mock", tasks }], numTrials, seed: 300 });
const jobs = plan.jobs.slice(0, conversations);

const folder = mkdtempSync(path.join(os.tmpdir(), "passk-bench-run-"));
const store = Store.open(path.join(folder, "passk.db"));
const queue = new SqliteJobQueue(store);
const run = store.createRun({ numTrials, config: { bench: "run-scale" } });
store.putTasks(run.id, "mock", tasks);
await queue.enqueue(run.id, jobs);

// passk's own prompts (as a run on your own domain): no retries, a minute per call.
const { agent, user, protocol } = benchParticipants(baseUrl, { maxAttempts: 1, timeoutSeconds: 60 });

const rssBefore = process.memoryUsage.rss();
const cpuBefore = process.cpuUsage();
const start = performance.now();
const outcome = await executeRun({
  queue,
  runId: run.id,
  concurrency,
  seedOf: (job) => plan.trialSeeds[job.trial]!,
  runJob: conversationJob({
    domains: new Map([["mock", { data, tasks: new Map(tasks.map((t) => [t.id, t])) }]]),
    agent,
    user,
    protocol,
  }),
});
const wallMs = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
const mockReport = await mock.stop();

// Every model call is one message with usage; the calls of a conversation happen one after another.
const stored = store.getSimulations(run.id).map((s) => s.simulation);
const callsPerSimulation = stored.map((s) => modelCalls(s.messages));
const calls = callsPerSimulation.reduce((sum, n) => sum + n, 0);
const longest = Math.max(...callsPerSimulation) * latencyMs;
const idealMs = Math.max((calls * latencyMs) / concurrency, longest);
const keys = new Set(stored.map((s) => `${s.task_id}/${s.trial}`));
store.close();
rmSync(folder, { recursive: true, force: true });

console.log(
  JSON.stringify({
    bench: "run-scale",
    conversations: jobs.length,
    stored: stored.length,
    distinct_task_trials: keys.size,
    not_user_stop: stored.filter((s) => s.termination_reason !== "user_stop").length,
    concurrency,
    latency_ms: latencyMs,
    model_calls: calls,
    wall_s: Number((wallMs / 1000).toFixed(2)),
    ideal_s: Number((idealMs / 1000).toFixed(2)),
    wall_over_ideal: Number((wallMs / idealMs).toFixed(3)),
    store_ms_per_simulation: Number((outcome.storeMs / outcome.completed).toFixed(3)),
    store_share_of_wall: Number((outcome.storeMs / wallMs).toFixed(4)),
    runner_cpu_ms_per_conversation: Number(((cpu.user + cpu.system) / 1000 / jobs.length).toFixed(2)),
    mock_cpu_ms_per_call: Number((mockReport.cpu_ms / calls).toFixed(3)),
    peak_rss_mb: Math.round((process.resourceUsage().maxRSS * 1024) / 1e6),
    rss_growth_mb: Math.round((process.memoryUsage.rss() - rssBefore) / 1e6),
    reason: outcome.reason,
  }),
);
