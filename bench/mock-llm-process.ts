/**
 * A mock OpenAI-compatible model in its own process, so the benchmark measures the harness's CPU
 * alone. Every reply waits LATENCY_MS; the replies follow bench-script.ts.
 * Prints its base URL on stdout, then serves until SIGTERM, when it prints its own CPU time as JSON
 * ({"cpu_ms": …, "rss_mb": …, "requests": …}) and exits (cleanly, so `--cpu-prof` can write its profile).
 * SIGUSR2 prints the same report for the time since the start or the last SIGUSR2, then starts the
 * counts again (after a warm-up, or between a bench's phases).
 */
import { startMockLlmServer } from "../src/testing/index.js";
import { benchScript } from "./bench-script.js";

const latencyMs = Number(process.argv[2] ?? 500);
const turns = Number(process.argv[3] ?? 5);

const script = benchScript(turns);
let requests = 0;
const server = await startMockLlmServer({
  delayMs: latencyMs,
  recordRequests: false,
  script: (request) => {
    requests++;
    return script(request);
  },
});
process.stdout.write(`${server.baseUrl}\n`);
let cpuBefore = process.cpuUsage();
function report(): string {
  const cpu = process.cpuUsage(cpuBefore);
  return JSON.stringify({
    cpu_ms: (cpu.user + cpu.system) / 1000,
    rss_mb: Math.round(process.memoryUsage.rss() / 1e6),
    requests,
  });
}
process.on("SIGUSR2", () => {
  const line = report();
  cpuBefore = process.cpuUsage();
  requests = 0;
  process.stdout.write(`${line}\n`);
});
process.once("SIGTERM", () => {
  process.stdout.write(`${report()}\n`, () => process.exit(0));
});
