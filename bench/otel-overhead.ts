/**
 * What `--otel` costs a conversation: the airline base tasks, one gold-script conversation each (the
 * agent makes the task's gold tool calls, then answers; the customer opens and stops; about 7 model
 * calls and 4 tool calls a conversation) under the τ² protocol, against the in-process mock server with
 * no latency, `openai:gpt-4.1` on both sides — once without tracing and once with it, as `passk run`
 * does it: model calls observed, the conversation's events fed to its trace, the grade at the end,
 * spans batched by the SDK's BatchSpanProcessor and POSTed as OTLP/JSON to a receiver on 127.0.0.1 (in
 * this process, reading and discarding the bodies). The final flush is timed apart.
 *
 * Passes alternate off and on; the figure is the median of 5 passes each, after a warm-up pass of both.
 * CPU is this process's (harness, mock and receiver together; the mock's and the harness's share is the
 * same in both modes, so the difference is tracing's). The machine may be shared: the load average is
 * printed with the figures.
 *
 * Usage: node --import tsx bench/otel-overhead.ts [tasks=all of the base split]   (run by `npm run bench`)
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { builtinDomains } from "../src/domains/registry.js";
import { evaluateSimulation } from "../src/evaluation/evaluate-simulation.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { resolveOtelSettings, startTracing } from "../src/observability/index.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import { buildParticipants } from "../src/runner/build.js";
import { conversationSetup } from "../src/runner/simulation-setup.js";
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

// The collector: accepts every export and keeps only its size.
let receivedBytes = 0;
let exportsReceived = 0;
const receiver = createServer((request, response) => {
  request.on("data", (chunk: Buffer) => (receivedBytes += chunk.length));
  request.on("end", () => {
    exportsReceived++;
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const server = await startMockLlmServer({ script: [], recordRequests: false, promptCache: false });

interface Pass {
  wallMs: number;
  cpuMs: number;
  flushMs: number;
  rewards: number;
}

async function pass(traced: boolean): Promise<Pass> {
  const settings = traced ? resolveOtelSettings({ flag: receiverUrl, env: {} }) : undefined;
  const tracing = settings && startTracing({ settings, env, warn: (message) => console.error(message) });
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
    ...(tracing ? { observer: tracing.modelCalls } : {}),
  });
  let rewards = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (const [trial, task] of tasks.entries()) {
    server.setScript(goldScript(task));
    const setup = conversationSetup({
      data,
      task,
      agent,
      user,
      protocol,
      seed: trial,
      trial,
    });
    const trace = tracing?.conversation({
      domain: "airline",
      taskId: task.id,
      trial,
      seed: trial,
      agentLlm: MODEL,
      userLlm: MODEL,
    });
    const converse = async () => {
      const run = await runSimulation(setup, trace?.onEvent);
      const reward = await evaluateSimulation(run, task, {
        newWorld: (o) => data.newWorld(o),
        solo: false,
        validation: "lenient",
      });
      return { ...run, reward_info: reward };
    };
    const run = await (trace ? trace.run(converse) : converse());
    trace?.end({ run });
    rewards += run.reward_info.reward;
  }
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const flushStart = performance.now();
  await tracing?.shutdown();
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    flushMs: performance.now() - flushStart,
    rewards,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await pass(false);
await pass(true);
const off: Pass[] = [];
const on: Pass[] = [];
exportsReceived = 0;
receivedBytes = 0;
for (let i = 0; i < PASSES; i++) {
  off.push(await pass(false));
  on.push(await pass(true));
}
if (on.some((p) => p.rewards !== off[0]!.rewards))
  throw new Error("tracing changed the conversations' rewards");
const n = tasks.length;
const perConversation = (passes: Pass[], key: "wallMs" | "cpuMs") => median(passes.map((p) => p[key])) / n;
const offWall = perConversation(off, "wallMs");
const onWall = perConversation(on, "wallMs");
const offCpu = perConversation(off, "cpuMs");
const onCpu = perConversation(on, "cpuMs");
console.log(
  JSON.stringify({
    bench: "otel-overhead",
    conversations: n,
    model: MODEL,
    ms_per_conversation_off: Number(offWall.toFixed(3)),
    ms_per_conversation_on: Number(onWall.toFixed(3)),
    overhead_ms_per_conversation: Number((onWall - offWall).toFixed(3)),
    overhead_wall: Number((onWall / offWall - 1).toFixed(3)),
    cpu_ms_per_conversation_off: Number(offCpu.toFixed(3)),
    cpu_ms_per_conversation_on: Number(onCpu.toFixed(3)),
    final_flush_ms: Number(median(on.map((p) => p.flushMs)).toFixed(1)),
    otlp_kb_per_conversation: Number((receivedBytes / 1024 / (PASSES * n)).toFixed(2)),
    exports: exportsReceived,
    load_average: Number(os.loadavg()[0]!.toFixed(2)),
  }),
);
await server.close();
receiver.close();
