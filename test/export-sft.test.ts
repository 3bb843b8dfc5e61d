import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import type { SftExample } from "../src/formats/sft.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// `passk export RUN --format sft`: a run's passing conversations as chat-format training data, with the
// test split left out unless asked for. A real run of the scripted gold agent on all 50 airline tasks.

const work = mkdtempSync(path.join(tmpdir(), "passk-sft-"));
const store = path.join(work, "store.db");
const env = { PASSK_DATA_DIR: tau2DataDir() };
const airline = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
const passk = (...args: string[]) => runCliInProcess([...args, "--store", store], env);
let runId = "";

beforeAll(async () => {
  const run = await passk("run", "--domain", "airline", "--agent-llm", "scripted:gold", "--progress", "none");
  expect(run.code, run.stderr).toBe(0);
  runId = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(run.stderr)![1]!;
});

const readJsonl = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as SftExample);

describe("passk export --format sft", () => {
  it("writes the passing train-split conversations in the OpenAI chat schema, leaving the test split out", async () => {
    const file = path.join(work, "train.jsonl");
    const out = await passk("export", runId, "--format", "sft", "--output", file);
    expect(out.code, out.stderr).toBe(0);
    const examples = readJsonl(file);
    const train = new Set(airline.splits!.train);
    const test = new Set(airline.splits!.test);
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.every((e) => train.has(e.metadata.task_id) && !test.has(e.metadata.task_id))).toBe(true);
    expect(out.stderr).toMatch(
      /left out: their tasks are in the test split \(--include-test-split to include them\)/,
    );
    for (const example of examples) {
      expect(example.metadata.reward).toBe(1);
      expect(example.messages[0]).toEqual({ role: "system", content: airline.policy });
      expect(example.tools?.map((t) => t.function.name)).toContain("get_user_details");
      // Every tool answer follows the call it answers; arguments are JSON text, as the schema has them.
      const called = new Set<string>();
      for (const message of example.messages) {
        if (message.role === "assistant")
          for (const call of message.tool_calls ?? []) {
            expect(call.type).toBe("function");
            expect(typeof JSON.parse(call.function.arguments)).toBe("object");
            called.add(call.id);
          }
        if (message.role === "tool") expect(called.has(message.tool_call_id)).toBe(true);
      }
      expect(example.messages.some((m) => m.role === "user")).toBe(true);
    }
  });

  it("includes the test split only when asked, and refuses --split test without that flag", async () => {
    const all = path.join(work, "all.jsonl");
    const out = await passk("export", runId, "--format", "sft", "--include-test-split", "--output", all);
    expect(out.code, out.stderr).toBe(0);
    const trainOnly = readJsonl(path.join(work, "train.jsonl")).length;
    const examples = readJsonl(all);
    expect(examples.some((e) => airline.splits!.test.includes(e.metadata.task_id))).toBe(true);
    expect(examples.length).toBeGreaterThan(trainOnly);
    const refused = await passk("export", runId, "--format", "sft", "--split", "test");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/add --include-test-split if that is what you mean/);
    const unknownSplit = await passk("export", runId, "--format", "sft", "--split", "dev");
    expect(unknownSplit.stderr).toMatch(/--split "dev": airline has the splits train, test, base/);
    const badFormat = await passk("export", runId, "--format", "csv");
    expect(badFormat.stderr).toMatch(/--format "csv" is not known: use tau2, sft or html/);
  });
});
