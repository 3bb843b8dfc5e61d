import { toPlainJson, type CollectionChanges, type DbChanges } from "../../env/db-changes.js";
import { deepEqual } from "../../env/set-state.js";
import { TABLE_NAMES, type BankingDb } from "./db.js";

/**
 * What changed between two states of the database, table by table: records changed, added and removed
 * (full records after), plus `changed_keys.notes` when a table's note changed. Unchanged tables are
 * left out (τ²'s gold-replay `final`).
 */
export function diffBankingDb(before: BankingDb, after: BankingDb): DbChanges {
  const changes: DbChanges = {};
  for (const name of TABLE_NAMES) {
    const old = before[name];
    const now = after[name];
    if (old === now) continue;
    const entry: CollectionChanges & { changed_keys?: Record<string, unknown> } = {
      changed: {},
      added: {},
      removed: [],
    };
    let changed = false;
    if (old.data !== now.data) {
      for (const [id, record] of now.data) {
        const previous = old.data.get(id);
        if (previous === undefined) entry.added[id] = toPlainJson(record);
        else if (previous !== record && !deepEqual(previous, record)) entry.changed[id] = toPlainJson(record);
      }
      for (const id of old.data.keys()) if (!now.data.has(id)) entry.removed.push(id);
      changed =
        Object.keys(entry.changed).length + Object.keys(entry.added).length + entry.removed.length > 0;
    }
    if (old.notes !== now.notes) {
      entry.changed_keys = { notes: now.notes };
      changed = true;
    }
    if (changed) changes[name] = entry;
  }
  return changes;
}
