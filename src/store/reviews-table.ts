import type { StoredReview } from "../core/run-store.js";
import type { StoreDatabase } from "./database.js";

/** The `reviews` table: the `passk review` verdict of each reviewed simulation of a run. */
export class ReviewsTable {
  readonly #db: StoreDatabase;

  constructor(db: StoreDatabase) {
    this.#db = db;
  }

  /** Record (or replace) the review of one simulation of a run. */
  put(runId: string, key: { domain: string; task_id: string; trial: number }, review: unknown): void {
    this.#db
      .statement(
        `INSERT INTO reviews (run_id, domain, task_id, trial, review, written_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, domain, task_id, trial) DO UPDATE SET review = excluded.review, written_at = excluded.written_at`,
      )
      .run(runId, key.domain, key.task_id, key.trial, JSON.stringify(review), this.#db.now());
  }

  /** The reviews of a run's simulations. */
  list(runId: string): StoredReview[] {
    const rows = this.#db
      .statement(
        "SELECT domain, task_id, trial, review FROM reviews WHERE run_id = ? ORDER BY domain, task_id, trial",
      )
      .all(runId) as Array<{ domain: string; task_id: string; trial: number; review: string }>;
    return rows.map((r) => ({ ...r, review: JSON.parse(r.review) as unknown }));
  }
}
