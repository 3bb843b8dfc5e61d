import { z } from "zod";
import { PyException } from "../../python/py-exception.js";
import { isPyFloat } from "../../python/py-float.js";
import { PyFloat } from "../../python/py-float-value.js";

/**
 * τ² banking_knowledge's `TransactionalDB`: tables of free-form records, each `{data: {id: record},
 * notes}`. Records are Python dicts with no schema, so their values are free-form Python values: strings,
 * booleans, null, ints (JS numbers), floats (`PyFloat`), lists and dicts (plain objects, or Maps when a key
 * looks like an array index). Key order is the file's, as Python's dicts keep it.
 */
export type PyRecord = Record<string, unknown>;

/** One table: records by id (a Map keeps ids like "123" in place) and a free-text note. */
export interface Table {
  data: Map<string, PyRecord>;
  notes: string;
}

/** The tables of the model, in its field order (absent ones start empty). */
export const TABLE_NAMES = [
  "users",
  "accounts",
  "debit_cards",
  "referrals",
  "credit_card_applications",
  "user_discoverable_tools",
  "user_discoverable_tool_calls",
  "verification_history",
  "credit_card_transaction_history",
  "cash_back_disputes",
  "bank_account_transaction_history",
  "credit_card_accounts",
  "agent_discoverable_tools",
  "task_config",
  "human_transfer_requests",
  "transaction_disputes",
  "credit_card_orders",
  "debit_card_orders",
  "credit_card_closure_reasons",
  "credit_card_account_flags",
  "credit_limit_increase_requests",
  "payment_history",
  "debit_card_disputes",
] as const;
export type TableName = (typeof TABLE_NAMES)[number];

export type BankingDb = Record<TableName, Table>;

/** Whether `name` is one of the model's tables (Python `getattr(db, name, None)` finds it). */
export function isTableName(name: unknown): name is TableName {
  return typeof name === "string" && (TABLE_NAMES as readonly string[]).includes(name);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Map)
    return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Free-form data as Python holds it: numbers written as floats (`2.0`, marked by the JSON readers, see
 * py-float.ts) and fractional numbers become `PyFloat`s; integral unmarked numbers stay ints. Returns
 * `value` itself when nothing in it changes, so records shared with the pristine database stay shared.
 */
export function asPythonValues(value: unknown): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item, index) => {
      const next = item === undefined ? item : convertAt(value, index, item);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (value instanceof Map) {
    let changed = false;
    const out = new Map<unknown, unknown>();
    for (const [key, item] of value as Map<unknown, unknown>) {
      const next = typeof item === "number" ? numberValue(item, false) : asPythonValues(item);
      if (next !== item) changed = true;
      out.set(key, next);
    }
    return changed ? out : value;
  }
  if (isPlainObject(value)) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      const next = convertAt(value, key, item);
      if (next !== item) changed = true;
      if (key === "__proto__")
        Object.defineProperty(out, key, {
          value: next,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[key] = next;
    }
    return changed ? out : value;
  }
  return value;
}

function convertAt(holder: object, key: string | number, item: unknown): unknown {
  if (typeof item === "number") return numberValue(item, isPyFloat(holder, key));
  return asPythonValues(item);
}

function numberValue(value: number, markedFloat: boolean): number | PyFloat {
  return markedFloat || !Number.isInteger(value) ? new PyFloat(value) : value;
}

/** A table of the file (`{data, notes}`); the records' values become Python values. */
const TableSchema = z.object({
  data: z.preprocess(
    (raw) => (raw instanceof Map ? raw : isPlainObject(raw) ? new Map(Object.entries(raw)) : raw),
    z.map(z.string(), z.custom<PyRecord>(isPlainObject, "a record (dict)")),
  ),
  notes: z.string().default(""),
});

const tableShape = Object.fromEntries(
  TABLE_NAMES.map((name) => [name, TableSchema.default({ data: new Map(), notes: "" })]),
) as Record<TableName, z.ZodDefault<typeof TableSchema>>;

/**
 * The database schema: every table of the model (absent ones empty), in the model's field order (DB
 * hashes sort keys, so order matters only for outputs). Unknown tables are dropped, as pydantic ignores
 * extra fields.
 */
export const BankingDbSchema = z.preprocess(
  asPythonValues,
  z.object(tableShape),
) as unknown as z.ZodType<BankingDb>;

/**
 * Python `dict.get` on a table (`db.<table>.data.get(id)`): keys other than strings are never there, and
 * a list or dict key raises Python's "unhashable type" TypeError.
 */
export function getRecord(db: BankingDb, table: TableName, id: unknown): PyRecord | undefined {
  if (typeof id === "string") return db[table].data.get(id);
  if (id !== null && typeof id === "object" && !(id instanceof PyFloat))
    throw new PyException(`unhashable type: '${Array.isArray(id) ? "list" : "dict"}'`, "TypeError");
  return undefined;
}

/** Python `record.get(key, default)`. */
export function field(record: PyRecord, key: string, fallback: unknown = null): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : fallback;
}

/**
 * τ² `add_to_db`: insert a record under a new id; false (nothing written) when the table is not one of the
 * model's or the id exists.
 */
export function addToDb(db: BankingDb, table: string, id: string, record: PyRecord): boolean {
  if (!isTableName(table)) return false;
  const data = db[table].data;
  if (data.has(id)) return false;
  data.set(id, record);
  return true;
}

/** τ² `update_record_in_db`: set fields of an existing record; false when there is none. */
export function updateRecord(db: BankingDb, table: TableName, id: unknown, updates: PyRecord): boolean {
  const record = getRecord(db, table, id);
  if (!record) return false;
  for (const [field, value] of Object.entries(updates)) record[field] = value;
  return true;
}
