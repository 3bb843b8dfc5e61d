import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { readFixtureJson, referenceTextMatches, tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mockModelFlags, runCli } from "./helpers/run-cli.js";

// What a live banking_knowledge run under the leaderboard's shell configs sends the agent's model, read
// on the wire at a mock provider: the system prompt and the tool schemas are the reference's, byte for
// byte (its prompt by the digest the reference recorded, its tools by the fixture's digest).

interface PromptIndex {
  by_retrieval_config: Record<string, { agent_system_prompt_sha256: string; task_specific: boolean }>;
}
const index = readFixtureJson<PromptIndex>("fixtures/prompts/banking_knowledge_prompt_index.json");
const CONFIGS = ["alltools", "alltools-qwen", "terminal_use", "terminal_use_write"];

const body = (request: MockLlmRequest) =>
  request.body as {
    messages: Array<{ role: string; content: unknown }>;
    tools?: Array<{ function: unknown }>;
  };
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

let server: MockLlmServer;
const dir = mkdtempSync(path.join(tmpdir(), "passk-banking-wire-"));
beforeAll(async () => {
  // The customer asks once and leaves after the agent's answer: one agent call per conversation.
  server = await startMockLlmServer({
    script: (request) => {
      if (!isUserSimulatorRequest(request)) return mockReply.text("I can help with that. Anything else?");
      const answered = body(request).messages.filter((m) => m.role === "user").length > 1;
      return mockReply.text(answered ? "No, thank you. ###STOP###" : "Hi, what fees does my card have?");
    },
  });
});
afterAll(() => server.close());

describe("banking_knowledge on the wire, under the leaderboard's shell configs", () => {
  it.each(CONFIGS)(
    "%s: the agent's system prompt and tools are the reference's",
    async (config) => {
      expect(index.by_retrieval_config[config]!.task_specific).toBe(false);
      const before = server.requests.length;
      const run = await runCli(
        [
          "run",
          "--domain",
          "banking_knowledge",
          "--retrieval-config",
          config,
          ...mockModelFlags(server.baseUrl),
          "--task-ids",
          "task_001",
          "--store",
          path.join(dir, `${config}.db`),
          "--progress",
          "none",
        ],
        {
          env: {
            PASSK_DATA_DIR: tau2DataDir(),
            OPENAI_COMPATIBLE_API_KEY: "sk-test-wire",
            // Needed for the dense search these configs offer; the conversation never searches.
            OPENAI_API_KEY: "sk-test-wire",
            OPENROUTER_API_KEY: "sk-test-wire",
          },
        },
      );
      expect(run.code, run.stderr).toBe(0);
      const agent = server.requests.slice(before).filter((r) => !isUserSimulatorRequest(r));
      expect(agent.length).toBeGreaterThan(0);
      for (const request of agent) {
        const system = body(request).messages[0]!;
        expect(system.role).toBe("system");
        expect(sha256(String(system.content))).toBe(
          index.by_retrieval_config[config]!.agent_system_prompt_sha256,
        );
        const tools = JSON.stringify(body(request).tools!.map((tool) => tool.function));
        const check = referenceTextMatches(
          tools,
          `fixtures/tools/banking_knowledge.json#agent_tools_by_retrieval_config.${config}`,
          (f) => {
            const fixture = f.json<{
              agent_tools_by_retrieval_config: Record<string, string[]>;
              agent_tool_schemas: Record<string, { function: unknown }>;
            }>("fixtures/tools/banking_knowledge.json");
            return JSON.stringify(
              fixture.agent_tools_by_retrieval_config[config]!.map(
                (name) => fixture.agent_tool_schemas[name]!.function,
              ),
            );
          },
        );
        expect(check.equal, check.message).toBe(true);
      }
    },
    120_000,
  );
});
