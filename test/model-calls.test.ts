import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { LlmMessage } from "../src/core/llm.js";
import { sentMessages, type SentMessage } from "../src/core/model-calls.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { parseResults } from "../src/formats/tau2/results.js";
import { SqliteModelCallStore } from "../src/store/model-call-store.js";
import { Store } from "../src/store/store.js";
import {
  goldScript,
  mockReply,
  startMockLlmServer,
  type MockLlmReply,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { trialSeeds } from "../src/runner/run-plan.js";
import { mockModelFlags } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { craftedModel, reasonOf } from "./helpers/run-mock-model.js";

// `passk run` records the model call behind each turn beside its results: what the model was sent
// (system prompt, tools, messages) exactly as the provider received it on the wire, the reply, tokens,
// latency, and the attempts and provider errors the retries served — and no API key, anywhere.

const API_KEY = "sk-test-calls-0123456789abcdef";
const dir = mkdtempSync(path.join(tmpdir(), "passk-model-calls-"));
const ENV = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_API_KEY: API_KEY };
const TASK = "8"; // get_user_details, get_reservation_details, search_direct_flight, book_reservation
const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

const servers: MockLlmServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** The gold conversation of TASK with scripted usage; the very first request is answered 500 once (its body echoing the key). */
function script() {
  const gold = goldScript(data.task(TASK));
  return (request: MockLlmRequest): MockLlmReply => {
    if (request.index === 0)
      return mockReply.error(500, { retryAfterSeconds: 0, message: `upstream failed for key ${API_KEY}` });
    const reply = gold(request);
    if (reply.kind !== "message") return reply;
    return { ...reply, usage: { promptTokens: 900 + request.index, completionTokens: 20 + request.index } };
  };
}

function runFlags(name: string, baseUrl: string): string[] {
  return [
    "run",
    "--domain",
    "airline",
    "--task-ids",
    TASK,
    "--agent-llm",
    "openai:gpt-4.1",
    "--agent-llm-base-url",
    baseUrl,
    "--user-llm",
    "openai:gpt-4.1",
    "--user-llm-base-url",
    baseUrl,
    "--max-concurrency",
    "1",
    "--store",
    path.join(dir, `${name}.db`),
    "--save-to",
    path.join(dir, `${name}.json`),
    "--progress",
    "none",
  ];
}

/** A message as sent, in the shape the mock server reads off the wire (no undefined fields). */
function comparable(message: SentMessage | LlmMessage): unknown {
  if (message.role === "assistant")
    return {
      role: "assistant",
      content: message.content ?? null,
      toolCalls: (message.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    };
  if (message.role === "tool")
    return { role: "tool", toolCallId: message.toolCallId, content: message.content };
  return { role: "user", content: message.content };
}

describe("passk run records the model call behind each turn", { timeout: 180_000 }, () => {
  it("stores what the provider received on the wire, the reply, usage, and the retried 500 — never the key", async () => {
    const model = await startMockLlmServer({ script: script(), promptCache: false });
    servers.push(model);
    const result = await runCliInProcess(runFlags("calls", model.baseUrl), ENV);
    expect(result.code, result.stderr).toBe(0);
    const results = parseResults(readFileSync(path.join(dir, "calls.json"), "utf8"), "calls.json").results;
    const simulation = results.simulations[0]!;
    expect(simulation.reward_info?.reward).toBe(1);
    // The results file is τ²'s format: nothing of the record is in it.
    expect(readFileSync(path.join(dir, "calls.json"), "utf8")).not.toContain("latency_ms");

    const store = Store.open(path.join(dir, "calls.db"), { create: false });
    const runId = store.listRuns()[0]!.id;
    const record = new SqliteModelCallStore(store).load(runId, simulation.id);
    store.close();
    expect(record).toBeDefined();

    // One recorded call per request that was answered (the 500 is an attempt of the first call).
    const answered = model.requests.filter((r) => r.index !== 0);
    expect(record!.calls.length).toBe(answered.length);
    for (const [i, call] of record!.calls.entries()) {
      const wire = answered[i]!;
      const prompt = record!.prompts[call.prompt]!;
      expect(prompt.system).toBe(wire.system);
      expect(prompt.tools.map((t) => [t.name, t.description])).toEqual(
        wire.tools.map((t) => [t.name, t.description]),
      );
      expect(prompt.tools.map((t) => t.parameters)).toEqual(wire.tools.map((t) => t.parameters));
      expect(sentMessages(record!, i).map(comparable)).toEqual(wire.messages.map(comparable));
      expect(call.model).toBe("openai:gpt-4.1");
      expect(call.params).toMatchObject({ temperature: 0 });
      expect(call.usage).toEqual({ prompt_tokens: 900 + wire.index, completion_tokens: 20 + wire.index });
      expect(call.latency_ms).toBeGreaterThanOrEqual(0);
      expect(call.cached).toBe(false);
      expect(call.error).toBeNull();
    }
    // The agent sees airline's tools; the customer none. Each prompt is stored once.
    const agentPrompts = new Set(record!.calls.filter((c) => c.role === "agent").map((c) => c.prompt));
    const userPrompts = new Set(record!.calls.filter((c) => c.role === "user").map((c) => c.prompt));
    expect(agentPrompts.size).toBe(1);
    expect(userPrompts.size).toBe(1);
    expect(record!.prompts.length).toBe(2);
    expect(record!.prompts[[...agentPrompts][0]!]!.tools.map((t) => t.name)).toContain("book_reservation");
    // Messages are stored once: later calls keep what an earlier call was sent.
    expect(record!.calls.filter((c) => c.messages.from !== null).length).toBeGreaterThan(0);

    // Each call is tied to the message it produced: same side, same words, same tool calls.
    for (const call of record!.calls) {
      expect(call.turn_idx).not.toBeNull();
      const message = simulation.messages[call.turn_idx!]!;
      expect(message.role).toBe(call.role === "agent" ? "assistant" : "user");
      if (message.role !== "assistant" && message.role !== "user") throw new Error("not a participant");
      expect(call.reply?.text ?? null).toBe(message.content ?? null);
      expect(call.reply?.tool_calls.map((c) => c.name)).toEqual(
        (message.tool_calls ?? []).map((c) => c.name),
      );
      expect(message.usage?.prompt_tokens).toBe(call.usage?.prompt_tokens);
    }
    // Every message a model wrote has its call.
    const produced = simulation.messages.filter(
      (m) => (m.role === "assistant" || m.role === "user") && m.usage,
    ).length;
    expect(record!.calls.length).toBe(produced);

    // The 500 then 200: two attempts, the error served, its status and sentence, the key taken out.
    const first = record!.calls[0]!;
    expect(first.attempts).toBe(2);
    expect(first.errors.length).toBe(1);
    expect(first.errors[0]).toMatchObject({ attempt: 1, status: 500 });
    expect(first.errors[0]!.reason).toContain("upstream failed for key [redacted]");
    expect(record!.calls.slice(1).every((c) => c.attempts === 1 && c.errors.length === 0)).toBe(true);

    // No API key anywhere in the store: its files, and every record unzipped.
    for (const file of readdirSync(dir).filter((f) => f.startsWith("calls.db")))
      expect(readFileSync(path.join(dir, file)).includes(API_KEY)).toBe(false);
    const reopened = new Database(path.join(dir, "calls.db"), { readonly: true, fileMustExist: true });
    const rows = reopened
      .prepare(
        "SELECT calls AS blob FROM simulation_model_calls UNION ALL SELECT prompt FROM model_call_prompts",
      )
      .all() as Array<{ blob: Buffer }>;
    reopened.close();
    // The simulation's calls, and its two prompts (the agent's and the customer's), each stored once.
    expect(rows.length).toBe(3);
    for (const row of rows) expect(gunzipSync(row.blob).toString("utf8")).not.toContain(API_KEY);
  });

  it("records a call that fails for good: no message, every attempt's error, the conversation an infrastructure error", async () => {
    const model = await startMockLlmServer({
      script: () => mockReply.error(503, { retryAfterSeconds: 0, message: "overloaded" }),
    });
    servers.push(model);
    const result = await runCliInProcess(
      [...runFlags("failed", model.baseUrl), "--max-retries", "3", "--max-attempts", "1"],
      ENV,
    );
    expect(result.code, result.stderr).not.toBeNull();
    const results = parseResults(readFileSync(path.join(dir, "failed.json"), "utf8"), "failed.json").results;
    const simulation = results.simulations[0]!;
    expect(simulation.termination_reason).toBe("infrastructure_error");
    const store = Store.open(path.join(dir, "failed.db"), { create: false });
    const record = new SqliteModelCallStore(store).load(store.listRuns()[0]!.id, simulation.id);
    store.close();
    // The customer speaks first (after the agent's fixed greeting): its one call, three attempts, no message.
    expect(model.requests.length).toBe(3);
    expect(record!.calls.length).toBe(1);
    const call = record!.calls[0]!;
    expect(call.role).toBe("user");
    expect(call.turn_idx).toBeNull();
    expect(call.reply).toBeNull();
    expect(call.error).toContain("503");
    expect(call.attempts).toBe(3);
    expect(call.errors.map((e) => [e.attempt, e.status])).toEqual([
      [1, 503],
      [2, 503],
    ]);
  });

  it("keeps each conversation's calls apart when conversations run in parallel, and drops the record of an attempt that was run again", async () => {
    const mock = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
    const tasks = ["create_task_1", "update_task_1", "impossible_task_1"].map((id) => mock.task(id));
    const model = await startMockLlmServer({
      delayMs: 5,
      script: craftedModel({
        tasks,
        trialSeeds: trialSeeds(300, 2),
        // The first attempt of one conversation ends as an infrastructure error; the run runs it again.
        infraFailures: (taskId, trial) => (taskId === "update_task_1" && trial === 1 ? 2 : 0),
      }),
    });
    servers.push(model);
    const file = path.join(dir, "parallel.db");
    const result = await runCliInProcess(
      [
        "run",
        "--domain",
        "mock",
        ...mockModelFlags(model.baseUrl),
        "--task-ids",
        ...tasks.map((t) => t.id),
        "--num-trials",
        "2",
        "--seed",
        "300",
        "--max-concurrency",
        "6",
        "--max-retries",
        "2",
        "--store",
        file,
        "--save-to",
        path.join(dir, "parallel.json"),
        "--progress",
        "none",
      ],
      { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: API_KEY },
    );
    expect(result.code, result.stderr).toBe(0);
    const results = parseResults(
      readFileSync(path.join(dir, "parallel.json"), "utf8"),
      "parallel.json",
    ).results;
    expect(results.simulations.length).toBe(6);
    const store = Store.open(file, { create: false });
    const runId = store.listRuns()[0]!.id;
    const calls = new SqliteModelCallStore(store);
    const db = new Database(file, { readonly: true });
    const rows = (
      db.prepare("SELECT simulation_id FROM simulation_model_calls").all() as Array<{
        simulation_id: string;
      }>
    ).map((r) => r.simulation_id);
    const records = results.simulations.map((s) => calls.load(runId, s.id));
    const rerun = db
      .prepare("SELECT attempts FROM jobs WHERE task_id = 'update_task_1' AND trial = 1")
      .get() as { attempts: number };
    db.close();
    store.close();
    // That conversation's first attempt failed and was run again.
    expect(rerun.attempts).toBe(2);
    // One record per stored simulation: the failed attempt's went with it.
    expect(rows.sort()).toEqual(results.simulations.map((s) => s.id).sort());
    for (const [i, simulation] of results.simulations.entries()) {
      const record = records[i]!;
      expect(record).toBeDefined();
      const task = tasks.find((t) => t.id === simulation.task_id)!;
      const produced = simulation.messages.filter(
        (m) => (m.role === "assistant" || m.role === "user") && m.usage,
      );
      expect(record.calls.length).toBe(produced.length);
      for (const [index, call] of record.calls.entries()) {
        // Every call of this record was about this conversation's task, and produced this conversation's message.
        const sent = JSON.stringify(sentMessages(record, index)) + record.prompts[call.prompt]!.system;
        expect(sent).toContain(reasonOf(task).slice(0, 40));
        const message = simulation.messages[call.turn_idx!]!;
        if (message.role !== "assistant" && message.role !== "user") throw new Error("not a participant");
        expect(call.reply?.text ?? null).toBe(message.content ?? null);
        expect(call.params).toMatchObject({ seed: simulation.seed });
      }
    }
  });
});
