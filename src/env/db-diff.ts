import {
  toPlainJson,
  type CollectionChanges,
  type DbChanges,
  type FieldChanges,
  type NewField,
} from "./db-changes.js";
import { deepEqual } from "./set-state.js";

export { toPlainJson };

export type { CollectionChanges, FieldChanges, NewField, DbChanges };

/**
 * Records of a top-level DB value keyed by id: dicts by key (held as Maps, or as plain objects whose
 * values are all records, e.g. after `toPlainJson`), lists of records by their `*_id` field. A record
 * such as telecom's `device`, whose values are mostly scalars, is no collection.
 */
function asKeyedRecords(value: unknown): Map<string, unknown> | undefined {
  if (value instanceof Map) return value as Map<string, unknown>;
  if (isPlainRecord(value)) {
    const entries = Object.entries(value);
    return entries.every(([, v]) => isRecord(v)) ? new Map(entries) : undefined;
  }
  if (Array.isArray(value) && value.every(isRecord)) {
    const first = value[0] as Record<string, unknown> | undefined;
    const idKey = first ? Object.keys(first).find((k) => k.endsWith("_id")) : undefined;
    if (!first || !idKey) return value.length === 0 ? new Map() : undefined;
    return new Map(value.map((record) => [String((record as Record<string, unknown>)[idKey]), record]));
  }
  return undefined;
}

/**
 * What changed between two states of a database, collection by collection (record level), over the
 * top-level fields of the later state. Unchanged collections are left out. Values are plain JSON.
 */
export function diffDb(before: unknown, after: unknown): DbChanges {
  const changes: DbChanges = {};
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(a)) {
    if (!(key in b)) {
      changes[key] = { value: toPlainJson(a[key]) };
      continue;
    }
    const oldValue = b[key];
    const newValue = a[key];
    if (oldValue === newValue || deepEqual(oldValue, newValue)) continue;
    const oldRecords = asKeyedRecords(oldValue);
    const newRecords = asKeyedRecords(newValue);
    if (oldRecords && newRecords) {
      const entry: CollectionChanges = { changed: {}, added: {}, removed: [] };
      for (const [id, record] of newRecords) {
        if (!oldRecords.has(id)) entry.added[id] = toPlainJson(record);
        else if (!deepEqual(oldRecords.get(id), record)) entry.changed[id] = toPlainJson(record);
      }
      for (const id of oldRecords.keys()) if (!newRecords.has(id)) entry.removed.push(id);
      changes[key] = entry;
    } else if (isPlainRecord(oldValue) && isPlainRecord(newValue)) {
      const entry: FieldChanges = { changed_keys: {}, removed_keys: [] };
      for (const [k, v] of Object.entries(newValue)) {
        if (!deepEqual(oldValue[k], v)) entry.changed_keys[k] = toPlainJson(v);
      }
      for (const k of Object.keys(oldValue)) if (!(k in newValue)) entry.removed_keys.push(k);
      changes[key] = entry;
    } else {
      changes[key] = { changed_keys: { [key]: toPlainJson(newValue) }, removed_keys: [] };
    }
  }
  return changes;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !(value instanceof Map);
}

/** A record: an object that is not a list (a plain object or a Map). */
function isRecord(value: unknown): value is object {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** One field that differs between the predicted and the gold world. */
export interface FieldDifference {
  /** Path inside the record, e.g. `payment_methods.gift_card_1.amount`. */
  path: string;
  predicted: unknown;
  gold: unknown;
}

/** Record-level comparison of a predicted database against the gold one. */
export interface RecordDiff {
  collection: string;
  id: string;
  kind: "changed" | "only_predicted" | "only_gold";
  fields: FieldDifference[];
}

/**
 * Every record that differs between predicted and gold databases, field by field. Takes the databases
 * as they are (Maps and all): records the two share are skipped by identity, and only what differs is
 * turned into plain JSON.
 */
export function compareDbs(predicted: unknown, gold: unknown): RecordDiff[] {
  const diffs: RecordDiff[] = [];
  const p = (predicted ?? {}) as Record<string, unknown>;
  const g = (gold ?? {}) as Record<string, unknown>;
  for (const collection of new Set([...Object.keys(g), ...Object.keys(p)])) {
    const pv = p[collection];
    const gv = g[collection];
    if (pv === gv || deepEqual(pv, gv)) continue;
    const pr = recordsOf(pv);
    const gr = recordsOf(gv);
    if (pr && gr) {
      for (const [id, record] of pr) {
        if (!gr.has(id)) diffs.push({ collection, id, kind: "only_predicted", fields: [] });
        else if (!deepEqual(record, gr.get(id))) {
          diffs.push({ collection, id, kind: "changed", fields: fieldDifferences(record, gr.get(id)) });
        }
      }
      for (const id of gr.keys())
        if (!pr.has(id)) diffs.push({ collection, id, kind: "only_gold", fields: [] });
    } else {
      diffs.push({ collection, id: "", kind: "changed", fields: fieldDifferences(pv, gv) });
    }
  }
  return diffs;
}

/** `asKeyedRecords` of the value's plain JSON: a Map is a collection only when all its values are records. */
function recordsOf(value: unknown): Map<string, unknown> | undefined {
  if (value instanceof Map && ![...(value as Map<string, unknown>).values()].every(isRecord))
    return undefined;
  return asKeyedRecords(value);
}

/** One record of a top-level DB value by its id, as {@link diffDb} keys records; undefined when absent. */
export function recordById(collection: unknown, id: string): unknown {
  return asKeyedRecords(collection)?.get(id);
}

/** A leaf at which two values differ, with its dotted path; leaves are plain JSON. */
export interface LeafDifference {
  path: string;
  a: unknown;
  b: unknown;
}

/**
 * Leaf-level differences between two DB values (Maps or plain JSON): objects are compared key by key
 * (a missing side counts as empty when the other holds an object, so an added or removed record shows
 * field by field); lists and scalars as a whole.
 */
export function leafDifferences(a: unknown, b: unknown, prefix = ""): LeafDifference[] {
  if (deepEqual(a, b)) return [];
  const ea = entriesOf(a === undefined && isRecord(b) ? {} : a);
  const eb = entriesOf(b === undefined && isRecord(a) ? {} : b);
  if (!ea || !eb) return [{ path: prefix || "(value)", a: toPlainJson(a), b: toPlainJson(b) }];
  const out: LeafDifference[] = [];
  for (const key of new Set([...ea.keys(), ...eb.keys()])) {
    out.push(...leafDifferences(ea.get(key), eb.get(key), prefix ? `${prefix}.${key}` : key));
  }
  return out;
}

function entriesOf(value: unknown): Map<string, unknown> | undefined {
  if (value instanceof Map)
    return new Map([...(value as Map<unknown, unknown>)].map(([k, v]) => [String(k), v]));
  return isPlainRecord(value) ? new Map(Object.entries(value)) : undefined;
}

function fieldDifferences(predicted: unknown, gold: unknown): FieldDifference[] {
  return leafDifferences(predicted, gold).map(({ path, a, b }) => ({ path, predicted: a, gold: b }));
}
