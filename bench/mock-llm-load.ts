/**
 * The mock model alone under load: C clients (a cheap node:http client with keep-alive, no AI SDK)
 * replay the request bodies of one real bench conversation against bench/mock-llm-process.ts, in a loop.
 * Reports the mock's requests/s and its CPU per request, so a slow mock is not mistaken for a slow harness.
 *
 * Usage: node --import tsx bench/mock-llm-load.ts [concurrency=1000] [latencyMs=500] [requestsPerClient=14]
 */
import http from "node:http";
import os from "node:os";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import { conversationSetup } from "../src/runner/simulation-setup.js";
import { startMockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { benchParticipants, benchScript } from "./bench-script.js";
import { spawnMockLlm } from "./spawn-mock-llm.js";

const concurrency = Number(process.argv[2] ?? 1000);
const latencyMs = Number(process.argv[3] ?? 500);
const perClient = Number(process.argv[4] ?? 14);

/** The bodies of one conversation, captured by an in-process mock that answers as the bench's mock does. */
async function captureBodies(): Promise<string[]> {
  const server = await startMockLlmServer({ script: benchScript(5) });
  const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
  const { agent, user, protocol } = benchParticipants(server.baseUrl);
  await runSimulation(conversationSetup({ data, task: data.task("create_task_1"), agent, user, protocol }));
  await server.close();
  return server.requests.map((request) => JSON.stringify(request.body));
}

const bodies = await captureBodies();
const mock = await spawnMockLlm(latencyMs);
const url = new URL(`${mock.baseUrl}/chat/completions`);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function post(body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`)),
        );
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const cpuBefore = process.cpuUsage();
const start = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let i = 0; i < perClient; i++) await post(bodies[i % bodies.length]!);
  }),
);
const wallMs = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
const mockCpu = await mock.stop();
agent.destroy();
const requests = concurrency * perClient;
const achieved = requests / (wallMs / 1000);
const ideal = concurrency / (latencyMs / 1000);
console.log(
  JSON.stringify({
    bench: "mock-llm-alone",
    concurrency,
    latency_ms: latencyMs,
    requests,
    mean_body_bytes: Math.round(bodies.reduce((sum, b) => sum + b.length, 0) / bodies.length),
    wall_s: Number((wallMs / 1000).toFixed(2)),
    requests_per_second: Number(achieved.toFixed(1)),
    share_of_ideal: Number((achieved / ideal).toFixed(3)),
    mock_cpu_ms_per_request: Number((mockCpu.cpu_ms / requests).toFixed(3)),
    client_cpu_ms_per_request: Number(((cpu.user + cpu.system) / 1000 / requests).toFixed(3)),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
