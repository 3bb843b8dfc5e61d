import type { StoredTaskRecord } from "../core/run-store.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import type { StoreDatabase } from "./database.js";

/** The `run_tasks` table: the task definitions of each run, in the order they were put. */
export class RunTasksTable {
  readonly #db: StoreDatabase;

  constructor(db: StoreDatabase) {
    this.#db = db;
  }

  /** Record the task definitions of a run (for export and scoring); re-putting a task replaces it. */
  put(runId: string, domain: string, tasks: readonly StoredTaskRecord[]): void {
    const insert = this.#db.statement(
      `INSERT INTO run_tasks (run_id, domain, task_id, position, task) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (run_id, domain, task_id) DO UPDATE SET task = excluded.task`,
    );
    this.#db.transaction(() => {
      const { next } = this.#db
        .statement("SELECT COALESCE(MAX(position) + 1, 0) AS next FROM run_tasks WHERE run_id = ?")
        .get(runId) as { next: number };
      tasks.forEach((task, index) =>
        insert.run(runId, domain, task.id, next + index, stringifyKeepingPyFloats(task)),
      );
    });
  }

  /** A run's tasks in the order they were put, optionally of one domain. */
  get(runId: string, domain?: string): Array<{ domain: string; task: StoredTaskRecord }> {
    const rows = this.#db
      .statement(
        `SELECT domain, task FROM run_tasks WHERE run_id = ? AND (? IS NULL OR domain = ?) ORDER BY position`,
      )
      .all(runId, domain ?? null, domain ?? null) as Array<{ domain: string; task: string }>;
    return rows.map((r) => ({
      domain: r.domain,
      task: parseJsonKeepingPyFloats(r.task) as StoredTaskRecord,
    }));
  }
}
