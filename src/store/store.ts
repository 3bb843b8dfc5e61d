import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { UnknownNameError } from "../core/errors.js";
import {
  RunStatusSchema,
  type NewRun,
  type PutResult,
  type RunRecord,
  type RunStatus,
  type RunStore,
  type RunUpdate,
  type StoredReview,
  type StoredSimulation,
} from "../core/run-store.js";
import type { SimulationRunInput, TaskInput } from "../formats/tau2/results.js";
import { NON_EVALUABLE_TERMINATIONS, type ScoredSimulation } from "../metrics/run-metrics.js";
import { passkVersion } from "../version.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import { MIGRATIONS, type Migration } from "./schema.js";
import {
  NotAStoreError,
  StoreAccessError,
  StoreDamagedError,
  StoreInputError,
  StoreNotFoundError,
  StoreVersionError,
} from "./store-errors.js";
import { makeDirectory } from "../core/make-directory.js";

export { RunStatusSchema };
export type { NewRun, PutResult, RunRecord, RunStatus, RunUpdate, StoredSimulation };

type Json = Record<string, unknown>;

export interface StoreOptions {
  /** Create the file (and its folder) when missing. Commands that only read pass false. */
  create?: boolean;
  /** The schema to open with (tests); defaults to {@link MIGRATIONS}. */
  migrations?: readonly Migration[];
  /** Clock (tests). */
  now?: () => Date;
}

/** {@link NON_EVALUABLE_TERMINATIONS} as an SQL list, for `termination_reason IN (…)`. */
export const NON_EVALUABLE_SQL = [...NON_EVALUABLE_TERMINATIONS].map((r) => `'${r}'`).join(", ");

/** `20261123-093012-a1b2`: sortable by creation time, unique enough for one user's runs. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(2).toString("hex")}`;
}

function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

interface RunRow {
  id: string;
  created_at: string;
  updated_at: string;
  status: string;
  label: string | null;
  num_trials: number | null;
  config: string;
  info: string | null;
  timestamp: string | null;
  extra: string | null;
  simulation_count: number;
  domains: string | null;
}

interface SimulationRow {
  run_id: string;
  domain: string;
  record: string;
  messages: string;
  reward_info: string | null;
}

/**
 * The embedded SQLite store of runs, their tasks and simulations (WAL journal, one transaction per
 * write). Each simulation is keyed by (run, domain, task, trial) and written idempotently: the first
 * evaluable result for a key stays; an infrastructure-error result is replaced by a later attempt.
 *
 * @example
 * const store = Store.open(".passk/passk.db");
 * const run = store.createRun({ numTrials: 4, config: { agent: "openai:gpt-4.1" } });
 * store.putSimulation(run.id, "airline", simulation);
 */
export class Store implements RunStore {
  readonly file: string;
  readonly db: Database.Database;
  readonly #now: () => Date;
  readonly #statements = new Map<string, Database.Statement>();

  private constructor(file: string, db: Database.Database, now: () => Date) {
    this.file = file;
    this.db = db;
    this.#now = now;
  }

  /** Open (and, unless `create: false`, create) the store at `file`, migrating an older schema. */
  static open(file: string, options: StoreOptions = {}): Store {
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
    return new Store(resolved, db, options.now ?? (() => new Date()));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * SQLite's quick integrity check of the whole file (a linear scan, about a second per gigabyte):
   * throws a StoreDamagedError naming the problems, so a damaged store is said to be damaged by the
   * commands that only list it, not only by those that happen to read the damaged page.
   */
  checkIntegrity(): void {
    let rows: Array<{ quick_check: string }>;
    try {
      rows = this.db.pragma("quick_check") as Array<{ quick_check: string }>;
    } catch (error) {
      throw new StoreDamagedError(this.file, [(error as Error).message]);
    }
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== "ok");
    if (problems.length > 0) throw new StoreDamagedError(this.file, problems);
  }

  /**
   * The prepared statement of `sql`, prepared once per store: statements run per simulation (storing
   * it, claiming and finishing its job) would otherwise be compiled again on every call.
   */
  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Run `fn` in one immediate (write-locking) transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** The schema version of the open store. */
  schemaVersion(): number {
    return currentVersion(this.db) ?? 0;
  }

  now(): string {
    return this.#now().toISOString();
  }

  // -- runs ------------------------------------------------------------------------------------

  createRun(run: NewRun = {}): RunRecord {
    const now = this.now();
    const id = run.id ?? newRunId(this.#now());
    const existing = this.db.prepare("SELECT 1 FROM runs WHERE id = ?").get(id);
    if (existing) throw new StoreInputError(`run "${id}" already exists in ${this.file}; choose another id.`);
    this.db
      .prepare(
        `INSERT INTO runs (id, created_at, updated_at, status, label, num_trials, config, info, timestamp, extra)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        now,
        now,
        RunStatusSchema.parse(run.status ?? "running"),
        run.label ?? null,
        run.numTrials ?? null,
        JSON.stringify(run.config ?? {}),
        run.info ? JSON.stringify(run.info) : null,
        run.timestamp ?? null,
        run.extra ? JSON.stringify(run.extra) : null,
      );
    return this.getRun(id);
  }

  updateRun(id: string, update: RunUpdate): RunRecord {
    const runId = this.resolveRunId(id);
    const sets: string[] = ["updated_at = @updated_at"];
    const values: Record<string, unknown> = { id: runId, updated_at: this.now() };
    if (update.status !== undefined) {
      sets.push("status = @status");
      values.status = RunStatusSchema.parse(update.status);
    }
    if (update.label !== undefined) {
      sets.push("label = @label");
      values.label = update.label;
    }
    if (update.numTrials !== undefined) {
      sets.push("num_trials = @num_trials");
      values.num_trials = update.numTrials;
    }
    if (update.config !== undefined) {
      sets.push("config = @config");
      values.config = JSON.stringify(update.config);
    }
    if (update.info !== undefined) {
      sets.push("info = @info");
      values.info = update.info === null ? null : JSON.stringify(update.info);
    }
    if (update.timestamp !== undefined) {
      sets.push("timestamp = @timestamp");
      values.timestamp = update.timestamp;
    }
    this.db.prepare(`UPDATE runs SET ${sets.join(", ")} WHERE id = @id`).run(values);
    return this.getRun(runId);
  }

  /** A run by id or unique id prefix. */
  getRun(idOrPrefix: string): RunRecord {
    const id = this.resolveRunId(idOrPrefix);
    return toRunRecord(this.db.prepare(`${RUN_SELECT} WHERE runs.id = ?`).get(id) as RunRow);
  }

  /** Runs, newest first. */
  listRuns(): RunRecord[] {
    return (
      this.db.prepare(`${RUN_SELECT} ORDER BY runs.created_at DESC, runs.id DESC`).all() as RunRow[]
    ).map(toRunRecord);
  }

  /**
   * How far a run has come: its (task, trial)s planned (the jobs the runner queued — they grow with
   * each adaptive round and stay across resumes — plus stored simulations no job asked for, such as
   * an imported file's), those stored, those stored since `since`, and its last sign of life (the run
   * record, a stored simulation, or a job claimed or its lease renewed).
   */
  runProgress(
    runId: string,
    since: string | null,
  ): { planned: number; done: number; doneSince: number; lastActivityAt: string } {
    const row = this.statement(
      `SELECT
         (SELECT COUNT(*) FROM jobs WHERE run_id = @id) AS jobs,
         (SELECT COUNT(*) FROM simulations s WHERE s.run_id = @id AND NOT EXISTS (
            SELECT 1 FROM jobs j WHERE j.run_id = s.run_id AND j.domain = s.domain
              AND j.task_id = s.task_id AND j.trial = s.trial)) AS unplanned,
         (SELECT COUNT(*) FROM simulations WHERE run_id = @id) AS done,
         (SELECT COUNT(*) FROM simulations WHERE run_id = @id AND written_at >= @since) AS done_since,
         (SELECT MAX(written_at) FROM simulations WHERE run_id = @id) AS last_written,
         (SELECT MAX(updated_at) FROM jobs WHERE run_id = @id) AS last_job,
         (SELECT updated_at FROM runs WHERE id = @id) AS run_updated`,
    ).get({ id: runId, since: since ?? "" }) as {
      jobs: number;
      unplanned: number;
      done: number;
      done_since: number;
      last_written: string | null;
      last_job: string | null;
      run_updated: string;
    };
    // ISO timestamps of one clock compare as text.
    const lastActivityAt = [row.last_written, row.last_job].reduce<string>(
      (latest, at) => (at !== null && at > latest ? at : latest),
      row.run_updated,
    );
    return {
      planned: row.jobs + row.unplanned,
      done: row.done,
      doneSince: since === null ? 0 : row.done_since,
      lastActivityAt,
    };
  }

  /** The full id of a run given its id or a unique prefix of it. */
  resolveRunId(idOrPrefix: string): string {
    const exact = this.db.prepare("SELECT id FROM runs WHERE id = ?").get(idOrPrefix) as
      { id: string } | undefined;
    if (exact) return exact.id;
    const matches = (
      this.db
        .prepare("SELECT id FROM runs WHERE substr(id, 1, length(?)) = ? ORDER BY id")
        .all(idOrPrefix, idOrPrefix) as { id: string }[]
    ).map((r) => r.id);
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new StoreInputError(
        `run id prefix "${idOrPrefix}" is ambiguous (matches ${matches.join(", ")}); give more characters.`,
      );
    }
    const known = (
      this.db.prepare("SELECT id FROM runs ORDER BY created_at DESC").all() as { id: string }[]
    ).map((r) => r.id);
    throw new UnknownNameError(
      "run",
      idOrPrefix,
      known,
      `List them with \`passk runs list --store ${this.file}\`.`,
    );
  }

  /** Delete a run with its tasks, simulations and jobs. */
  deleteRun(idOrPrefix: string): { id: string; simulations: number } {
    const id = this.resolveRunId(idOrPrefix);
    return this.transaction(() => {
      const { count } = this.db
        .prepare("SELECT COUNT(*) AS count FROM simulations WHERE run_id = ?")
        .get(id) as {
        count: number;
      };
      this.db.prepare("DELETE FROM runs WHERE id = ?").run(id);
      return { id, simulations: count };
    });
  }

  // -- tasks -----------------------------------------------------------------------------------

  /** Record the task definitions of a run (for export and scoring); re-putting a task replaces it. */
  putTasks(runId: string, domain: string, tasks: readonly TaskInput[]): void {
    const insert = this.db.prepare(
      `INSERT INTO run_tasks (run_id, domain, task_id, position, task) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (run_id, domain, task_id) DO UPDATE SET task = excluded.task`,
    );
    this.transaction(() => {
      const { next } = this.db
        .prepare("SELECT COALESCE(MAX(position) + 1, 0) AS next FROM run_tasks WHERE run_id = ?")
        .get(runId) as { next: number };
      tasks.forEach((task, index) =>
        insert.run(runId, domain, task.id, next + index, stringifyKeepingPyFloats(task)),
      );
    });
  }

  /** A run's tasks in the order they were put, optionally of one domain. */
  getTasks(runId: string, domain?: string): Array<{ domain: string; task: TaskInput }> {
    const rows = this.db
      .prepare(
        `SELECT domain, task FROM run_tasks WHERE run_id = ? AND (? IS NULL OR domain = ?) ORDER BY position`,
      )
      .all(runId, domain ?? null, domain ?? null) as Array<{ domain: string; task: string }>;
    return rows.map((r) => ({ domain: r.domain, task: parseJsonKeepingPyFloats(r.task) as TaskInput }));
  }

  // -- simulations -----------------------------------------------------------------------------

  /**
   * Store one finished conversation, idempotently by (run, domain, task_id, trial): a new key is
   * inserted; an existing key is replaced only if it holds an infrastructure error (a retry's
   * result); an evaluable result already stored is kept and `written` is false.
   */
  putSimulation(runId: string, domain: string, simulation: SimulationRunInput): PutResult {
    if (typeof simulation.trial !== "number" || !Number.isInteger(simulation.trial)) {
      throw new StoreInputError(
        `simulation "${simulation.id}" of task "${simulation.task_id}" has no trial number; the store keys simulations by (run, task, trial).`,
      );
    }
    const { messages, reward_info: rewardInfo, ...rest } = simulation;
    // Keep the record's own field order: placeholders where messages and reward_info sit.
    const record: Record<string, unknown> = {};
    for (const key of Object.keys(simulation)) {
      record[key] = key === "messages" || key === "reward_info" ? null : rest[key as keyof typeof rest];
    }
    const result = this.statement(
      `INSERT INTO simulations (run_id, domain, task_id, trial, id, termination_reason, reward, agent_cost,
           user_cost, duration, reward_info, messages, record, written_at)
         VALUES (@run_id, @domain, @task_id, @trial, @id, @termination_reason, @reward, @agent_cost,
           @user_cost, @duration, @reward_info, @messages, @record, @written_at)
         ON CONFLICT (run_id, domain, task_id, trial) DO UPDATE SET
           id = excluded.id, termination_reason = excluded.termination_reason, reward = excluded.reward,
           agent_cost = excluded.agent_cost, user_cost = excluded.user_cost, duration = excluded.duration,
           reward_info = excluded.reward_info, messages = excluded.messages, record = excluded.record,
           written_at = excluded.written_at
         WHERE simulations.termination_reason IN (${NON_EVALUABLE_SQL})`,
    ).run({
      run_id: runId,
      domain,
      task_id: simulation.task_id,
      trial: simulation.trial,
      id: simulation.id,
      termination_reason: simulation.termination_reason,
      reward: rewardInfo?.reward ?? null,
      agent_cost: simulation.agent_cost ?? null,
      user_cost: simulation.user_cost ?? null,
      duration: simulation.duration ?? null,
      // Floats the model or the task wrote as `2.0` stay floats (see python/py-float.ts).
      reward_info: "reward_info" in simulation ? stringifyKeepingPyFloats(rewardInfo ?? null) : null,
      messages: stringifyKeepingPyFloats(messages),
      record: JSON.stringify(record),
      written_at: this.now(),
    });
    return { written: result.changes > 0 };
  }

  /** A run's simulations in the order they were first written (optionally one domain's). */
  getSimulations(runId: string, options: { domain?: string } = {}): StoredSimulation[] {
    const rows = this.db
      .prepare(
        `SELECT run_id, domain, record, messages, reward_info FROM simulations
         WHERE run_id = ? AND (? IS NULL OR domain = ?) ORDER BY seq`,
      )
      .all(runId, options.domain ?? null, options.domain ?? null) as SimulationRow[];
    return rows.map(toStoredSimulation);
  }

  /** One simulation by its key, or undefined. */
  getSimulation(runId: string, domain: string, taskId: string, trial: number): StoredSimulation | undefined {
    const row = this.db
      .prepare(
        `SELECT run_id, domain, record, messages, reward_info FROM simulations
         WHERE run_id = ? AND domain = ? AND task_id = ? AND trial = ?`,
      )
      .get(runId, domain, taskId, trial) as SimulationRow | undefined;
    return row ? toStoredSimulation(row) : undefined;
  }

  /** What metrics need of a run's simulations, without loading their messages. */
  /** Record (or replace) the review of one simulation of a run. */
  putReview(runId: string, key: { domain: string; task_id: string; trial: number }, review: unknown): void {
    this.statement(
      `INSERT INTO reviews (run_id, domain, task_id, trial, review, written_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, domain, task_id, trial) DO UPDATE SET review = excluded.review, written_at = excluded.written_at`,
    ).run(runId, key.domain, key.task_id, key.trial, JSON.stringify(review), this.now());
  }

  /** The reviews of a run's simulations. */
  reviews(runId: string): StoredReview[] {
    const rows = this.statement(
      "SELECT domain, task_id, trial, review FROM reviews WHERE run_id = ? ORDER BY domain, task_id, trial",
    ).all(runId) as Array<{ domain: string; task_id: string; trial: number; review: string }>;
    return rows.map((r) => ({ ...r, review: JSON.parse(r.review) as unknown }));
  }

  // -- imported files --------------------------------------------------------------------------

  recordImport(sha256: string, runId: string): void {
    this.statement("INSERT OR IGNORE INTO imported_files (sha256, run_id, imported_at) VALUES (?, ?, ?)").run(
      sha256,
      runId,
      this.now(),
    );
  }

  importedAs(sha256: string): string[] {
    return (
      this.statement("SELECT run_id FROM imported_files WHERE sha256 = ? ORDER BY imported_at, run_id").all(
        sha256,
      ) as Array<{ run_id: string }>
    ).map((row) => row.run_id);
  }

  scoredSimulations(runId: string): ScoredSimulation[] {
    const rows = this.db
      .prepare(
        `SELECT domain, task_id, trial, termination_reason, reward_info, agent_cost, user_cost, duration
         FROM simulations WHERE run_id = ? ORDER BY seq`,
      )
      .all(runId) as Array<Omit<ScoredSimulation, "reward_info"> & { reward_info: string | null }>;
    return rows.map((r) => ({ ...r, reward_info: parseJson(r.reward_info) }));
  }
}

const RUN_SELECT = `
  SELECT runs.*,
    (SELECT COUNT(*) FROM simulations s WHERE s.run_id = runs.id) AS simulation_count,
    (SELECT group_concat(domain, ',') FROM (
       SELECT domain FROM run_tasks t WHERE t.run_id = runs.id
       UNION SELECT domain FROM simulations s WHERE s.run_id = runs.id ORDER BY 1)) AS domains
  FROM runs`;

function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: RunStatusSchema.catch("failed").parse(row.status),
    label: row.label,
    numTrials: row.num_trials,
    config: parseJson<Json>(row.config) ?? {},
    info: parseJson<Json>(row.info),
    timestamp: row.timestamp,
    extra: parseJson<Json>(row.extra),
    domains: row.domains ? row.domains.split(",") : [],
    simulationCount: row.simulation_count,
  };
}

function toStoredSimulation(row: SimulationRow): StoredSimulation {
  const simulation = JSON.parse(row.record) as Record<string, unknown>;
  if ("messages" in simulation) simulation.messages = parseJsonKeepingPyFloats(row.messages);
  if ("reward_info" in simulation)
    simulation.reward_info = row.reward_info === null ? null : parseJsonKeepingPyFloats(row.reward_info);
  return { runId: row.run_id, domain: row.domain, simulation: simulation as SimulationRunInput };
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
