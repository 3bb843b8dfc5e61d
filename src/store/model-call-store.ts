import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { z } from "zod";
import {
  ModelCallPromptSchema,
  SimulationModelCallsSchema,
  type ModelCallPrompt,
  type ModelCallSink,
  type SimulationModelCalls,
} from "../core/model-calls.js";
import { databaseOf, type StoreDatabase } from "./database.js";
import type { Store } from "./store.js";

/**
 * Created when missing, whatever the store's schema version: a store written before model calls were
 * recorded opens as it is and simply has none. One row per simulation, its calls as gzipped JSON; the
 * system prompts and tool lists they name, once per run (by hash): every conversation of a run sends
 * the agent the same policy and tools, and each trial of a task the customer the same scenario.
 */
const CREATE = `
  CREATE TABLE IF NOT EXISTS simulation_model_calls (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    simulation_id TEXT NOT NULL,
    calls BLOB NOT NULL,
    written_at TEXT NOT NULL,
    PRIMARY KEY (run_id, simulation_id)
  );
  CREATE TABLE IF NOT EXISTS model_call_prompts (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    hash TEXT NOT NULL,
    prompt BLOB NOT NULL,
    PRIMARY KEY (run_id, hash)
  )`;

/** A simulation's row: its calls, and its prompts by hash. */
const StoredCallsSchema = SimulationModelCallsSchema.extend({ prompts: z.array(z.string()) });

const gunzipJson = (blob: Buffer): unknown => JSON.parse(gunzipSync(blob).toString("utf8"));

/**
 * The model calls behind each simulation of the store's runs (`passk run` records them; the explorer
 * shows them per turn). Kept beside the results, never in them; deleted with their run.
 */
export class SqliteModelCallStore implements ModelCallSink {
  readonly #store: StoreDatabase;
  /** Prompts known to be stored, `run\u0000hash`: each is written once per run. */
  readonly #known = new Set<string>();

  constructor(store: Store) {
    this.#store = databaseOf(store);
    try {
      this.#store.exec(CREATE);
    } catch {
      // A read-only store: nothing can be recorded in it, and what it holds is still read.
    }
  }

  save(runId: string, simulationId: string, calls: SimulationModelCalls): void {
    const hashes = calls.prompts.map((prompt) => this.#savePrompt(runId, prompt));
    this.#store
      .statement(
        `INSERT INTO simulation_model_calls (run_id, simulation_id, calls, written_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (run_id, simulation_id) DO UPDATE SET calls = excluded.calls, written_at = excluded.written_at`,
      )
      .run(runId, simulationId, gzipSync(JSON.stringify({ ...calls, prompts: hashes })), this.#store.now());
  }

  #savePrompt(runId: string, prompt: ModelCallPrompt): string {
    const text = JSON.stringify(prompt);
    const hash = createHash("sha256").update(text).digest("hex");
    const key = `${runId}\u0000${hash}`;
    if (!this.#known.has(key)) {
      const stored = this.#store
        .statement("SELECT 1 FROM model_call_prompts WHERE run_id = ? AND hash = ?")
        .get(runId, hash);
      if (!stored)
        this.#store
          .statement("INSERT OR IGNORE INTO model_call_prompts (run_id, hash, prompt) VALUES (?, ?, ?)")
          .run(runId, hash, gzipSync(text));
      this.#known.add(key);
    }
    return hash;
  }

  /** The calls of one simulation; undefined when none were recorded (or the row cannot be read). */
  load(runId: string, simulationId: string): SimulationModelCalls | undefined {
    try {
      const row = this.#store
        .statement("SELECT calls FROM simulation_model_calls WHERE run_id = ? AND simulation_id = ?")
        .get(runId, simulationId) as { calls: Buffer } | undefined;
      if (!row) return undefined;
      const parsed = StoredCallsSchema.safeParse(gunzipJson(row.calls));
      if (!parsed.success) return undefined;
      const prompts: ModelCallPrompt[] = [];
      for (const hash of parsed.data.prompts) {
        const stored = this.#store
          .statement("SELECT prompt FROM model_call_prompts WHERE run_id = ? AND hash = ?")
          .get(runId, hash) as { prompt: Buffer } | undefined;
        const prompt = stored && ModelCallPromptSchema.safeParse(gunzipJson(stored.prompt));
        if (!prompt?.success) return undefined;
        prompts.push(prompt.data);
      }
      return { ...parsed.data, prompts };
    } catch {
      return undefined;
    }
  }

  /** Drops the records of simulations the run no longer holds (an attempt a retry replaced, a result not kept). */
  prune(runId: string): number {
    return this.#store
      .statement(
        `DELETE FROM simulation_model_calls WHERE run_id = ? AND simulation_id NOT IN (
           SELECT id FROM simulations WHERE run_id = ?)`,
      )
      .run(runId, runId).changes;
  }

  /** Bytes stored for a run's calls, its prompts included (for measurements). */
  bytes(runId: string): { simulations: number; bytes: number } {
    return this.#store
      .statement(
        `SELECT COUNT(*) AS simulations, COALESCE(SUM(length(calls)), 0)
           + (SELECT COALESCE(SUM(length(prompt)), 0) FROM model_call_prompts WHERE run_id = @run) AS bytes
         FROM simulation_model_calls WHERE run_id = @run`,
      )
      .get({ run: runId }) as { simulations: number; bytes: number };
  }
}
