import type Database from "better-sqlite3";

/** One step of the store's schema; `up` runs inside the migration's transaction. */
export interface Migration {
  version: number;
  description: string;
  up: (db: Database.Database) => void;
}

/**
 * The store's schema, as the list of migrations that builds it. Append a migration to change it
 * (never edit a released one): a store at an older version is migrated when opened.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "runs, their tasks, simulations and the job queue",
    up: (db) =>
      db.exec(`
        CREATE TABLE runs (
          id TEXT PRIMARY KEY,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          status TEXT NOT NULL,
          label TEXT,
          num_trials INTEGER,
          config TEXT NOT NULL,
          info TEXT,
          timestamp TEXT,
          extra TEXT
        );
        CREATE TABLE run_tasks (
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          domain TEXT NOT NULL,
          task_id TEXT NOT NULL,
          position INTEGER NOT NULL,
          task TEXT NOT NULL,
          PRIMARY KEY (run_id, domain, task_id)
        );
        CREATE TABLE simulations (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          domain TEXT NOT NULL,
          task_id TEXT NOT NULL,
          trial INTEGER NOT NULL,
          id TEXT NOT NULL,
          termination_reason TEXT NOT NULL,
          reward REAL,
          agent_cost REAL,
          user_cost REAL,
          duration REAL,
          reward_info TEXT,
          messages TEXT NOT NULL,
          record TEXT NOT NULL,
          written_at TEXT NOT NULL,
          UNIQUE (run_id, domain, task_id, trial)
        );
        CREATE TABLE jobs (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          domain TEXT NOT NULL,
          task_id TEXT NOT NULL,
          trial INTEGER NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('queued', 'claimed', 'done', 'failed')),
          attempts INTEGER NOT NULL DEFAULT 0,
          worker TEXT,
          lease_expires_at TEXT,
          last_error TEXT,
          updated_at TEXT NOT NULL,
          UNIQUE (run_id, domain, task_id, trial)
        );
        CREATE INDEX jobs_by_state ON jobs (run_id, state, seq);
      `),
  },
  {
    version: 2,
    description: "reviews: who caused each failed simulation (passk review)",
    up: (db) =>
      db.exec(`
        CREATE TABLE reviews (
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          domain TEXT NOT NULL,
          task_id TEXT NOT NULL,
          trial INTEGER NOT NULL,
          review TEXT NOT NULL,
          written_at TEXT NOT NULL,
          PRIMARY KEY (run_id, domain, task_id, trial)
        );
      `),
  },
  {
    version: 3,
    description: "playground conversations (kept, reopenable) and the files imported into each run",
    up: (db) =>
      db.exec(`
        CREATE TABLE playground_conversations (
          id TEXT PRIMARY KEY,
          domain TEXT NOT NULL,
          task_id TEXT,
          mode TEXT NOT NULL,
          agent TEXT NOT NULL,
          user TEXT,
          started_at TEXT NOT NULL,
          ended_at TEXT,
          status TEXT NOT NULL,
          termination_reason TEXT,
          reward REAL,
          messages INTEGER NOT NULL,
          first_line TEXT,
          events TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX playground_conversations_by_start ON playground_conversations (started_at);
        CREATE TABLE imported_files (
          sha256 TEXT NOT NULL,
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          imported_at TEXT NOT NULL,
          PRIMARY KEY (sha256, run_id)
        );
      `),
  },
  {
    version: 4,
    description: "turn checkpoints: each conversation's progress, for --checkpoint-turns",
    up: (db) =>
      db.exec(`
        CREATE TABLE turn_checkpoints (
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          domain TEXT NOT NULL,
          task_id TEXT NOT NULL,
          trial INTEGER NOT NULL,
          checkpoint TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          PRIMARY KEY (run_id, domain, task_id, trial)
        );
      `),
  },
  {
    version: 5,
    description: "notes people write on simulations, some flagging a task issue",
    up: (db) =>
      db.exec(`
        CREATE TABLE simulation_notes (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
          domain TEXT NOT NULL,
          task_id TEXT NOT NULL,
          trial INTEGER NOT NULL,
          simulation_id TEXT,
          text TEXT NOT NULL,
          task_issue INTEGER NOT NULL DEFAULT 0 CHECK (task_issue IN (0, 1)),
          category TEXT,
          created_at TEXT NOT NULL
        );
        CREATE INDEX simulation_notes_by_simulation ON simulation_notes (run_id, domain, task_id, trial, id);
      `),
  },
  {
    version: 6,
    description:
      "a playground conversation keeps its owner token's digest, so its owner can continue it after a restart",
    up: (db) => db.exec("ALTER TABLE playground_conversations ADD COLUMN owner_digest TEXT"),
  },
];

/** The schema version this passk writes and reads. */
export const STORE_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
