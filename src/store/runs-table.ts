import { randomBytes } from "node:crypto";
import { UnknownNameError } from "../core/errors.js";
import {
  RunStatusSchema,
  type NewRun,
  type RunProgressCounts,
  type RunRecord,
  type RunUpdate,
} from "../core/run-store.js";
import type { StoreDatabase } from "./database.js";
import { StoreInputError } from "./store-errors.js";

type Json = Record<string, unknown>;

/** `20261123-093012-a1b2`: sortable by creation time, unique enough for one user's runs. */
function newRunId(now: Date): string {
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

/** The `runs` table: a run's identity, status, configuration and τ² info (deleting one cascades). */
export class RunsTable {
  readonly #db: StoreDatabase;

  constructor(db: StoreDatabase) {
    this.#db = db;
  }

  create(run: NewRun = {}): RunRecord {
    const now = this.#db.now();
    const id = run.id ?? newRunId(this.#db.clock());
    const existing = this.#db.statement("SELECT 1 FROM runs WHERE id = ?").get(id);
    if (existing)
      throw new StoreInputError(`run "${id}" already exists in ${this.#db.file}; choose another id.`);
    this.#db
      .statement(
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
    return this.get(id);
  }

  update(id: string, update: RunUpdate): RunRecord {
    const runId = this.resolveId(id);
    const sets: string[] = ["updated_at = @updated_at"];
    const values: Record<string, unknown> = { id: runId, updated_at: this.#db.now() };
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
    this.#db.statement(`UPDATE runs SET ${sets.join(", ")} WHERE id = @id`).run(values);
    return this.get(runId);
  }

  /** A run by id or unique id prefix. */
  get(idOrPrefix: string): RunRecord {
    const id = this.resolveId(idOrPrefix);
    return toRunRecord(this.#db.statement(`${RUN_SELECT} WHERE runs.id = ?`).get(id) as RunRow);
  }

  /** Runs, newest first. */
  list(): RunRecord[] {
    return (
      this.#db.statement(`${RUN_SELECT} ORDER BY runs.created_at DESC, runs.id DESC`).all() as RunRow[]
    ).map(toRunRecord);
  }

  /** The full id of a run given its id or a unique prefix of it. */
  resolveId(idOrPrefix: string): string {
    const exact = this.#db.statement("SELECT id FROM runs WHERE id = ?").get(idOrPrefix) as
      { id: string } | undefined;
    if (exact) return exact.id;
    const matches = (
      this.#db
        .statement("SELECT id FROM runs WHERE substr(id, 1, length(?)) = ? ORDER BY id")
        .all(idOrPrefix, idOrPrefix) as { id: string }[]
    ).map((r) => r.id);
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new StoreInputError(
        `run id prefix "${idOrPrefix}" is ambiguous (matches ${matches.join(", ")}); give more characters.`,
      );
    }
    const known = (
      this.#db.statement("SELECT id FROM runs ORDER BY created_at DESC").all() as { id: string }[]
    ).map((r) => r.id);
    throw new UnknownNameError(
      "run",
      idOrPrefix,
      known,
      `List them with \`passk runs list --store ${this.#db.file}\`.`,
    );
  }

  /** Delete a run; its tasks, simulations, jobs and the rest go with it (foreign keys cascade). */
  delete(idOrPrefix: string): { id: string; simulations: number } {
    const id = this.resolveId(idOrPrefix);
    return this.#db.transaction(() => {
      const { count } = this.#db
        .statement("SELECT COUNT(*) AS count FROM simulations WHERE run_id = ?")
        .get(id) as { count: number };
      this.#db.statement("DELETE FROM runs WHERE id = ?").run(id);
      return { id, simulations: count };
    });
  }

  /**
   * How far a run has come: its (task, trial)s planned (the jobs the runner queued — they grow with
   * each adaptive round and stay across resumes — plus stored simulations no job asked for, such as
   * an imported file's), those stored, those stored since `since`, and its last sign of life (the run
   * record, a stored simulation, or a job claimed or its lease renewed).
   */
  progress(runId: string, since: string | null): RunProgressCounts {
    const row = this.#db
      .statement(
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
      )
      .get({ id: runId, since: since ?? "" }) as {
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
}
