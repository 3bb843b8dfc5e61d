import { gunzipSync, gzipSync } from "node:zlib";
import {
  SimulationModelCallsSchema,
  type ModelCallSink,
  type SimulationModelCalls,
} from "../core/model-calls.js";
import type { Store } from "./store.js";

/**
 * Created when missing, whatever the store's schema version: a store written before model calls were
 * recorded opens as it is and simply has none. One row per simulation, its record gzipped JSON.
 */
const CREATE = `
  CREATE TABLE IF NOT EXISTS simulation_model_calls (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    simulation_id TEXT NOT NULL,
    calls BLOB NOT NULL,
    written_at TEXT NOT NULL,
    PRIMARY KEY (run_id, simulation_id)
  )`;

/**
 * The model calls behind each simulation of the store's runs (`passk run` records them; the explorer
 * shows them per turn). Kept beside the results, never in them; deleted with their run.
 */
export class SqliteModelCallStore implements ModelCallSink {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
    try {
      store.db.exec(CREATE);
    } catch {
      // A read-only store: nothing can be recorded in it, and what it holds is still read.
    }
  }

  save(runId: string, simulationId: string, calls: SimulationModelCalls): void {
    this.#store
      .statement(
        `INSERT INTO simulation_model_calls (run_id, simulation_id, calls, written_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (run_id, simulation_id) DO UPDATE SET calls = excluded.calls, written_at = excluded.written_at`,
      )
      .run(runId, simulationId, gzipSync(JSON.stringify(calls)), this.#store.now());
  }

  /** The calls of one simulation; undefined when none were recorded (or the row cannot be read). */
  load(runId: string, simulationId: string): SimulationModelCalls | undefined {
    try {
      const row = this.#store
        .statement("SELECT calls FROM simulation_model_calls WHERE run_id = ? AND simulation_id = ?")
        .get(runId, simulationId) as { calls: Buffer } | undefined;
      if (!row) return undefined;
      const parsed = SimulationModelCallsSchema.safeParse(JSON.parse(gunzipSync(row.calls).toString("utf8")));
      return parsed.success ? parsed.data : undefined;
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

  /** Bytes stored for a run's calls (for measurements). */
  bytes(runId: string): { simulations: number; bytes: number } {
    const row = this.#store
      .statement(
        "SELECT COUNT(*) AS simulations, COALESCE(SUM(length(calls)), 0) AS bytes FROM simulation_model_calls WHERE run_id = ?",
      )
      .get(runId) as { simulations: number; bytes: number };
    return row;
  }
}
