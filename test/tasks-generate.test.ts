import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

const data = tau2DataDir();
const env = { PASSK_DATA_DIR: data };
const official = (file: string) => readFileSync(path.join(data, "telecom", file), "utf8");

describe("passk tasks generate", () => {
  it("writes the official telecom tasks.json to stdout, byte for byte, with no options", async () => {
    const run = await runCliInProcess(["tasks", "generate", "--domain", "telecom"], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBe(13977063);
    expect(run.stdout === official("tasks.json")).toBe(true);
  });

  it("--set tasks_small --out FILE writes tasks_small.json byte for byte", async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), "passk-gen-")), "small.json");
    const run = await runCliInProcess(
      ["tasks", "generate", "--domain", "telecom", "--set", "tasks_small", "--out", out],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`wrote 20 tasks (set tasks_small) to ${out}\n`);
    expect(readFileSync(out, "utf8")).toBe(official("tasks_small.json"));
  });

  it("--include-unofficial gives all 3405; --sample N --seed S a reproducible subset in generated order", async () => {
    const all = await runCliInProcess(
      ["tasks", "generate", "--domain", "telecom", "--include-unofficial"],
      env,
    );
    const ids = (JSON.parse(all.stdout) as Array<{ id: string }>).map((t) => t.id);
    expect(ids).toHaveLength(3405);
    expect(ids.filter((id) => id.includes("data_usage_exceeded_no_refuel"))).toHaveLength(1120);

    const args = [
      "tasks",
      "generate",
      "--domain",
      "telecom",
      "--set",
      "tasks_small",
      "--sample",
      "7",
      "--seed",
      "11",
    ];
    // One after the other: in one process, commands share process.exitCode.
    const first = await runCliInProcess(args, env);
    const second = await runCliInProcess(args, env);
    const other = await runCliInProcess([...args.slice(0, -1), "12"], env);
    expect(first.stdout).toBe(second.stdout);
    const sampled = (JSON.parse(first.stdout) as Array<{ id: string }>).map((t) => t.id);
    expect(sampled).toHaveLength(7);
    const small = (JSON.parse(official("tasks_small.json")) as Array<{ id: string }>).map((t) => t.id);
    const positions = sampled.map((id) => small.indexOf(id));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(other.stdout).not.toBe(first.stdout);
  });

  it("explains bad flags and bad component files", async () => {
    const badSet = await runCliInProcess(
      ["tasks", "generate", "--domain", "telecom", "--set", "tasks_smal"],
      env,
    );
    expect(badSet.code).toBe(1);
    expect(badSet.stderr).toContain(
      'task set "tasks_smal" is not known (known: generated, tasks, tasks_small); did you mean "tasks_small"?',
    );

    const components = JSON.parse(official("task_components.json")) as {
      managers: Array<{ selection_sets: string[] }>;
    };
    components.managers[2]!.selection_sets[0] = "airplane_issues";
    const file = path.join(mkdtempSync(path.join(tmpdir(), "passk-gen-")), "components.json");
    writeFileSync(file, JSON.stringify(components));
    const badFile = await runCliInProcess(["tasks", "generate", "--components", file], env);
    expect(badFile.code).toBe(1);
    expect(badFile.stderr).toContain(`${file} is not valid (1 problem)`);
    expect(badFile.stderr).toContain(
      '$.managers[2].selection_sets[0]: unknown selection set "airplane_issues"',
    );

    const missing = await runCliInProcess(["tasks", "generate", "--components", "nope.json"], env);
    expect(missing.stderr).toBe(
      `error: --components nope.json: no such file (${path.resolve("nope.json")})\n`,
    );

    const telecomFile = path.join(data, "telecom", "task_components.json");
    const wrongDomain = await runCliInProcess(
      ["tasks", "generate", "--domain", "airline", "--components", telecomFile],
      env,
    );
    expect(wrongDomain.code).toBe(1);
    expect(wrongDomain.stderr).toBe(
      `error: ${telecomFile} composes tasks of domain "telecom" (manager mobile_data_issue), not --domain airline\n`,
    );
  });
});
