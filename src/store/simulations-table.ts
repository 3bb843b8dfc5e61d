import type {
  PutResult,
  ScoredSimulationRecord,
  StoredSimulation,
  StoredSimulationRecord,
} from "../core/run-store.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import type { StoreDatabase } from "./database.js";
import { StoreInputError } from "./store-errors.js";

/** {@link NON_EVALUABLE_TERMINATIONS} as an SQL list, for `termination_reason IN (…)`. */
export const NON_EVALUABLE_SQL = [...NON_EVALUABLE_TERMINATIONS].map((r) => `'${r}'`).join(", ");

interface SimulationRow {
  run_id: string;
  domain: string;
  record: string;
  messages: string;
  reward_info: string | null;
}

function toStoredSimulation(row: SimulationRow): StoredSimulation {
  const simulation = JSON.parse(row.record) as Record<string, unknown>;
  if ("messages" in simulation) simulation.messages = parseJsonKeepingPyFloats(row.messages);
  if ("reward_info" in simulation)
    simulation.reward_info = row.reward_info === null ? null : parseJsonKeepingPyFloats(row.reward_info);
  return { runId: row.run_id, domain: row.domain, simulation: simulation as StoredSimulationRecord };
}

/**
 * The `simulations` table: each finished conversation of a run, keyed by (run, domain, task, trial);
 * its messages and reward info kept apart from the rest of the record, so that scores read without them.
 */
export class SimulationsTable {
  readonly #db: StoreDatabase;

  constructor(db: StoreDatabase) {
    this.#db = db;
  }

  /**
   * Store one finished conversation, idempotently by (run, domain, task_id, trial): a new key is
   * inserted; an existing key is replaced only if it holds an infrastructure error (a retry's
   * result); an evaluable result already stored is kept and `written` is false.
   */
  put(runId: string, domain: string, simulation: StoredSimulationRecord): PutResult {
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
    const result = this.#db
      .statement(
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
      )
      .run({
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
        written_at: this.#db.now(),
      });
    return { written: result.changes > 0 };
  }

  /** A run's simulations in the order they were first written (optionally one domain's). */
  list(runId: string, options: { domain?: string } = {}): StoredSimulation[] {
    const rows = this.#db
      .statement(
        `SELECT run_id, domain, record, messages, reward_info FROM simulations
         WHERE run_id = ? AND (? IS NULL OR domain = ?) ORDER BY seq`,
      )
      .all(runId, options.domain ?? null, options.domain ?? null) as SimulationRow[];
    return rows.map(toStoredSimulation);
  }

  /** One simulation by its key, or undefined. */
  get(runId: string, domain: string, taskId: string, trial: number): StoredSimulation | undefined {
    const row = this.#db
      .statement(
        `SELECT run_id, domain, record, messages, reward_info FROM simulations
         WHERE run_id = ? AND domain = ? AND task_id = ? AND trial = ?`,
      )
      .get(runId, domain, taskId, trial) as SimulationRow | undefined;
    return row ? toStoredSimulation(row) : undefined;
  }

  /** What metrics need of a run's simulations, without loading their messages. */
  scored(runId: string): ScoredSimulationRecord[] {
    const rows = this.#db
      .statement(
        `SELECT domain, task_id, trial, termination_reason, reward_info, agent_cost, user_cost, duration
         FROM simulations WHERE run_id = ? ORDER BY seq`,
      )
      .all(runId) as Array<Omit<ScoredSimulationRecord, "reward_info"> & { reward_info: string | null }>;
    return rows.map((r) => ({
      ...r,
      reward_info:
        r.reward_info === null ? null : (JSON.parse(r.reward_info) as ScoredSimulationRecord["reward_info"]),
    }));
  }
}
