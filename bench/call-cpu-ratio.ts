/**
 * passk's CPU per model call against a bare `node:http` client's, in one run, against one mock model.
 *
 * Two phases share the mock process (bench/mock-llm-process.ts, fixed latency), the concurrency and the
 * number of calls:
 * - passk: C conversations at once (LLM agent + LLM customer, mock domain), the whole harness —
 *   orchestrator, world, prompts, the AI SDK provider, passk's LLM layers; CPU is the harness process's;
 * - bare: C loops of a keep-alive `node:http` client POSTing the JSON bodies passk sends in one such
 *   conversation (captured from an in-process mock answering alike), in order, reading and parsing each
 *   answer — the least any client must do for the same calls and the same answers.
 *
 * The phases alternate (passk first, then bare first, …) so that the shared machine's noise falls on
 * both alike; each round's ratio compares its two phases. Reports each round and the ranges.
 *
 * Usage: node --import tsx bench/call-cpu-ratio.ts [concurrency=100] [latencyMs=200] [conversations=300] [rounds=4]
 */
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import type { Participants } from "../src/runner/build.js";
import { conversationSetup } from "../src/runner/simulation-setup.js";
import { startMockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { benchParticipants, benchScript, modelCalls } from "./bench-script.js";
import { spawnMockLlm } from "./spawn-mock-llm.js";

const concurrency = Number(process.argv[2] ?? 100);
const latencyMs = Number(process.argv[3] ?? 200);
const conversations = Number(process.argv[4] ?? 300);
const rounds = Number(process.argv[5] ?? 4);
const turns = 5;

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const task = data.task("create_task_1");

/** An LLM agent and customer against the mock, with passk's own prompts (as a run on your own domain). */
function participants(baseUrl: string, suffix = ""): Participants {
  return benchParticipants(baseUrl, { suffix, timeoutSeconds: 60 });
}

/** The bodies of one conversation as passk sends them, captured by an in-process mock answering alike. */
async function captureBodies(): Promise<string[]> {
  const server = await startMockLlmServer({ script: benchScript(turns) });
  const { agent, user, protocol } = participants(server.baseUrl);
  await runSimulation(conversationSetup({ data, task, agent, user, protocol, seed: 0, trial: 0 }));
  await server.close();
  return server.requests.map((request) => JSON.stringify(request.body));
}

const bodies = await captureBodies();
const mock = await spawnMockLlm(latencyMs, turns);
const passk = participants(mock.baseUrl);
const url = new URL(`${mock.baseUrl}/chat/completions`);
const bareAgent = new http.Agent({ keepAlive: true });

/**
 * One call of the bare client: POST the body, read the whole answer, parse it. A kept-alive socket the
 * mock closed just as it was reused is retried once on a new one (as node's docs advise); passk's own
 * retries cover the same race.
 */
function post(body: string, retried = false): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        agent: bareAgent,
        headers: {
          "content-type": "application/json",
          authorization: "Bearer bench",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        });
        response.on("error", reject);
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (request.reusedSocket && error.code === "ECONNRESET" && !retried) resolve(post(body, true));
      else reject(error);
    });
    request.end(body);
  });
}

/** `count` jobs, `concurrency` at a time. */
async function pool(count: number, job: (index: number) => Promise<number>): Promise<number> {
  let next = 0;
  let calls = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const made = await job(next++);
        calls += made;
      }
    }),
  );
  return calls;
}

async function passkConversations(
  count: number,
  from: number,
  { agent, user, protocol }: Participants = passk,
): Promise<number> {
  return pool(count, async (i) => {
    const run = await runSimulation(
      conversationSetup({ data, task, agent, user, protocol, seed: from + i, trial: from + i }),
    );
    if (run.termination_reason !== "user_stop")
      throw new Error(`conversation ended by ${run.termination_reason}`);
    return modelCalls(run.messages);
  });
}

async function bareConversations(count: number): Promise<number> {
  return pool(count, async () => {
    for (const body of bodies) await post(body);
    return bodies.length;
  });
}

/**
 * CPU ticks of this process's threads, main thread apart (Linux `/proc`; elsewhere undefined): the rest
 * are V8's collector and compiler helpers, libuv's pool.
 */
function threadTicks(): { main: number; others: number } | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return undefined;
  }
  const ticks = { main: 0, others: 0 };
  for (const tid of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended meanwhile
    }
    // utime and stime: fields 14 and 15, counted after the parenthesised name.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const used = Number(fields[11]) + Number(fields[12]);
    if (tid === String(process.pid)) ticks.main += used;
    else ticks.others += used;
  }
  return ticks;
}

interface Phase {
  cpu_ms_per_call: number;
  /** Of that CPU, the share on threads other than the main one (GC and compiler helpers). */
  helper_threads_share?: number;
  calls: number;
  wall_s: number;
  mock_cpu_ms_per_call: number;
}

async function measure(run: () => Promise<number>): Promise<Phase> {
  await mock.reset();
  const ticksBefore = threadTicks();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const calls = await run();
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  const ticksAfter = threadTicks();
  const mockReport = await mock.reset();
  if (mockReport.requests !== calls)
    throw new Error(`the mock saw ${mockReport.requests} calls, not ${calls}`);
  return {
    cpu_ms_per_call: Number(((cpu.user + cpu.system) / 1000 / calls).toFixed(3)),
    ...(ticksBefore && ticksAfter
      ? {
          helper_threads_share: Number(
            (
              (ticksAfter.others - ticksBefore.others) /
              Math.max(1, ticksAfter.main - ticksBefore.main + ticksAfter.others - ticksBefore.others)
            ).toFixed(2),
          ),
        }
      : {}),
    calls,
    wall_s: Number((wallMs / 1000).toFixed(2)),
    mock_cpu_ms_per_call: Number((mockReport.cpu_ms / calls).toFixed(3)),
  };
}

// Warm-up: JIT and open connections for both clients (passk's with instant replies, then real ones).
await passkConversations(concurrency, 0, participants(mock.baseUrl, "-warmup"));
await passkConversations(concurrency, 0);
await bareConversations(concurrency);

let seed = concurrency;
const measured: { passk: Phase; bare: Phase; ratio: number }[] = [];
for (let round = 0; round < rounds; round++) {
  const passkPhase = () => measure(() => passkConversations(conversations, (seed += conversations)));
  const barePhase = () => measure(() => bareConversations(conversations));
  let passkResult: Phase;
  let bareResult: Phase;
  if (round % 2 === 0) {
    passkResult = await passkPhase();
    bareResult = await barePhase();
  } else {
    bareResult = await barePhase();
    passkResult = await passkPhase();
  }
  const ratio = Number((passkResult.cpu_ms_per_call / bareResult.cpu_ms_per_call).toFixed(2));
  measured.push({ passk: passkResult, bare: bareResult, ratio });
}
await mock.stop();
bareAgent.destroy();

const range = (values: number[]) => [Math.min(...values), Math.max(...values)];
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ratios = measured.map((m) => m.ratio);
console.log(
  JSON.stringify({
    bench: "call-cpu-ratio",
    concurrency,
    latency_ms: latencyMs,
    calls_per_phase: measured[0]?.passk.calls,
    mean_body_bytes: Math.round(bodies.reduce((sum, b) => sum + b.length, 0) / bodies.length),
    passk_cpu_ms_per_call: range(measured.map((m) => m.passk.cpu_ms_per_call)),
    bare_cpu_ms_per_call: range(measured.map((m) => m.bare.cpu_ms_per_call)),
    ratio: range(ratios),
    ratio_median: Number(median(ratios).toFixed(2)),
    rounds: measured,
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
