import {
  TurnCheckpointSchema,
  type CheckpointStore,
  type ConversationKey,
  type TurnCheckpoint,
} from "../core/run-store.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import type { Store } from "./store.js";

const KEY = "run_id = @runId AND domain = @domain AND task_id = @taskId AND trial = @trial";

/**
 * {@link CheckpointStore} over the SQLite store: one row per conversation in progress, replaced after
 * each turn (JSON that keeps Python float marks, as results do), deleted with its run.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async load(key: ConversationKey): Promise<TurnCheckpoint | undefined> {
    const row = this.#store.statement(`SELECT checkpoint FROM turn_checkpoints WHERE ${KEY}`).get(key) as
      { checkpoint: string } | undefined;
    if (!row) return undefined;
    // A row this version cannot read is no checkpoint: the conversation runs from its start.
    const parsed = TurnCheckpointSchema.safeParse(parseJsonKeepingPyFloats(row.checkpoint));
    return parsed.success ? parsed.data : undefined;
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
