import { recordById, leafDifferences, toPlainJson, type DbChanges } from "../env/db-diff.js";
import type { FieldChange, RecordChange, WorldRecord } from "./api-schemas.js";

/** Leaf-level differences between two values, with dotted paths (an absent record as an empty one). */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  return leafDifferences(before, after).map(({ path, a, b }) => ({
    path,
    before: a ?? null,
    after: b ?? null,
  }));
}

/**
 * The orchestrator's record-level changes, field by field: each changed record is compared with
 * its state in `beforeDb` (the world before the change).
 */
export function recordChanges(beforeDb: unknown, changes: DbChanges): RecordChange[] {
  const before = (beforeDb ?? {}) as Record<string, unknown>;
  const out: RecordChange[] = [];
  for (const [collection, change] of Object.entries(changes)) {
    if ("changed" in change) {
      for (const id of Object.keys(change.changed)) {
        const old = recordById(before[collection], id);
        out.push({ collection, id, kind: "changed", fields: fieldChanges(old, change.changed[id]) });
      }
      for (const id of Object.keys(change.added)) {
        out.push({ collection, id, kind: "added", fields: fieldChanges(undefined, change.added[id]) });
      }
      for (const id of change.removed) {
        const old = recordById(before[collection], id);
        out.push({ collection, id, kind: "removed", fields: fieldChanges(old, undefined) });
      }
    } else if ("changed_keys" in change) {
      // A plain top-level record (e.g. telecom's `device`): each changed key is a field of it.
      const record = (before[collection] ?? {}) as Record<string, unknown>;
      for (const key of Object.keys(change.changed_keys)) {
        out.push({
          collection,
          id: key,
          kind: "changed",
          fields: fieldChanges(record[key], change.changed_keys[key]),
        });
      }
      for (const key of change.removed_keys) {
        out.push({ collection, id: key, kind: "removed", fields: [] });
      }
    } else {
      out.push({ collection, id: collection, kind: "added", fields: fieldChanges(undefined, change.value) });
    }
  }
  return out;
}

/** Each record a change left in a collection (changed or added), whole, as the change left it. */
export function currentRecords(changes: DbChanges): WorldRecord[] {
  const out: WorldRecord[] = [];
  for (const [collection, change] of Object.entries(changes)) {
    if (!("changed" in change)) continue;
    for (const [id, record] of [...Object.entries(change.changed), ...Object.entries(change.added)])
      out.push({ collection, id, record });
  }
  return out;
}

/**
 * The records of a database a tool call names: each of its string arguments that is the id of a
 * record in one of the database's collections (`reservation_id: "EHGLP3"` → reservations.EHGLP3),
 * whole, as plain JSON.
 */
export function recordsNamedBy(db: unknown, args: Readonly<Record<string, unknown>>): WorldRecord[] {
  if (db === null || typeof db !== "object") return [];
  const ids = [...new Set(Object.values(args).filter((v): v is string => typeof v === "string"))];
  const out: WorldRecord[] = [];
  for (const [collection, value] of Object.entries(db)) {
    for (const id of ids) {
      const record = recordById(value, id);
      if (record !== undefined) out.push({ collection, id, record: toPlainJson(record) });
    }
  }
  return out;
}
