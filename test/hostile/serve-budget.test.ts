import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { REPO_ROOT, runCli } from "../helpers/run-cli.js";

// A daily spend cap that cannot count a model's spend would protect nothing: `passk serve` refuses to
// start with it, and starts once --prices gives the missing price.

const dir = mkdtempSync(path.join(tmpdir(), "passk-serve-budget-"));
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-budget" };
const flags = [
  "serve",
  "--port",
  "0",
  "--store",
  path.join(dir, "passk.db"),
  "--agent-llm",
  "openai-compatible:mystery-model",
  "--agent-llm-base-url",
  "http://127.0.0.1:9/v1",
  "--protocol",
  "passk",
  "--daily-spend-cap",
  "5",
];

describe("passk serve --daily-spend-cap", () => {
  it("refuses to start when a model it must count has no price, naming it and the fix", async () => {
    const run = await runCli(flags, { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "error: --daily-spend-cap cannot count the spend of openai-compatible:mystery-model: the price table does not know it. Pass --prices FILE",
    );
  });

  it("starts when --prices gives the price", async () => {
    const prices = path.join(dir, "prices.json");
    writeFileSync(
      prices,
      JSON.stringify({ models: { "openai-compatible:mystery-model": { input_mtok: 1, output_mtok: 2 } } }),
    );
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, "bin", "passk.js"), ...flags, "--prices", prices],
      {
        env: { ...process.env, ...env },
      },
    );
    let err = "";
    try {
      const started = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("passk web app on")) resolve(out);
        });
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      expect(started).toMatch(/passk web app on http:\/\/127\.0\.0\.1:\d+/);
      // A model agent with only the scripted customer: only a person can play the customer, and it says so.
      await expect
        .poll(() => err)
        .toContain(
          "note: no --user-llm model: openai-compatible:mystery-model can be tried only with you as the customer; pass --user-llm <provider>:<model> for simulated customers",
        );
    } finally {
      child.kill();
    }
  });
});
