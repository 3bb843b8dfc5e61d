import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { playConversation } from "./helpers/playground.js";
import { startAgentProcess } from "./helpers/remote-agents.js";
import { runCli } from "./helpers/run-cli.js";

// banking_knowledge runs under a chosen retrieval config: recorded with the run and in its results,
// held fixed on resume, carried into a leaderboard submission; simulate takes it too.

const dir = mkdtempSync(path.join(tmpdir(), "passk-banking-run-"));
const env = { PASSK_DATA_DIR: tau2DataDir() };
const gold = ["--agent-llm", "scripted:gold", "--user-llm", "scripted:gold"];
const runIdOf = (stderr: string) => /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(stderr)![1]!;

describe("passk run --domain banking_knowledge --retrieval-config", () => {
  const store = path.join(dir, "passk.db");
  const results = path.join(dir, "banking.json");

  it("runs under the config, records it in the results, and refuses a resume under another", async () => {
    const run = await runCli(
      [
        "run",
        "--domain",
        "banking_knowledge",
        ...gold,
        "--task-ids",
        "task_001",
        "task_004",
        "--retrieval-config",
        "grep_only",
        "--store",
        store,
        "--save-to",
        results,
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const file = JSON.parse(readFileSync(results, "utf8")) as {
      info: { passk: { retrieval_config: string; config: { retrievalConfig: string } } };
      simulations: Array<{
        task_id: string;
        messages: Array<{ role: string; tool_calls?: Array<{ name: string }> }>;
      }>;
    };
    expect(file.info.passk.retrieval_config).toBe("grep_only");
    expect(file.info.passk.config.retrievalConfig).toBe("grep_only");
    expect(file.simulations).toHaveLength(2);

    const resumed = await runCli(
      ["run", "--resume", runIdOf(run.stderr), "--retrieval-config", "bm25", "--store", store],
      { env },
    );
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('--retrieval-config: "grep_only" → "bm25"');
  });

  it("the submission takes the run's retrieval config, and refuses a different one", async () => {
    const list = await runCli(["runs", "list", "--store", store], { env });
    const id = /(\d{8}-\d{6}-[0-9a-f]{4})/.exec(list.stdout)![1]!;
    const base = [
      "submit",
      "prepare",
      id,
      "--store",
      store,
      "--model-name",
      "gold",
      "--model-organization",
      "passk",
      "--contact-email",
      "team@example.com",
    ];
    const output = path.join(dir, "submission");
    // Two of 97 tasks: written, then refused by the leaderboard's rules for the missing tasks only.
    const prepared = await runCli([...base, "--output", output], { env });
    expect(prepared.stdout + prepared.stderr).toContain("is missing 95 of the 97 base-split tasks");
    const submission = JSON.parse(readFileSync(path.join(output, "submission.json"), "utf8")) as {
      results: { banking_knowledge: { retrieval_config: string } };
    };
    expect(submission.results.banking_knowledge.retrieval_config).toBe("grep_only");
    const other = await runCli([...base, "--output", path.join(dir, "other"), "--retrieval-config", "bm25"], {
      env,
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("ran with retrieval config grep_only, not bm25");
  });

  it("bad configs are refused with a sentence before anything runs", async () => {
    const unknown = await runCli(
      ["run", "--domain", "banking_knowledge", ...gold, "--retrieval-config", "bm42", "--store", store],
      { env },
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/bm42/);
    expect(unknown.stderr).toMatch(/bm25/);
    const elsewhere = await runCli(
      ["run", "--domain", "airline", ...gold, "--retrieval-config", "bm25", "--store", store],
      { env },
    );
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("--retrieval-config applies to banking_knowledge only");
    // Configs whose tools cannot work here are refused before any conversation, by run and simulate:
    // the shell's when the sandbox's system programs are not on PATH.
    // (alltools's embeddings key is set: what is missing is the sandbox.)
    const noSandbox = {
      ...env,
      OPENAI_API_KEY: "sk-test-not-used",
      PATH: mkdtempSync(path.join(tmpdir(), "passk-empty-path-")),
    };
    for (const [config, reason] of [
      ["terminal_use", "the shell sandbox needs bwrap, rg, socat on PATH"],
      ["alltools", "the shell sandbox needs bwrap, rg, socat on PATH"],
      ["bm25_reranker", "choose the same config without _reranker"],
    ] as const) {
      const refused = await runCli(
        ["run", "--domain", "banking_knowledge", ...gold, "--retrieval-config", config, "--store", store],
        { env: noSandbox },
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(reason);
    }
    const simulate = await runCli(
      [
        "simulate",
        "--domain",
        "banking_knowledge",
        "--task",
        "task_001",
        ...gold,
        "--retrieval-config",
        "terminal_use",
      ],
      { env: noSandbox },
    );
    expect(simulate.code).toBe(1);
    expect(simulate.stderr).toContain("the shell sandbox needs bwrap, rg, socat on PATH");
  });

  it("simulate takes the config: the gold conversation of task_001 earns reward 1 under bm25_grep", async () => {
    const run = await runCli(
      [
        "simulate",
        "--domain",
        "banking_knowledge",
        "--task",
        "task_001",
        ...gold,
        "--retrieval-config",
        "bm25_grep",
        "--json",
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const simulation = JSON.parse(run.stdout.replace(/^#.*\n/gm, "")) as { reward_info: { reward: number } };
    expect(simulation.reward_info.reward).toBe(1);
  });
});

describe("passk serve --retrieval-config", () => {
  it("offers banking_knowledge under the config: its policy and search tools, and a gold conversation reaches reward 1", async () => {
    const serve = await startAgentProcess(
      process.execPath,
      [
        "bin/passk.js",
        "serve",
        "--port",
        "0",
        "--store",
        path.join(dir, "serve.db"),
        "--retrieval-config",
        "grep_only",
      ],
      env,
    );
    try {
      const base = /http:\/\/\S+/.exec(serve.url)![0];
      const detail = (await (await fetch(`${base}/api/domains/banking_knowledge`)).json()) as {
        policy: string;
        tools: Array<{ name: string; side: string }>;
      };
      const expected = new DomainData(builtinDomains.get("banking_knowledge")!, tau2DataDir(), {
        config: "grep_only",
      });
      expect(detail.policy).toBe(expected.policy);
      const agentTools = detail.tools.filter((t) => t.side === "agent").map((t) => t.name);
      expect(agentTools).toContain("grep");
      expect(agentTools).not.toContain("KB_search");

      const stream = await playConversation(base, {
        domain: "banking_knowledge",
        mode: "simulate",
        taskId: "task_001",
        agent: "scripted:gold",
      });
      expect(stream).toMatch(/"reward":1[,}]/);
    } finally {
      await serve.close();
    }
  });

  it("refuses, before serving, a config a conversation cannot run", async () => {
    const run = await runCli(
      ["serve", "--port", "0", "--store", path.join(dir, "refused.db"), "--retrieval-config", "terminal_use"],
      { env: { ...env, PATH: mkdtempSync(path.join(tmpdir(), "passk-empty-path-")) } },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "error: banking_knowledge: retrieval config terminal_use gives the agent a shell over the documents",
    );
  });
});
