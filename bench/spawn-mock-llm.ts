/**
 * Starts bench/mock-llm-process.ts (a mock OpenAI-compatible model with fixed latency) in its own
 * process, so a bench measures its harness's CPU apart from the mock's.
 * MOCK_NODE_FLAGS="--cpu-prof" passes node flags to the mock's process (e.g. to profile it).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

export interface MockLlmReport {
  cpu_ms: number;
  rss_mb: number;
  requests: number;
}

export interface MockLlmProcess {
  baseUrl: string;
  /** Start the mock's CPU and request counts again; resolves with the counts of the period it ends. */
  reset(): Promise<MockLlmReport>;
  /** Stop the mock; resolves with its CPU time, RSS and requests since the start or the last reset. */
  stop(): Promise<MockLlmReport>;
}

export async function spawnMockLlm(latencyMs: number, turns?: number): Promise<MockLlmProcess> {
  const mock = spawn(
    process.execPath,
    [
      ...(process.env.MOCK_NODE_FLAGS ?? "").split(" ").filter(Boolean),
      "--import",
      "tsx",
      path.join(import.meta.dirname, "mock-llm-process.ts"),
      String(latencyMs),
      ...(turns === undefined ? [] : [String(turns)]),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: mock.stdout! })[Symbol.asyncIterator]();
  const nextLine = async () => String((await lines.next()).value);
  const baseUrl = await nextLine();
  return {
    baseUrl,
    async reset() {
      mock.kill("SIGUSR2");
      return JSON.parse(await nextLine()) as MockLlmReport;
    },
    async stop() {
      mock.kill();
      return JSON.parse(await nextLine()) as MockLlmReport;
    },
  };
}
