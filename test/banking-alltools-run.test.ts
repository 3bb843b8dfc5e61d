import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Store } from "../src/store/store.js";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { sandboxUnavailable } from "../src/knowledge/shell-sandbox.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { passkProcesses, waitFor } from "./helpers/passk-process.js";
import { mockModelFlags, runCli } from "./helpers/run-cli.js";

// banking_knowledge as the leaderboard runs it (alltools), live: 20 conversations at once, each agent
// reading the knowledge base through the shell in its own sandbox. No sandbox outlives the run, nor a
// kill -9 once the run is resumed. Sandboxes live under $TMPDIR/passk-shell: each case has its own TMPDIR.

const messages = (request: MockLlmRequest) =>
  (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages;

/** Held agent answers (after the shell's output) wait here while `hold` is set. */
let hold: Promise<void> | undefined;
let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    script: async (request) => {
      const said = messages(request);
      if (isUserSimulatorRequest(request)) {
        const answered = said.filter((m) => m.role === "user").length > 1;
        return mockReply.text(answered ? "Thanks, that is all. ###STOP###" : "Hi, what does my card cost?");
      }
      // The agent looks in the knowledge base once, then answers.
      if (!said.some((m) => m.role === "tool"))
        return mockReply.toolCall("shell", {
          command: "ls knowledge_base | head -3 && wc -l < knowledge_base/INDEX.md",
        });
      if (hold) await hold;
      return mockReply.text("I found the fee schedule for you. Anything else?");
    },
  });
});
afterAll(() => server.close());

const processes = passkProcesses({});
afterEach(() => processes.killAll());

function setup(name: string) {
  const temp = mkdtempSync(path.join(tmpdir(), `passk-alltools-${name}-`));
  const env = {
    ...process.env,
    PASSK_DATA_DIR: tau2DataDir(),
    OPENAI_COMPATIBLE_API_KEY: "sk-test-alltools",
    OPENAI_API_KEY: "sk-test-alltools",
    TMPDIR: temp,
  };
  const args = [
    "run",
    "--domain",
    "banking_knowledge",
    "--retrieval-config",
    "alltools",
    ...mockModelFlags(server.baseUrl),
    "--num-tasks",
    "20",
    "--max-concurrency",
    "20",
    "--store",
    path.join(temp, "s.db"),
    "--progress",
    "none",
  ];
  const sandboxes = () => {
    const root = path.join(temp, "passk-shell");
    return existsSync(root) ? readdirSync(root) : [];
  };
  return { env, args, sandboxes, store: path.join(temp, "s.db") };
}

/** Every stored conversation called the shell and got the knowledge base's listing back. */
function expectShellInEach(store: string, count: number) {
  const opened = Store.open(store);
  try {
    const [run] = opened.listRuns();
    const simulations = opened.getSimulations(run!.id).map((stored) => stored.simulation);
    expect(simulations).toHaveLength(count);
    for (const simulation of simulations) {
      const shell = simulation.messages.find((m) => m.role === "tool");
      expect(shell, simulation.task_id).toBeDefined();
      expect(String(shell!.content)).toContain("INDEX.md");
      expect((shell as { error?: boolean }).error ?? false).toBe(false);
    }
  } finally {
    opened.close();
  }
}

describe.runIf(sandboxUnavailable() === undefined)("passk run --retrieval-config alltools, live", () => {
  it("20 conversations in parallel, each in its own sandbox; none left after the run", async () => {
    const { env, args, sandboxes, store } = setup("run");
    const run = await runCli(args, { env });
    expect(run.code, run.stderr).toBe(0);
    expectShellInEach(store, 20);
    expect(sandboxes()).toEqual([]);
  }, 240_000);

  it("kill -9 mid-run leaves sandboxes; the resume removes them and leaves none", async () => {
    const { env, args, sandboxes, store } = setup("kill");
    let release!: () => void;
    hold = new Promise<void>((resolve) => (release = resolve));
    try {
      const spawned = passkProcesses(env).spawn(args);
      // Conversations are held after their shell call: their sandboxes are open.
      await waitFor("sandboxes open mid-run", () => sandboxes().length >= 5, 120_000);
      spawned.child.kill("SIGKILL");
      await spawned.exited;
      expect(sandboxes().length).toBeGreaterThanOrEqual(5);
      release();
      hold = undefined;
      const opened = Store.open(store);
      const [run] = opened.listRuns();
      opened.close();
      const resumed = await runCli(["run", "--resume", run!.id, "--store", store, "--progress", "none"], {
        env,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expectShellInEach(store, 20);
      expect(sandboxes()).toEqual([]);
    } finally {
      release();
      hold = undefined;
    }
  }, 300_000);
});
