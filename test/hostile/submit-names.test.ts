import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { REPO_ROOT } from "../helpers/run-cli.js";

// A model name that looks like a path (`../../../x`) was made safe inside trajectories/, but into a
// name starting with `.`, which prepare's own check then refused without naming the model name.

const passk = (args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, "bin", "passk.js"), ...args], {
    env: { ...process.env, PASSK_DATA_DIR: tau2DataDir() },
    encoding: "utf8",
    timeout: 120_000,
  });

describe("submit prepare --model-name shaped like a path", () => {
  it("writes a plain file inside trajectories/ that its own check accepts", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "passk-submit-names-"));
    const results = path.join(dir, "r.json");
    const gold = ["--agent-llm", "scripted:gold", "--user-llm", "scripted:gold", "--progress", "none"];
    const run = passk([
      "run",
      "--domain",
      "airline",
      ...gold,
      "--store",
      path.join(dir, "s.db"),
      "--save-to",
      results,
    ]);
    expect(run.status, run.stderr).toBe(0);
    const output = path.join(dir, "submission");
    const prepare = passk([
      "submit",
      "prepare",
      results,
      "--output",
      output,
      "--model-name",
      "../../../x",
      "--model-organization",
      "o",
      "--contact-email",
      "team@example.com",
    ]);
    expect(prepare.stderr).not.toContain("must be a plain file name");
    expect(prepare.status, prepare.stdout + prepare.stderr).toBe(0);
    expect(readdirSync(path.join(output, "trajectories"))).toEqual([
      "x_airline_default_scripted-gold_1trials.json",
    ]);
    expect(
      readdirSync(dir)
        .filter((name) => !name.startsWith("s.db"))
        .sort(),
    ).toEqual(["r.json", "submission"]);
  }, 180_000);
});
