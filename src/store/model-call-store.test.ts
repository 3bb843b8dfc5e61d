import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sentMessages, type ModelCall, type SimulationModelCalls } from "../core/model-calls.js";
import { databaseOf } from "./database.js";
import { SqliteModelCallStore } from "./model-call-store.js";
import { Store } from "./store.js";
import type { SimulationRunInput } from "../formats/tau2/results.js";

const open: Store[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));

function openStore(file = path.join(mkdtempSync(path.join(tmpdir(), "passk-calls-")), "passk.db")): Store {
  const store = Store.open(file);
  open.push(store);
  return store;
}

function simulation(taskId: string, trial: number): SimulationRunInput {
  return {
    id: `${taskId}-${trial}`,
    task_id: taskId,
    timestamp: "2026-11-29T00:00:00",
    start_time: "2026-11-29T00:00:00",
    end_time: "2026-11-29T00:01:00",
    duration: 60,
    termination_reason: "user_stop",
    agent_cost: null,
    user_cost: null,
    reward_info: null,
    messages: [],
    trial,
    seed: 0,
  };
}

function call(turn: number | null, messages: ModelCall["messages"]): ModelCall {
  return {
    turn_idx: turn,
    role: "agent",
    model: "openai:gpt-4.1",
    prompt: 0,
    messages,
    params: { temperature: 0 },
    reply: { text: "ok", tool_calls: [], finish_reason: "stop", response_id: null },
    usage: { prompt_tokens: 10, completion_tokens: 2 },
    cost: null,
    started_at: "2026-11-29T00:00:00.000Z",
    latency_ms: 5,
    attempts: 1,
    errors: [],
    error: null,
    cached: false,
  };
}

const POLICY = { system: "You are an airline agent. ".repeat(50), tools: [] };

function record(customer: string): SimulationModelCalls {
  return {
    version: 1,
    prompts: [POLICY],
    calls: [
      call(1, { from: null, keep: 0, added: [{ role: "user", content: customer }] }),
      call(3, {
        from: 0,
        keep: 1,
        added: [
          { role: "assistant", content: "ok" },
          { role: "user", content: "thanks" },
        ],
      }),
    ],
  };
}

describe("SqliteModelCallStore", () => {
  it("keeps each simulation's calls, their prompts once per run, and goes with the run", () => {
    const store = openStore();
    const run = store.createRun({ numTrials: 2 });
    store.putSimulation(run.id, "airline", simulation("0", 0));
    store.putSimulation(run.id, "airline", simulation("0", 1));
    const calls = new SqliteModelCallStore(store);
    calls.save(run.id, "0-0", record("first"));
    calls.save(run.id, "0-1", record("second"));
    expect(calls.load(run.id, "0-0")).toEqual(record("first"));
    expect(calls.load(run.id, "0-1")).toEqual(record("second"));
    expect(sentMessages(calls.load(run.id, "0-1")!, 1)).toEqual([
      { role: "user", content: "second" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "thanks" },
    ]);
    expect(calls.load(run.id, "missing")).toBeUndefined();
    const count = (table: string) =>
      (databaseOf(store).statement(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count("model_call_prompts")).toBe(1);

    // A record whose simulation the run no longer holds is dropped by prune.
    calls.save(run.id, "replaced-attempt", record("gone"));
    expect(calls.prune(run.id)).toBe(1);
    expect(calls.load(run.id, "replaced-attempt")).toBeUndefined();
    expect(count("simulation_model_calls")).toBe(2);

    store.deleteRun(run.id);
    expect(count("simulation_model_calls")).toBe(0);
    expect(count("model_call_prompts")).toBe(0);
  });

  it("opens a store written before calls were recorded: the tables appear, and nothing is there to read", () => {
    const store = openStore();
    const run = store.createRun({ numTrials: 1 });
    const has = () =>
      databaseOf(store)
        .statement("SELECT 1 FROM sqlite_master WHERE name = 'simulation_model_calls'")
        .get() !== undefined;
    expect(has()).toBe(false);
    const calls = new SqliteModelCallStore(store);
    expect(has()).toBe(true);
    expect(calls.load(run.id, "any")).toBeUndefined();
  });
});
