import { deepEqual } from "../env/set-state.js";
import { toPlainJson, type DbChanges } from "../evaluation/db-diff.js";
import type { FieldChange, RecordChange } from "./api-schemas.js";

/** One record of a top-level DB value: dict entries by key, lists of records by their `*_id` field. */
function recordOf(collection: unknown, id: string): unknown {
  if (collection instanceof Map) return collection.get(id);
  if (Array.isArray(collection)) {
    return collection.find((record: unknown) => {
      if (record === null || typeof record !== "object") return false;
      const entries = Object.entries(record as Record<string, unknown>);
      const idEntry = entries.find(([key]) => key.endsWith("_id"));
      return idEntry !== undefined && String(idEntry[1]) === id;
    });
  }
  if (collection !== null && typeof collection === "object")
    return (collection as Record<string, unknown>)[id];
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Leaf-level differences between two plain JSON values, with dotted paths. */
export function fieldChanges(before: unknown, after: unknown, prefix = ""): FieldChange[] {
  if (deepEqual(before, after)) return [];
  // An absent record (added or removed) is compared as an empty one, so its fields show one by one.
  const b = before === undefined && isObject(after) ? {} : before;
  const a = after === undefined && isObject(before) ? {} : after;
  if (isObject(b) && isObject(a)) {
    const out: FieldChange[] = [];
    for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
      out.push(...fieldChanges(b[key], a[key], prefix ? `${prefix}.${key}` : key));
    }
    return out;
  }
  return [{ path: prefix || "(value)", before: before ?? null, after: after ?? null }];
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
        const old = toPlainJson(recordOf(before[collection], id));
        out.push({ collection, id, kind: "changed", fields: fieldChanges(old, change.changed[id]) });
      }
      for (const id of Object.keys(change.added)) {
        out.push({ collection, id, kind: "added", fields: fieldChanges(undefined, change.added[id]) });
      }
      for (const id of change.removed) {
        const old = toPlainJson(recordOf(before[collection], id));
        out.push({ collection, id, kind: "removed", fields: fieldChanges(old, undefined) });
      }
    } else if ("changed_keys" in change) {
      for (const key of Object.keys(change.changed_keys)) {
        const old = toPlainJson(recordOf(before[collection], key));
        out.push({
          collection,
          id: key,
          kind: "changed",
          fields: fieldChanges(old, change.changed_keys[key]),
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
