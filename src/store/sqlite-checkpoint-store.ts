import { randomUUID } from "node:crypto";
import {
  TurnCheckpointSchema,
  type CheckpointStore,
  type ConversationKey,
  type TurnCheckpoint,
} from "../core/run-store.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import { databaseOf, type StoreDatabase } from "./database.js";
import type { Store } from "./store.js";

/** A row's JSON; text that is not JSON reads as nothing (then refused by the schema). */
function parseCheckpointText(text: string): unknown {
  try {
    return parseJsonKeepingPyFloats(text);
  } catch {
    return undefined;
  }
}

const KEY = "run_id = @runId AND domain = @domain AND task_id = @taskId AND trial = @trial";

/**
 * {@link CheckpointStore} over the SQLite store: one row per conversation in progress, replaced after
 * each turn (JSON that keeps Python float marks, as results do), deleted with its run.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  readonly #store: StoreDatabase;

  constructor(store: Store) {
    this.#store = databaseOf(store);
  }

  /**
   * The conversation's checkpoint. A row this version cannot read is no checkpoint: it is deleted, and
   * the conversation runs from its start. One whose simulation id another conversation of the run holds
   * (a stored simulation or another checkpoint) continues under a fresh id, so that no two results share one.
   */
  async load(key: ConversationKey): Promise<TurnCheckpoint | undefined> {
    const row = this.#store.statement(`SELECT checkpoint FROM turn_checkpoints WHERE ${KEY}`).get(key) as
      { checkpoint: string } | undefined;
    if (!row) return undefined;
    const parsed = TurnCheckpointSchema.safeParse(parseCheckpointText(row.checkpoint));
    if (!parsed.success) {
      await this.clear(key);
      return undefined;
    }
    const others = { ...key, id: parsed.data.simulationId };
    const elsewhere = (table: "simulations" | "turn_checkpoints", id: string) =>
      `SELECT 1 FROM ${table} WHERE run_id = @runId AND ${id} = @id
         AND NOT (domain = @domain AND task_id = @taskId AND trial = @trial)`;
    const taken =
      this.#store.statement(elsewhere("simulations", "id")).get(others) !== undefined ||
      this.#store
        .statement(
          elsewhere(
            "turn_checkpoints",
            "CASE WHEN json_valid(checkpoint) THEN json_extract(checkpoint, '$.simulationId') END",
          ),
        )
        .get(others) !== undefined;
    return taken ? { ...parsed.data, simulationId: randomUUID() } : parsed.data;
  }

  async save(key: ConversationKey, checkpoint: TurnCheckpoint): Promise<void> {
    this.#store
      .statement(
        `INSERT INTO turn_checkpoints (run_id, domain, task_id, trial, checkpoint, updated_at)
         VALUES (@runId, @domain, @taskId, @trial, @checkpoint, @now)
         ON CONFLICT (run_id, domain, task_id, trial) DO UPDATE SET checkpoint = excluded.checkpoint,
           updated_at = excluded.updated_at`,
      )
      .run({ ...key, checkpoint: stringifyKeepingPyFloats(checkpoint), now: this.#store.now() });
  }

  async clear(key: ConversationKey): Promise<void> {
    this.#store.statement(`DELETE FROM turn_checkpoints WHERE ${KEY}`).run(key);
  }
}
