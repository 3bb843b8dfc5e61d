import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  dataDirWithoutUpstream,
  canonicalJson,
  readFixtureJson,
  referenceTextMatches,
  tau2DataDir,
} from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

const data = tau2DataDir();

type SpecTool = { type: string; function: { name: string; description?: string } & Record<string, unknown> };
/**
 * A τ² tool-spec file: the reference's tool lists of `domain` (names, parameter schemas) with a text of
 * this test's own in every description.
 */
function toolSpecFile(domain: string): { file: string; spec: Record<string, SpecTool[] | null> } {
  const reference = readFixtureJson<Record<string, unknown>>(`fixtures/tools/${domain}.json`);
  const spec: Record<string, SpecTool[] | null> = {};
  for (const key of ["agent_tools", "user_tools"]) {
    const tools = reference[key] as SpecTool[] | null | undefined;
    if (tools === undefined) continue;
    spec[key] =
      tools?.map((tool) => ({
        ...tool,
        function: { ...tool.function, description: `Spec text for ${tool.function.name}.` },
      })) ?? null;
  }
  const file = path.join(mkdtempSync(path.join(tmpdir(), "passk-tool-spec-")), `${domain}.json`);
  writeFileSync(file, JSON.stringify({ domain, ...spec }));
  return { file, spec };
}
const env = { PASSK_DATA_DIR: data };

describe("passk core commands", () => {
  it("replay prints one line per task with the fixture's fields", async () => {
    // Spawned: the `replay` family's end-to-end run of the binary.
    const run = await runCli(["replay", "--domain", "mock", "--task", "create_task_1", "impossible_task_1"], {
      env,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.task_id)).toEqual(["create_task_1", "impossible_task_1"]);
    expect(lines[0].evaluation.reward_excluding_nl_assertions).toBe(1);
    expect(lines[0].db_hash.agent).toBe("3b82583d5c026d816c5a32430fb3ab8d42b72ec2b91cd5cafaab817e0e05b00c");
  });

  it("tasks validate ends with the pass/fail tally", async () => {
    // Spawned: the `tasks` family's end-to-end run of the binary (its exit code 1 included).
    const run = await runCli(["tasks", "validate", "--domain", "mock"], { env });
    expect(run.stdout.trim().split("\n").at(-1)).toBe("8 passed, 2 failed");
    expect(run.code).toBe(1);
  });

  it.each([
    ["airline", "50 passed, 0 failed"],
    [
      "retail",
      "114 passed, 0 failed; 15 task(s) with a task-defect warning (gold actions that raise): 2, 3, 4, 35, 37, 38, 39, 46, 47, 54, 55, 64, 67, 68, 105",
    ],
    ["telecom", "2285 passed, 0 failed"],
    ["telecom-workflow", "2285 passed, 0 failed"],
  ])(
    "tasks validate --domain %s: %s",
    async (domain, tally) => {
      const run = await runCliInProcess(["tasks", "validate", "--domain", domain], env);
      const lines = run.stdout.trim().split("\n");
      expect(lines.at(-1)).toBe(tally);
      expect(run.code).toBe(0);
      if (domain === "retail") {
        expect(lines).toContain("40 task(s) have NL assertions that only an LLM judge can score");
        expect(lines.filter((l) => l.includes("NL_ASSERTION=needs-judge"))).toHaveLength(40);
        // The reference's replay raises on these 18 gold actions too: each is named with its error.
        const warnings = lines.filter((l) => l.startsWith("  WARNING "));
        expect(warnings).toHaveLength(18);
        expect(warnings).toContain(
          '  WARNING 64: task defect: gold action 7, exchange_delivered_order_items({"order_id":"#W7464385","item_ids":["1810466394"],"new_item_ids":["6700049080"],"payment_method_id":"paypal_1261484"}), raises: Non-delivered order cannot be exchanged',
        );
        expect(warnings).toContain(
          '  WARNING 35: task defect: gold action 1, find_user_id_by_email({"email":"aarav.santos8321@example.com"}), raises: User not found',
        );
      }
      // Telecom replays 2,285 tasks: 40-60 s on a loaded 2-core machine, so three times that.
    },
    180_000,
  );

  it("call and call --batch run each call in a fresh world", async () => {
    const one = await runCliInProcess(
      [
        "call",
        "--domain",
        "mock",
        "--tool",
        "update_task_status",
        "--args",
        '{"task_id":"task_1","status":"completed"}',
      ],
      env,
    );
    expect(JSON.parse(one.stdout)).toEqual({
      output:
        '{"task_id": "task_1", "title": "Test task", "description": "A test task", "status": "completed"}',
      error: false,
      agent_db_changed: true,
      user_db_changed: false,
    });
    // Spawned: `--batch -` reads the process's stdin (the `call` family's end-to-end run of the binary).
    const batch = await runCli(["call", "--domain", "mock", "--batch", "-"], {
      env,
      input:
        '{"requestor":"user","name":"dismiss_notification","arguments":{"notification_id":"notif_1"}}\n{"name":"create_task","arguments":{"user_id":"user_1","title":"A"}}\n{"name":"create_task","arguments":{"user_id":"user_1","title":"B"}}\n',
    });
    const lines = batch.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ output: "Notification notif_1 dismissed", user_db_changed: true });
    // Fresh world each time: both creations get task_2.
    expect(lines[1].output).toContain('"task_id": "task_2"');
    expect(lines[2].output).toContain('"task_id": "task_2"');
  });

  it("tools --format openai gives JSON Schema parameters", async () => {
    // Spawned: the `tools` family's end-to-end run of the binary.
    const run = await runCli(["tools", "--domain", "mock", "--format", "openai"], { env });
    const tools = JSON.parse(run.stdout);
    expect(tools[0]).toMatchObject({
      type: "function",
      function: { name: "create_task", parameters: { type: "object", required: ["user_id", "title"] } },
    });
  });

  it.each([
    ["retail", "agent", "agent_tools"],
    ["telecom", "user", "user_tools"],
  ] as const)(
    "tools --domain %s --side %s --tool-spec gives the spec file's tool list exactly",
    async (domain, side, key) => {
      const { file, spec } = toolSpecFile(domain);
      const run = await runCliInProcess(
        ["tools", "--domain", domain, "--side", side, "--format", "openai", "--tool-spec", file],
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe("");
      expect(canonicalJson(JSON.parse(run.stdout))).toBe(
        canonicalJson(spec[key]!.map((t) => ({ type: t.type, function: t.function }))),
      );
    },
  );

  it("tools shows the reference's own texts by default (upstream files at hand), passk's with --protocol passk", async () => {
    type ReferenceTool = { type: string; function: { name: string; description: string } };
    const referenceOf = (f: { json<T>(file: string): T }) =>
      f
        .json<{ agent_tools: ReferenceTool[] }>("fixtures/tools/retail.json")
        .agent_tools.map((t) => ({ type: t.type, function: t.function }));
    const reference = readFixtureJson<{ agent_tools: Array<{ type: string; function: { name: string } }> }>(
      "fixtures/tools/retail.json",
    ).agent_tools;
    const tau2 = await runCliInProcess(["tools", "--domain", "retail", "--format", "openai"], env);
    expect(tau2.code, tau2.stderr).toBe(0);
    const same = referenceTextMatches(
      JSON.stringify(JSON.parse(tau2.stdout)),
      "fixtures/tools/retail.json#agent_tools",
      (f) => JSON.stringify(referenceOf(f)),
    );
    expect(same.equal, same.message).toBe(true);
    const passk = await runCliInProcess(
      ["tools", "--domain", "retail", "--format", "openai", "--protocol", "passk"],
      env,
    );
    const ours = JSON.parse(passk.stdout) as Array<{ function: { name: string; description: string } }>;
    expect(ours.map((t) => t.function.name)).toEqual(reference.map((t) => t.function.name));
    const descriptions = referenceTextMatches(
      JSON.stringify(ours.map((t) => t.function.description)),
      "fixtures/tools/retail.json#agent_tools.descriptions",
      (f) => JSON.stringify(referenceOf(f).map((t) => t.function.description)),
    );
    expect(descriptions.equal).toBe(false);
    const without = await runCliInProcess(["tools", "--domain", "retail", "--format", "openai"], {
      ...env,
      PASSK_DATA_DIR: dataDirWithoutUpstream(),
      PASSK_TAU2_UPSTREAM: undefined,
    });
    expect(without.code).toBe(0);
    expect(without.stderr).toContain("note: passk's own tool descriptions");
  });

  it("tools --tool-spec of another domain warns which tools it leaves alone and which it names wrongly", async () => {
    const spec = toolSpecFile("airline").file;
    const run = await runCliInProcess(
      ["tools", "--domain", "retail", "--format", "openai", "--tool-spec", spec],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/warning: .*airline\.json has no entry for cancel_pending_order, /);
    expect(run.stderr).toMatch(/names tools that domain retail does not have: book_reservation, /);
  });
});

describe("bad input: clear error, non-zero exit, nothing written", () => {
  it.each([
    [["replay", "--domain", "mock", "--format", "xml"], "Allowed choices are jsonl, table"],
    [["tools", "--domain", "mock", "--format", "json"], "Allowed choices are table, openai"],
    [["tools", "--domain", "mock", "--side", "customer"], "Allowed choices are agent, user"],
    [["tools", "--domain", "airline", "--side", "user"], "domain airline has no user tools"],
  ])("%j is refused", async (args, message) => {
    const run = await runCliInProcess(args, env);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(message);
  });

  const scratch = () => mkdtempSync(path.join(tmpdir(), "passk-bad-"));

  it("unknown domain lists the known ones", async () => {
    const run = await runCliInProcess(["replay", "--domain", "airlines"], env);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/domain "airlines" is not known \(known: .*mock/);
  });

  it("unknown tool", async () => {
    const run = await runCliInProcess(
      ["call", "--domain", "mock", "--tool", "delete_task", "--args", "{}"],
      env,
    );
    expect(run.code).not.toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      output: "Error: Tool 'delete_task' not found.",
      error: true,
      agent_db_changed: false,
    });
  });

  it("invalid arguments name the tool, the argument and the expected type", async () => {
    const run = await runCliInProcess(
      ["call", "--domain", "mock", "--tool", "create_task", "--args", '{"user_id":"user_1","title":5}'],
      env,
    );
    expect(run.code).not.toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.output).toContain("'create_task'");
    expect(result.output).toContain("argument 'title'");
    expect(result.output).toContain("expected string");
    expect(result.agent_db_changed).toBe(false);
  });

  it("call --batch: a line that is not a call gets an invalid_input line and a non-zero exit", async () => {
    const batch = path.join(scratch(), "calls.jsonl");
    writeFileSync(
      batch,
      '{"name":"get_users","arguments":{}}\nnot json\n{"arguments":{}}\n{"name":"nope","arguments":{}}\n',
    );
    const run = await runCliInProcess(["call", "--domain", "mock", "--batch", batch], env);
    expect(run.code).toBe(1);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines[0].error).toBe(false);
    expect(lines[1]).toMatchObject({ line: 2, invalid_input: expect.stringContaining("not JSON") });
    expect(lines[2]).toMatchObject({ line: 3, invalid_input: expect.stringContaining("name") });
    // An unknown tool is a call with an error result, not bad input.
    expect(lines[3]).toMatchObject({ output: "Error: Tool 'nope' not found.", error: true });
    expect(run.stderr).toContain("2 input line(s) are not calls");
  });

  it("call with both --tool and --batch is refused", async () => {
    const run = await runCliInProcess(
      ["call", "--domain", "mock", "--tool", "get_users", "--batch", "-"],
      env,
    );
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("not both");
  });

  it("args that are not JSON", async () => {
    const run = await runCliInProcess(
      ["call", "--domain", "mock", "--tool", "get_users", "--args", "{oops"],
      env,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("--args is not valid JSON");
  });

  it("a malformed tasks file is rejected with file, task id, JSON path and a fix", async () => {
    const dir = scratch();
    const file = path.join(dir, "tasks.json");
    writeFileSync(
      file,
      JSON.stringify([
        { id: "ok", user_scenario: { instructions: "hi" } },
        {
          id: "broken",
          user_scenario: { instructions: 5 },
          evaluation_criteria: { reward_basis: ["DB", "VIBES"] },
        },
      ]),
    );
    const run = await runCliInProcess(["tasks", "list", "--domain", "mock", "--tasks", file], env);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(file);
    expect(run.stderr).toContain('task "broken": $[1].user_scenario.instructions');
    expect(run.stderr).toContain("$[1].evaluation_criteria.reward_basis[1]");
    expect(run.stderr).toContain("Fix:");
    expect(readdirSync(dir)).toEqual(["tasks.json"]);
  });

  it("a tasks file that is not JSON says where", async () => {
    const dir = scratch();
    const file = path.join(dir, "tasks.json");
    writeFileSync(file, '[{"id": "a",\n  "user_scenario": }]');
    const run = await runCliInProcess(["tasks", "validate", "--domain", "mock", "--tasks", file], env);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/line 2, column \d+/);
  });

  it("a missing data dir tells how to get the data", async () => {
    const missing = path.join(scratch(), "nope");
    const run = await runCliInProcess(["replay", "--domain", "mock"], { PASSK_DATA_DIR: missing });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`no τ² data directory at ${missing} (from PASSK_DATA_DIR)`);
    expect(run.stderr).toContain("passk data pull");
  });
});
