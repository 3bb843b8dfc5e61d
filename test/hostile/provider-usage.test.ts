import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "../../src/store/store.js";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmServer,
} from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { runCli } from "../helpers/run-cli.js";

// A provider answering with token usage no call can have (m10 of the second hostile round): the call is
// the provider's fault, named with the field, never blamed on the price table, and `--max-cost` holds —
// no new conversation starts once a call's cost cannot be counted.

const dir = mkdtempSync(path.join(tmpdir(), "passk-provider-usage-"));
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-usage" };
const prices = path.join(dir, "prices.json");
writeFileSync(
  prices,
  JSON.stringify({
    models: {
      "openai-compatible:bad-usage": { input_mtok: 1, output_mtok: 2 },
      "openai-compatible:mock-user": { input_mtok: 1, output_mtok: 2 },
    },
  }),
);

/** The prompt-token count the agent's model reports next (set by each case). */
let promptTokens = 0;
let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    script: (request) => {
      if (isUserSimulatorRequest(request))
        return request.messages.filter((m) => m.role === "assistant").length > 1
          ? mockReply.text("Thanks. ###STOP###")
          : mockReply.text("I need help with my tasks.");
      return mockReply.text("Happy to help.", { usage: { promptTokens, completionTokens: 5 } });
    },
  });
});
afterAll(() => server.close());

describe("a provider reporting impossible token usage", () => {
  it.each([
    ["negative", -1e9, "-1000000000"],
    ["fractional", 12.5, "12.5"],
    ["huge", 1e300, "1e+300"],
  ])(
    "(%s prompt_tokens) is named as the provider's fault and --max-cost stops new conversations",
    async (_kind, tokens, shown) => {
      promptTokens = tokens;
      const store = path.join(dir, `${_kind}.db`);
      const before = server.requests.filter((r) => r.model === "bad-usage").length;
      const run = await runCli(
        [
          "run",
          "--domain",
          "mock",
          "--task-ids",
          "create_task_1",
          "--num-trials",
          "5",
          "--max-concurrency",
          "1",
          "--max-cost",
          "0.01",
          "--prices",
          prices,
          "--max-retries",
          "1",
          "--agent-llm",
          "openai-compatible:bad-usage",
          "--agent-llm-base-url",
          server.baseUrl,
          "--user-llm",
          "openai-compatible:mock-user",
          "--user-llm-base-url",
          server.baseUrl,
          "--progress",
          "none",
          "--store",
          store,
        ],
        { env },
      );
      // One sentence names the model, the field and the value; the price table is not blamed.
      expect(run.stderr).toContain(
        `openai-compatible:bad-usage: the provider reported prompt (input) tokens = ${shown} in its usage`,
      );
      expect(run.stderr).toContain("the provider's fault, not the price table's");
      expect(run.stderr).not.toMatch(/not in the price table|pass --prices/);
      // The closing line says why the run stopped: not a budget reached with nothing spent.
      expect(run.stdout + run.stderr).toContain("stopped: --max-cost $0.01 can no longer be checked");
      expect(run.stdout + run.stderr).not.toContain("budget of $0.01 reached");
      // Only the first conversation met the provider: no new one started once its cost could not be counted.
      const agentCalls = server.requests.filter((r) => r.model === "bad-usage").length - before;
      expect(agentCalls).toBe(1);
      const opened = Store.open(store);
      try {
        const runId = opened.listRuns()[0]!.id;
        const simulations = opened.getSimulations(runId).map(({ simulation }) => simulation);
        expect(simulations).toHaveLength(1);
        expect(simulations[0]!.termination_reason).toBe("infrastructure_error");
        expect((simulations[0] as { info?: Record<string, unknown> }).info?.error_type).toBe(
          "ProviderUsageError",
        );
      } finally {
        opened.close();
      }
    },
  );
});
