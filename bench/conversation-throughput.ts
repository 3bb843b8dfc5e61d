/**
 * Conversation engine at scale: C conversations at once (LLM agent + LLM user over real HTTP) against a
 * mock model with fixed latency in another process. Each model call is one step; the ideal step rate is
 * C ÷ latency. Reports achieved steps/s, its share of the ideal, and the harness's CPU time per step.
 *
 * The mock's own CPU time per step is reported too: it shares the machine, so when it is slow the
 * harness waits on it.
 *
 * Measured warm: 50 conversations with instant replies run first (JIT, connections), then both
 * processes' CPU counts start again.
 *
 * Usage: node --import tsx bench/conversation-throughput.ts [concurrency=1000] [latencyMs=500] [turns=5]
 */
import os from "node:os";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import { conversationSetup } from "../src/runner/simulation-setup.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { benchParticipants, modelCalls } from "./bench-script.js";
import { spawnMockLlm } from "./spawn-mock-llm.js";

const concurrency = Number(process.argv[2] ?? 1000);
const latencyMs = Number(process.argv[3] ?? 500);
const turns = Number(process.argv[4] ?? 5);

const mock = await spawnMockLlm(latencyMs, turns);
const baseUrl = mock.baseUrl;

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const task = data.task("create_task_1");
/** An LLM agent and customer against the mock, with passk's own prompts: no retries, a minute per call. */
const participants = (suffix = "") =>
  benchParticipants(baseUrl, { suffix, maxAttempts: 1, timeoutSeconds: 60 });
const { agent, user, protocol } = participants();

const warm = participants("-warmup");
await Promise.all(
  Array.from({ length: 50 }, (_, i) =>
    runSimulation(
      conversationSetup({ data, task, agent: warm.agent, user: warm.user, protocol, seed: i, trial: i }),
    ),
  ),
);
await mock.reset();

const cpuBefore = process.cpuUsage();
const start = performance.now();
const runs = await Promise.all(
  Array.from({ length: concurrency }, (_, i) =>
    runSimulation(conversationSetup({ data, task, agent, user, protocol, seed: i, trial: i })),
  ),
);
const wallMs = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
const mockCpu = await mock.stop();

const steps = runs.reduce((sum, run) => sum + modelCalls(run.messages), 0);
const failed = runs.filter((r) => r.termination_reason !== "user_stop").length;
const achieved = steps / (wallMs / 1000);
const ideal = concurrency / (latencyMs / 1000);
console.log(
  JSON.stringify({
    bench: "conversations",
    concurrency,
    latency_ms: latencyMs,
    conversations: runs.length,
    not_ended_by_user: failed,
    model_calls: steps,
    wall_s: Number((wallMs / 1000).toFixed(2)),
    steps_per_second: Number(achieved.toFixed(1)),
    ideal_steps_per_second: ideal,
    share_of_ideal: Number((achieved / ideal).toFixed(3)),
    harness_cpu_ms_per_step: Number(((cpu.user + cpu.system) / 1000 / steps).toFixed(3)),
    mock_cpu_ms_per_step: Number((mockCpu.cpu_ms / steps).toFixed(3)),
    mock_rss_mb: mockCpu.rss_mb,
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
