import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageSchema } from "../../src/core/message.js";
import { Store } from "../../src/store/store.js";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmServer,
} from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { runCli } from "../helpers/run-cli.js";

// A team's `--perturbation-module` whose hooks answer the wrong shape (m10 of the second hostile round):
// the conversation ends as an infrastructure error, blamed on the module by file, hook and fault — never
// the agent's error, and the bad value is never stored.

const dir = mkdtempSync(path.join(tmpdir(), "passk-hook-results-"));
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-hooks" };

// A plain ES module (no imports): what definePerturbation makes, with a permissive `params`.
const module = path.join(dir, "bad-hooks.mjs");
writeFileSync(
  module,
  `const params = { safeParse: (value) => ({ success: true, data: value }) };
const perturbation = (name, kind, effects) => ({ name, version: 1, kind, summary: name, params, effects });
export const badToolResult = perturbation("bad-tool-result", "tool", () => ({
  changeToolResult: () => ({ content: 12345, error: "yes" }),
}));
export const badCustomerMessage = perturbation("bad-customer-message", "customer", (_p, c) => ({
  changeCustomerMessage: () => ({ content: 42, mark: { perturbation: c.id, effect: "customer_message" } }),
}));
export const throwingToolResult = perturbation("throwing-tool-result", "tool", () => ({
  changeToolResult: () => { throw new Error("boom"); },
}));
export const throwingEffects = perturbation("throwing-effects", "tool", () => {
  throw new Error("no effects today");
});
export const numberEffects = perturbation("number-effects", "tool", () => 7);
export const goodShouting = perturbation("good-shouting", "customer", (_p, c) => ({
  changeCustomerMessage: (content) => ({ content: content.toUpperCase(), mark: { perturbation: c.id, effect: "customer_message" } }),
}));
`,
);

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    script: (request) => {
      if (isUserSimulatorRequest(request))
        return request.messages.some((m) => "content" in m && m.content?.startsWith("Done"))
          ? mockReply.text("Thanks. ###STOP###")
          : mockReply.text("I need help with my tasks.");
      return request.messages.some((m) => m.role === "tool")
        ? mockReply.text("Done, anything else?")
        : mockReply.toolCall("get_users", {});
    },
  });
});
afterAll(() => server.close());

async function runWith(perturb: string) {
  const store = path.join(dir, `${perturb}.db`);
  const run = await runCli(
    [
      "run",
      "--domain",
      "mock",
      "--task-ids",
      "create_task_1",
      "--num-trials",
      "1",
      "--max-retries",
      "1",
      "--agent-llm",
      "openai-compatible:mock-agent",
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
      "--perturbation-module",
      module,
      "--perturb",
      perturb,
    ],
    { env },
  );
  const opened = Store.open(store);
  try {
    const runId = opened.listRuns()[0]!.id;
    const simulations = opened.getSimulations(runId).map(({ simulation }) => simulation);
    return { run, simulations };
  } finally {
    opened.close();
  }
}

describe("a perturbation module's hook answering the wrong shape", () => {
  it.each([
    ["bad-tool-result", "changeToolResult", /\(content: .*expected string.*; error: .*expected boolean/],
    ["bad-customer-message", "changeCustomerMessage", /\(content: .*expected string/],
  ])("%s: an infrastructure error naming the module file and the %s hook", async (perturb, hook, what) => {
    const { run, simulations } = await runWith(perturb);
    const sentence = `the perturbation module ${module} (${perturb}@1): its ${hook} hook returned a wrong value (`;
    expect(run.stderr).toContain(sentence);
    expect(run.stderr).toContain("the module's fault, not the agent's");
    expect(simulations.length).toBeGreaterThan(0);
    for (const simulation of simulations) {
      expect(simulation.termination_reason).toBe("infrastructure_error");
      const info = (simulation as { info?: { error?: string; error_type?: string } }).info;
      expect(info?.error_type).toBe("PerturbationHookError");
      expect(info?.error).toContain(sentence);
      expect(info?.error).toMatch(what);
      // Nothing of the bad answer is stored: every message reads back as a message.
      for (const message of simulation.messages) expect(MessageSchema.safeParse(message).success).toBe(true);
    }
  });

  it("a hook that throws is the module's infrastructure error too, never the agent's", async () => {
    const { run, simulations } = await runWith("throwing-tool-result");
    const sentence = `the perturbation module ${module} (throwing-tool-result@1): its changeToolResult hook threw (boom)`;
    expect(run.stderr).toContain(sentence);
    expect(simulations.length).toBeGreaterThan(0);
    for (const simulation of simulations) {
      expect(simulation.termination_reason).toBe("infrastructure_error");
      expect((simulation as { info?: { error?: string } }).info?.error).toContain(sentence);
    }
  });

  it.each([
    ["throwing-effects", "its effects function threw (no effects today)"],
    ["number-effects", "its effects function returned number, not an object of hooks"],
  ])("%s: a broken effects function is the module's infrastructure error too", async (perturb, says) => {
    const { run, simulations } = await runWith(perturb);
    const sentence = `the perturbation module ${module} (${perturb}@1): ${says}`;
    expect(run.stderr).toContain(sentence);
    expect(simulations.length).toBeGreaterThan(0);
    for (const simulation of simulations) {
      expect(simulation.termination_reason).toBe("infrastructure_error");
      expect((simulation as { info?: { error?: string } }).info?.error).toContain(sentence);
    }
  });

  it("a well-shaped hook of the same module still applies (the check refuses only wrong shapes)", async () => {
    const { run, simulations } = await runWith("good-shouting");
    expect(run.code, run.stderr).toBe(0);
    expect(simulations).toHaveLength(1);
    expect(simulations[0]!.termination_reason).toBe("user_stop");
    const customer = simulations[0]!.messages.filter((m) => m.role === "user");
    expect(customer.map((m) => m.content)).toContain("I NEED HELP WITH MY TASKS.");
  });
});
