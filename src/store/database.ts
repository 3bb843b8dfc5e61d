import { existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { makeDirectory } from "../core/make-directory.js";
import { passkVersion } from "../version.js";
import { MIGRATIONS, type Migration } from "./schema.js";
import {
  NotAStoreError,
  StoreAccessError,
  StoreDamagedError,
  StoreNotFoundError,
  StoreVersionError,
} from "./store-errors.js";

export interface StoreOptions {
  /** Create the file (and its folder) when missing. Commands that only read pass false. */
  create?: boolean;
  /** The schema to open with (tests); defaults to {@link MIGRATIONS}. */
  migrations?: readonly Migration[];
  /** Clock (tests). */
  now?: () => Date;
}

/**
 * The open SQLite file of the run store, private to `store/`: each table's module prepares its SQL
 * here, and nothing outside the folder reaches it (the `Store` facade and the table classes hold it;
 * eslint refuses an import of this module from outside `store/`).
 */
export class StoreDatabase {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #clock: () => Date;
  readonly #statements = new Map<string, Database.Statement>();

  private constructor(file: string, db: Database.Database, clock: () => Date) {
    this.file = file;
    this.#db = db;
    this.#clock = clock;
  }

  /** Open (and, unless `create: false`, create) the store at `file`, migrating an older schema. */
  static open(file: string, options: StoreOptions = {}): StoreDatabase {
    const resolved = path.resolve(file);
    const exists = existsSync(resolved);
    if (!exists && options.create === false) throw new StoreNotFoundError(resolved);
    if (!exists) makeDirectory(path.dirname(resolved), `the store ${file}`);
    let db: Database.Database;
    try {
      db = new Database(resolved);
    } catch (error) {
      if (exists && (error as { code?: string }).code?.startsWith("SQLITE_CANTOPEN"))
        throw new StoreAccessError(resolved, "it cannot be opened (no permission to read it or its folder?)");
      throw new NotAStoreError(resolved, (error as Error).message, { cause: error });
    }
    try {
      db.pragma("busy_timeout = 5000");
      db.pragma("foreign_keys = ON");
      const migrations = options.migrations ?? MIGRATIONS;
      // Check what the file is before changing anything in it (the journal mode persists).
      const version = checkVersion(db, resolved, migrations);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      applyMigrations(db, version, migrations);
    } catch (error) {
      db.close();
      const code = (error as { code?: string }).code;
      if (code?.startsWith("SQLITE_READONLY") || code?.startsWith("SQLITE_CANTOPEN"))
        throw new StoreAccessError(
          resolved,
          "it or its folder is read-only, and SQLite must write its journal beside it",
        );
      throw error;
    }
    return new StoreDatabase(resolved, db, options.now ?? (() => new Date()));
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /**
   * The prepared statement of `sql`, prepared once per store: statements run per simulation (storing
   * it, claiming and finishing its job) would otherwise be compiled again on every call.
   */
  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Run SQL that returns nothing, such as `CREATE TABLE IF NOT EXISTS` (several statements allowed). */
  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** Run `fn` in one immediate (write-locking) transaction. */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn).immediate();
  }

  /** The store's clock. */
  clock(): Date {
    return this.#clock();
  }

  /** The store's clock as an ISO timestamp, as rows record it. */
  now(): string {
    return this.#clock().toISOString();
  }

  /** The schema version of the open store. */
  schemaVersion(): number {
    return currentVersion(this.#db) ?? 0;
  }

  /** SQLite's quick integrity check of the whole file; a StoreDamagedError naming the problems. */
  checkIntegrity(): void {
    let rows: Array<{ quick_check: string }>;
    try {
      rows = this.#db.pragma("quick_check") as Array<{ quick_check: string }>;
    } catch (error) {
      throw new StoreDamagedError(this.file, [(error as Error).message]);
    }
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== "ok");
    if (problems.length > 0) throw new StoreDamagedError(this.file, problems);
  }
}

/** The database of each open `Store`, for the table modules built over one (job queue, notes…). */
const databases = new WeakMap<object, StoreDatabase>();

/** Tie `db` to the store facade that owns it. */
export function attachDatabase(owner: object, db: StoreDatabase): void {
  databases.set(owner, db);
}

/** The database of an open `Store`. */
export function databaseOf(owner: object): StoreDatabase {
  const db = databases.get(owner);
  if (!db) throw new TypeError("not a passk Store (open one with Store.open)");
  return db;
}

// -- schema versions ---------------------------------------------------------------------------

function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function currentVersion(db: Database.Database): number | null {
  if (!tableExists(db, "passk_schema")) return null;
  const row = db.prepare("SELECT MAX(version) AS version FROM passk_schema").get() as {
    version: number | null;
  };
  return row.version;
}

/** The store's schema version (0 for a new, empty file); refuses foreign files and newer schemas. */
function checkVersion(db: Database.Database, file: string, migrations: readonly Migration[]): number {
  const latest = migrations[migrations.length - 1]!.version;
  let version: number | null;
  try {
    version = currentVersion(db);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code?.startsWith("SQLITE_READONLY") || code?.startsWith("SQLITE_CANTOPEN"))
      throw new StoreAccessError(
        file,
        "it or its folder is read-only, and SQLite must write its journal beside it",
      );
    throw new NotAStoreError(file, (error as Error).message, { cause: error });
  }
  if (version === null) {
    const tables = db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as {
      n: number;
    };
    if (tables.n > 0) throw new NotAStoreError(file, "an SQLite database without passk's schema table");
    return 0;
  }
  if (version > latest) {
    const row = db.prepare("SELECT passk_version FROM passk_schema WHERE version = ?").get(version) as
      { passk_version: string | null } | undefined;
    throw new StoreVersionError(file, version, latest, row?.passk_version ?? null);
  }
  return version;
}

/** Apply the migrations above `version`, all in one transaction. */
function applyMigrations(db: Database.Database, version: number, migrations: readonly Migration[]): void {
  const pending = migrations.filter((m) => m.version > version);
  if (pending.length === 0) return;
  const writer = passkVersion();
  db.transaction(() => {
    db.exec(
      "CREATE TABLE IF NOT EXISTS passk_schema (version INTEGER PRIMARY KEY, description TEXT NOT NULL, migrated_at TEXT NOT NULL, passk_version TEXT)",
    );
    for (const migration of pending) {
      migration.up(db);
      db.prepare(
        "INSERT INTO passk_schema (version, description, migrated_at, passk_version) VALUES (?, ?, ?, ?)",
      ).run(migration.version, migration.description, new Date().toISOString(), writer);
    }
  }).immediate();
}
