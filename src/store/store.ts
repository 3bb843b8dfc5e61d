import type {
  NewRun,
  PutResult,
  RunProgressCounts,
  RunRecord,
  RunStore,
  RunUpdate,
  ScoredSimulationRecord,
  StoredReview,
  StoredSimulation,
  StoredSimulationRecord,
  StoredTaskRecord,
} from "../core/run-store.js";
import { attachDatabase, StoreDatabase, type StoreOptions } from "./database.js";
import { ImportedFilesTable } from "./imported-files-table.js";
import { ReviewsTable } from "./reviews-table.js";
import { RunTasksTable } from "./run-tasks-table.js";
import { RunsTable } from "./runs-table.js";
import { SimulationsTable } from "./simulations-table.js";

/**
 * The embedded SQLite store of runs, their tasks and simulations (WAL journal, one transaction per
 * write): core's {@link RunStore} over one module per table (`runs-table.ts`, `run-tasks-table.ts`,
 * `simulations-table.ts`, `reviews-table.ts`, `imported-files-table.ts`). The job queue, turn
 * checkpoints, model calls, notes and playground conversations are built over an open `Store`
 * (`new SqliteJobQueue(store)`, …). Each simulation is keyed by (run, domain, task, trial) and written
 * idempotently: the first evaluable result for a key stays; an infrastructure-error result is replaced
 * by a later attempt.
 *
 * @example
 * const store = Store.open(".passk/passk.db");
 * const run = store.createRun({ numTrials: 4, config: { agent: "openai:gpt-4.1" } });
 * store.putSimulation(run.id, "airline", simulation);
 */
export class Store implements RunStore {
  readonly file: string;
  readonly #db: StoreDatabase;
  readonly #runs: RunsTable;
  readonly #tasks: RunTasksTable;
  readonly #simulations: SimulationsTable;
  readonly #reviews: ReviewsTable;
  readonly #imports: ImportedFilesTable;

  private constructor(db: StoreDatabase) {
    this.file = db.file;
    this.#db = db;
    this.#runs = new RunsTable(db);
    this.#tasks = new RunTasksTable(db);
    this.#simulations = new SimulationsTable(db);
    this.#reviews = new ReviewsTable(db);
    this.#imports = new ImportedFilesTable(db);
    attachDatabase(this, db);
  }

  /** Open (and, unless `create: false`, create) the store at `file`, migrating an older schema. */
  static open(file: string, options: StoreOptions = {}): Store {
    return new Store(StoreDatabase.open(file, options));
  }

  close(): void {
    this.#db.close();
  }

  /**
   * SQLite's quick integrity check of the whole file (a linear scan, about a second per gigabyte):
   * throws a StoreDamagedError naming the problems, so a damaged store is said to be damaged by the
   * commands that only list it, not only by those that happen to read the damaged page.
   */
  checkIntegrity(): void {
    this.#db.checkIntegrity();
  }

  /** Run `fn` in one immediate (write-locking) transaction. */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn);
  }

  /** The schema version of the open store. */
  schemaVersion(): number {
    return this.#db.schemaVersion();
  }

  /** The store's clock as an ISO timestamp, as its rows record it. */
  now(): string {
    return this.#db.now();
  }

  // -- runs ------------------------------------------------------------------------------------

  createRun(run: NewRun = {}): RunRecord {
    return this.#runs.create(run);
  }

  updateRun(id: string, update: RunUpdate): RunRecord {
    return this.#runs.update(id, update);
  }

  /** A run by id or unique id prefix. */
  getRun(idOrPrefix: string): RunRecord {
    return this.#runs.get(idOrPrefix);
  }

  /** Runs, newest first. */
  listRuns(): RunRecord[] {
    return this.#runs.list();
  }

  /** Delete a run with its tasks, simulations, jobs and everything else stored for it. */
  deleteRun(idOrPrefix: string): { id: string; simulations: number } {
    return this.#runs.delete(idOrPrefix);
  }

  runProgress(runId: string, since: string | null): RunProgressCounts {
    return this.#runs.progress(runId, since);
  }

  // -- tasks -----------------------------------------------------------------------------------

  /** Record the task definitions of a run (for export and scoring); re-putting a task replaces it. */
  putTasks(runId: string, domain: string, tasks: readonly StoredTaskRecord[]): void {
    this.#tasks.put(runId, domain, tasks);
  }

  /** A run's tasks in the order they were put, optionally of one domain. */
  getTasks(runId: string, domain?: string): Array<{ domain: string; task: StoredTaskRecord }> {
    return this.#tasks.get(runId, domain);
  }

  // -- simulations -----------------------------------------------------------------------------

  putSimulation(runId: string, domain: string, simulation: StoredSimulationRecord): PutResult {
    return this.#simulations.put(runId, domain, simulation);
  }

  /** A run's simulations in the order they were first written (optionally one domain's). */
  getSimulations(runId: string, options: { domain?: string } = {}): StoredSimulation[] {
    return this.#simulations.list(runId, options);
  }

  /** One simulation by its key, or undefined. */
  getSimulation(runId: string, domain: string, taskId: string, trial: number): StoredSimulation | undefined {
    return this.#simulations.get(runId, domain, taskId, trial);
  }

  /** What metrics need of a run's simulations, without loading their messages. */
  scoredSimulations(runId: string): ScoredSimulationRecord[] {
    return this.#simulations.scored(runId);
  }

  // -- reviews ---------------------------------------------------------------------------------

  putReview(runId: string, key: { domain: string; task_id: string; trial: number }, review: unknown): void {
    this.#reviews.put(runId, key, review);
  }

  reviews(runId: string): StoredReview[] {
    return this.#reviews.list(runId);
  }

  // -- imported files --------------------------------------------------------------------------

  recordImport(sha256: string, runId: string): void {
    this.#imports.record(sha256, runId);
  }

  importedAs(sha256: string): string[] {
    return this.#imports.runsOf(sha256);
  }
}
