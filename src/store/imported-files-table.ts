import type { StoreDatabase } from "./database.js";

/** The `imported_files` table: which runs each imported results file (by SHA-256) became. */
export class ImportedFilesTable {
  readonly #db: StoreDatabase;

  constructor(db: StoreDatabase) {
    this.#db = db;
  }

  record(sha256: string, runId: string): void {
    this.#db
      .statement("INSERT OR IGNORE INTO imported_files (sha256, run_id, imported_at) VALUES (?, ?, ?)")
      .run(sha256, runId, this.#db.now());
  }

  /** The runs the file was imported as, oldest first (a deleted run's rows went with it). */
  runsOf(sha256: string): string[] {
    return (
      this.#db
        .statement("SELECT run_id FROM imported_files WHERE sha256 = ? ORDER BY imported_at, run_id")
        .all(sha256) as Array<{ run_id: string }>
    ).map((row) => row.run_id);
  }
}
