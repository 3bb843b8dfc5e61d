/**
 * What recording the model call behind each turn costs `passk run`, and what it adds to the store: the
 * airline base tasks, one gold-script conversation each (τ² protocol, `openai:gpt-4.1` on both sides,
 * the in-process mock server with no latency), once without the recorder and once with it as `passk run`
 * uses it — the recorder among the models' observers, each conversation in its own scope, its events
 * tying calls to turns, the record cleaned of secrets, gzipped and written to a SQLite store.
 *
 * Passes alternate off and on; the figure is the median of 5 passes each, after a warm-up pass of both.
 * Bytes are those of the stored rows (gzipped JSON), per simulation, beside the simulation's own row.
 *
 * Usage: node --import tsx bench/model-call-record.ts [tasks=all of the base split]   (run by `npm run bench`)
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { buildParticipants } from "../src/runner/build.js";
import type { JobContext } from "../src/runner/execute-run.js";
import { ModelCallRecorder } from "../src/runner/model-call-recorder.js";
import { runConversation } from "../src/runner/conversation-job.js";
import { SqliteModelCallStore } from "../src/store/model-call-store.js";
import { Store } from "../src/store/store.js";
import { goldScript, startMockLlmServer } from "../src/testing/index.js";
import { tau2DataDir, tau2UpstreamDir } from "../src/testing/tau2-fixtures.js";

const PASSES = 5;
const dataDir = tau2DataDir();
const data = new DomainData(builtinDomains.get("airline")!, dataDir);
const base = new Set(data.splits?.base ?? data.tasks.map((task) => task.id));
const tasks = data.tasks.filter((task) => base.has(task.id)).slice(0, Number(process.argv[2] ?? base.size));
const upstream = tau2UpstreamDir();
const env = { OPENAI_API_KEY: "bench-key-0123456789" };
const MODEL = "openai:gpt-4.1";
const server = await startMockLlmServer({ script: [], recordRequests: false, promptCache: false });
const folder = mkdtempSync(path.join(os.tmpdir(), "passk-bench-calls-"));
const store = Store.open(path.join(folder, "bench.db"));
const runId = store.createRun({ numTrials: 1 }).id;
const sink = new SqliteModelCallStore(store);

interface Pass {
  wallMs: number;
  cpuMs: number;
  rewards: number;
  simulationBytes: number;
}

async function pass(recorded: boolean): Promise<Pass> {
  const recorder = recorded ? new ModelCallRecorder({ secrets: Object.values(env) }) : undefined;
  // τ²'s protocol: the reference's prompts and done tool, temperature 0; no retries.
  const { agent, user, protocol } = buildParticipants({
    agent: { model: MODEL, baseUrl: server.baseUrl },
    user: { model: MODEL, baseUrl: server.baseUrl },
    protocol: "tau2",
    upstream,
    dataDir,
    domains: [data.domain],
    env,
    maxAttempts: 1,
    ...(recorder ? { observer: recorder } : {}),
  });
  let rewards = 0;
  let simulationBytes = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (const [trial, task] of tasks.entries()) {
    server.setScript(goldScript(task));
    // The conversation as `passk run` runs it (its job's pipeline: set-up, conversation, grade).
    const job = (context: JobContext) =>
      runConversation({
        data,
        task,
        agent,
        user,
        protocol,
        seed: trial,
        trial,
        ...(context.onSimulationEvent ? { onEvent: context.onSimulationEvent } : {}),
      });
    const context = {
      job: {
        runId,
        domain: "airline",
        taskId: task.id,
        trial,
        attempt: 1,
        workerId: "bench",
        leaseExpiresAt: "",
      },
      seed: trial,
      signal: new AbortController().signal,
      reportCost: () => undefined,
    } satisfies JobContext;
    const run = await (recorder ? recorder.recordRunJob(job, sink) : job)(context);
    rewards += run.reward_info?.reward ?? 0;
    simulationBytes += JSON.stringify(run).length;
  }
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, rewards, simulationBytes };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await pass(false);
await pass(true);
const off: Pass[] = [];
const on: Pass[] = [];
for (let i = 0; i < PASSES; i++) {
  off.push(await pass(false));
  on.push(await pass(true));
}
if (on.some((p) => p.rewards !== off[0]!.rewards))
  throw new Error("recording changed the conversations' rewards");
const n = tasks.length;
const perConversation = (passes: Pass[], key: "wallMs" | "cpuMs") => median(passes.map((p) => p[key])) / n;
const offWall = perConversation(off, "wallMs");
const onWall = perConversation(on, "wallMs");
const stored = sink.bytes(runId);
// What the records would be as plain JSON, each with its prompts (as the API answers them).
const db = new Database(store.file, { readonly: true });
const ids = db.prepare("SELECT simulation_id FROM simulation_model_calls").all() as Array<{
  simulation_id: string;
}>;
db.close();
const jsonBytes = ids.reduce(
  (sum, row) => sum + JSON.stringify(sink.load(runId, row.simulation_id)).length,
  0,
);
console.log(
  JSON.stringify({
    bench: "model-call-record",
    conversations: n,
    model: MODEL,
    ms_per_conversation_off: Number(offWall.toFixed(3)),
    ms_per_conversation_on: Number(onWall.toFixed(3)),
    overhead_ms_per_conversation: Number((onWall - offWall).toFixed(3)),
    overhead_wall: Number((onWall / offWall - 1).toFixed(3)),
    cpu_ms_per_conversation_off: Number(perConversation(off, "cpuMs").toFixed(3)),
    cpu_ms_per_conversation_on: Number(perConversation(on, "cpuMs").toFixed(3)),
    stored_kb_per_simulation: Number((stored.bytes / 1024 / stored.simulations).toFixed(2)),
    record_json_kb_per_simulation: Number((jsonBytes / 1024 / ids.length).toFixed(2)),
    simulation_json_kb: Number((on[0]!.simulationBytes / 1024 / n).toFixed(2)),
    load_average: Number(os.loadavg()[0]!.toFixed(2)),
  }),
);
store.close();
rmSync(folder, { recursive: true, force: true });
await server.close();
