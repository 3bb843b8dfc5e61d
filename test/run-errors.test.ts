import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORE_SCHEMA_VERSION } from "../src/store/schema.js";
import { Store } from "../src/store/store.js";
import { mockReply, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mockModelFlags } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

const dir = mkdtempSync(path.join(tmpdir(), "passk-run-errors-"));
let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({ script: () => mockReply.text("###STOP###") });
});
afterAll(() => server.close());

const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-errors" };
let storeCount = 0;

/** `passk run` with the mock model and its own store; returns the outcome and how many runs got stored. */
async function run(
  extra: string[],
  options: { store?: string; env?: Record<string, string | undefined>; baseUrl?: string } = {},
) {
  const store = options.store ?? path.join(dir, `store-${storeCount++}.db`);
  const baseUrl = options.baseUrl ?? server.baseUrl;
  const result = await runCliInProcess(
    ["run", ...mockModelFlags(baseUrl), "--store", store, "--progress", "none", ...extra],
    { ...env, ...options.env },
  );
  let runs = 0;
  const storeExists = existsSync(store);
  if (storeExists) {
    try {
      const db = new Database(store, { readonly: true });
      runs = (db.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number }).n;
      db.close();
    } catch {
      runs = -1; // not a passk store (on purpose, in one test)
    }
  }
  return { ...result, runs, storeExists };
}

describe("passk run refuses bad input before any model call", () => {
  it.each([
    {
      name: "an unknown domain",
      args: ["--domain", "mocky"],
      error: '; did you mean "mock"? Pass --domain with one of these.',
    },
    {
      name: "an unknown task id",
      args: ["--domain", "mock", "--task-ids", "create_task_1", "create_task_9"],
      error: 'error: mock task "create_task_9" is not known',
    },
    {
      name: "a split that does not exist",
      args: ["--domain", "mock", "--task-split-name", "test"],
      error: 'error: mock task split "test" is not known (known: base)',
    },
    {
      name: "a threshold the trials cannot reach",
      args: ["--domain", "mock", "--num-trials", "2", "--fail-under", "pass^4=0.8"],
      error: 'error: --fail-under "pass^4=0.8": k = 4 needs 1 ≤ k ≤ --num-trials (2)',
    },
    {
      name: "a malformed threshold",
      args: ["--domain", "mock", "--fail-under", "pass^2>0.8"],
      error: 'error: --fail-under "pass^2>0.8" is not METRIC=MIN',
    },
    {
      name: "a budget that is not an amount",
      args: ["--domain", "mock", "--max-cost", "lots"],
      error: "error: --max-cost must be an amount of USD, e.g. 5 or 2.50",
    },
    {
      name: "zero trials",
      args: ["--domain", "mock", "--num-trials", "0"],
      error: "error: --num-trials must be a whole number from 1 to 1000",
    },
    {
      name: "a billion trials (would exhaust memory before the first call)",
      args: ["--domain", "mock", "--num-trials", "1e9"],
      error: "error: --num-trials must be a whole number from 1 to 1000",
    },
    {
      name: "an absurd concurrency",
      args: ["--domain", "mock", "--max-concurrency", "100000"],
      error: "error: --max-concurrency must be a whole number from 1 to 1000",
    },
    {
      name: "a seed past exact integers",
      args: ["--domain", "mock", "--seed", "1e300"],
      error: "error: --seed must be a whole number of at most 15 digits",
    },
    {
      name: "a --timeout past what a timer can wait (it would silently become 1 ms)",
      args: ["--domain", "mock", "--timeout", "3000000"],
      error: 'error: --timeout "3000000" is not a number of seconds between 0 and 2147483 (about 24 days)',
    },
    {
      name: "a --timeout that is not a number",
      args: ["--domain", "mock", "--timeout", "soon"],
      error: 'error: --timeout "soon" is not a number of seconds',
    },
    {
      name: "--max-retries that is not a count",
      args: ["--domain", "mock", "--max-retries", "1e9"],
      error: 'error: --max-retries "1e9" is not a whole number from 1 to 100',
    },
    {
      name: "an unknown run to resume",
      args: ["--resume", "20990101-000000-beef"],
      error: 'error: run "20990101-000000-beef" is not known',
    },
  ])("$name", async ({ args, error }) => {
    const before = server.requests.length;
    const result = await run(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(error);
    expect(result.runs).toBe(0);
    expect(result.storeExists, "a store created for nothing is removed").toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it("a corrupt results file at --save-to", async () => {
    const file = path.join(dir, "corrupt.json");
    writeFileSync(file, '{"timestamp": "2025-01-01", "info": {}, "tasks": [], "simulations": [{"id": ');
    const result = await run(["--domain", "mock", "--save-to", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: ${file} is not valid (1 problem):`);
    expect(result.stderr).toContain("Fix: the file is not valid JSON (truncated or corrupt?)");
    expect(result.runs).toBe(0);
  });

  it("a results file at --save-to that passk run did not write", async () => {
    const file = path.join(dir, "foreign.json");
    writeFileSync(file, JSON.stringify({ timestamp: null, info: {}, tasks: [], simulations: [] }));
    const result = await run(["--domain", "mock", "--save-to", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: --save-to ${file} already holds results that \`passk run\` did not write`,
    );
  });

  it("a store written by a newer passk", async () => {
    const file = path.join(dir, "newer.db");
    Store.open(file).close();
    const db = new Database(file);
    db.prepare(
      "INSERT INTO passk_schema (version, description, migrated_at, passk_version) VALUES (99, 'future', '', '9.0.0')",
    ).run();
    db.close();
    const result = await run(["--domain", "mock"], { store: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: ${file} has store schema version 99 (written by passk 9.0.0), but this passk reads schema version ${STORE_SCHEMA_VERSION} at most.`,
    );
  });

  it("a file that is not a passk store", async () => {
    const file = path.join(dir, "other.db");
    const db = new Database(file);
    db.exec("CREATE TABLE notes (text TEXT)");
    db.close();
    const result = await run(["--domain", "mock"], { store: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: ${file} is not a passk store (an SQLite database without passk's schema table)`,
    );
  });

  // Without --user-llm the customer would be the scripted one, which only follows scripted:gold: against
  // any other agent it answers "Please go on." to the step limit and every task scores 0, silently.
  it.each([
    ["run", ["run", "--domain", "airline", "--agent-llm", "openai-compatible:x"]],
    ["run (remote agent)", ["run", "--domain", "airline", "--agent-llm", "a2a:http://127.0.0.1:9"]],
    [
      "simulate",
      ["simulate", "--domain", "airline", "--task", "1", "--agent-llm", "http:http://127.0.0.1:9"],
    ],
    [
      "robustness",
      ["robustness", "--domain", "airline", "--agent-llm", "openai-compatible:x", "--perturb", "tool-faults"],
    ],
  ])("%s with a model agent and no --user-llm is refused before anything runs", async (_name, args) => {
    const store = path.join(dir, `no-customer-${storeCount++}.db`);
    const stored = args[0] === "simulate" ? [] : ["--store", store];
    const requests = server.requests.length;
    const result = await runCliInProcess([...args, "--agent-llm-base-url", server.baseUrl, ...stored], env);
    expect(result.code).toBe(1);
    const agentSpec = args[args.indexOf("--agent-llm") + 1];
    expect(result.stderr).toBe(
      `error: --agent-llm ${agentSpec} needs a customer that can answer it: pass --user-llm <provider>:<model> ` +
        "(e.g. --user-llm openai:gpt-4.1), since the default scripted customer only follows scripted:gold's gold path and would score every task 0.\n",
    );
    expect(existsSync(store)).toBe(false);
    expect(server.requests.length).toBe(requests);
  });

  it("no API key for the chosen provider", async () => {
    const result = await runCliInProcess(
      [
        "run",
        "--domain",
        "mock",
        "--agent-llm",
        "openai:gpt-4.1",
        "--user-llm",
        "openai:gpt-4.1",
        "--store",
        path.join(dir, "nokey.db"),
      ],
      { ...env, OPENAI_API_KEY: "" },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "error: OPENAI_API_KEY is not set: export it, or use openai-compatible:<model> with --agent-llm-base-url\n",
    );
    expect(existsSync(path.join(dir, "nokey.db"))).toBe(false);
  });

  it("credentials the provider refuses: the run stops, nothing is graded, the key is not printed", async () => {
    const refusing = await startMockLlmServer({
      script: (request) =>
        mockReply.error(401, { message: `Incorrect API key provided: ${request.headers.authorization}` }),
    });
    try {
      const store = path.join(dir, "refused.db");
      const result = await runCliInProcess(
        [
          "run",
          "--domain",
          "mock",
          ...mockModelFlags(refusing.baseUrl),
          "--num-trials",
          "3",
          "--max-concurrency",
          "2",
          "--store",
          store,
          "--progress",
          "none",
        ],
        env,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("the provider refused the credentials (HTTP 401");
      expect(result.stderr).toMatch(/Fix it, then continue with `passk run --resume \S+`/);
      expect(result.stdout + result.stderr).not.toContain(env.OPENAI_COMPATIBLE_API_KEY);
      // No conversation is stored as a failure of the agent or the customer, and few were tried.
      expect(refusing.requests.length).toBeLessThanOrEqual(2);
      const db = new Database(store, { readonly: true });
      expect(db.prepare("SELECT COUNT(*) AS n FROM simulations").get()).toEqual({ n: 0 });
      expect(db.prepare("SELECT status FROM runs").all()).toEqual([{ status: "interrupted" }]);
      db.close();
    } finally {
      await refusing.close();
    }
  });

  it("a run stopped by a wrong base URL resumes with the right one, which is remembered", async () => {
    const wrong = await startMockLlmServer({
      script: () => mockReply.error(404, { message: "The model `mock-agent` does not exist" }),
    });
    try {
      const store = path.join(dir, "wrong-url.db");
      const first = await run(["--domain", "mock", "--num-tasks", "3", "--num-trials", "2"], {
        store,
        baseUrl: wrong.baseUrl,
      });
      expect(first.code).toBe(1);
      expect(first.stderr).toContain("answered 404");
      const id = /continue with `passk run --resume (\S+)`/.exec(first.stderr)![1]!;
      const resumed = await runCliInProcess(
        [
          "run",
          "--resume",
          id,
          "--agent-llm-base-url",
          server.baseUrl,
          "--user-llm-base-url",
          server.baseUrl,
          "--store",
          store,
          "--progress",
          "none",
        ],
        env,
      );
      expect(resumed.code, resumed.stderr).toBe(0);
      const db = new Database(store, { readonly: true });
      expect(
        db.prepare("SELECT COUNT(DISTINCT task_id || '/' || trial) AS n FROM simulations").get(),
      ).toEqual({
        n: 6,
      });
      const config = JSON.parse(
        (db.prepare("SELECT config FROM runs").get() as { config: string }).config,
      ) as {
        agent: { baseUrl: string };
      };
      expect(config.agent.baseUrl).toBe(server.baseUrl);
      db.close();
    } finally {
      await wrong.close();
    }
  });

  it("--resume with flags that change what the run measures", async () => {
    const store = path.join(dir, "resume-flags.db");
    const first = await runCliInProcess(
      [
        "run",
        "--domain",
        "mock",
        "--agent-llm",
        "scripted:gold",
        "--num-tasks",
        "2",
        "--store",
        store,
        "--progress",
        "none",
      ],
      env,
    );
    expect(first.code, first.stderr).toBe(0);
    const id = /run (\S+) · mock/.exec(first.stdout)![1]!;
    const again = await runCliInProcess(
      ["run", "--resume", id, "--num-trials", "3", "--seed", "300", "--store", store],
      env,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `error: --resume ${id} continues the run as it was configured; these flags differ from it:\n  --num-trials: 1 → 3\n`,
    );
  });
});

describe("a run that could grade nothing", () => {
  it("says so and exits 3, instead of completing with exit 0", async () => {
    const failing = await startMockLlmServer({ script: () => mockReply.error(500) });
    try {
      const result = await run(
        ["--domain", "mock", "--num-tasks", "2", "--max-retries", "1", "--max-attempts", "1"],
        {
          baseUrl: failing.baseUrl,
        },
      );
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toContain(
        "error: nothing could be graded: all 2 conversations ended without a gradable result (infrastructure_error 2)",
      );
      expect(result.stderr).toMatch(/continue with `passk run --resume \d{8}-\d{6}-[0-9a-f]{4}`/);
    } finally {
      await failing.close();
    }
  });
});
