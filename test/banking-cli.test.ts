import { describe, expect, it } from "vitest";
import { readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// banking_knowledge through the CLI: validation of every task, gold replay in the fixture's format under
// a chosen retrieval config, and the tools a config offers.

const env = { PASSK_DATA_DIR: tau2DataDir() };

describe("passk with banking_knowledge", () => {
  it("tasks validate: 97 passed, 0 failed (task_102 needs a judge)", async () => {
    const run = await runCliInProcess(["tasks", "validate", "--domain", "banking_knowledge"], env);
    const lines = run.stdout.trim().split("\n");
    expect(lines.at(-1)).toBe("97 passed, 0 failed");
    expect(lines.find((l) => l.startsWith("PASS task_102"))).toContain("NL_ASSERTION=needs-judge");
    expect(run.code).toBe(0);
  });

  it("replay --format jsonl gives the fixture's lines under the chosen retrieval config", async () => {
    const fixtures = readJsonl<{ task_id: string }>("fixtures/gold_replay/banking_knowledge.jsonl");
    const ids = ["task_001", "task_004", "task_051", "task_083"];
    const run = await runCliInProcess(
      [
        "replay",
        "--domain",
        "banking_knowledge",
        "--retrieval-config",
        "no_knowledge",
        "--format",
        "jsonl",
        "--task",
        ...ids,
      ],
      env,
    );
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual(
      ids.map((id) => ({ ...fixtures.find((f) => f.task_id === id), retrieval_config: "no_knowledge" })),
    );
  });

  it("tools --retrieval-config lists the config's search tools before the base tools", async () => {
    const run = await runCliInProcess(
      ["tools", "--domain", "banking_knowledge", "--retrieval-config", "bm25_grep", "--protocol", "passk"],
      env,
    );
    expect(run.code).toBe(0);
    const names = run.stdout
      .trim()
      .split("\n")
      .slice(2)
      .map((l) => l.split(/\s+/)[0]);
    expect(names.slice(0, 3)).toEqual(["KB_search", "grep", "transfer_to_human_agents"]);
    expect(names).toHaveLength(16);
  });

  it("an unknown retrieval config is named with the known ones", async () => {
    const run = await runCliInProcess(
      ["tasks", "list", "--domain", "banking_knowledge", "--retrieval-config", "bm26"],
      env,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/retrieval config.*bm26/);
    expect(run.stderr).toContain("bm25");
  });
});
