import { markPyFloat } from "../python/py-float.js";
import { PyFloat } from "../python/py-float-value.js";

/** Changes to one top-level collection of a database (records keyed by id). */
export interface CollectionChanges {
  /** Records present in both whose content differs: id → full record after. */
  changed: Record<string, unknown>;
  added: Record<string, unknown>;
  removed: string[];
}

/** Changes to a top-level field that is not a collection (e.g. telecom `device`): changed sub-keys. */
export interface FieldChanges {
  changed_keys: Record<string, unknown>;
  removed_keys: string[];
}

/** A top-level field the earlier state did not have. */
export interface NewField {
  value: unknown;
}

/** What changed in a database, top-level field by field (the `final` of τ²'s gold-replay fixtures). */
export type DbChanges = Record<string, CollectionChanges | FieldChanges | NewField>;

/**
 * Plain JSON view of a DB value: Maps become objects (key order kept), and a free-form Python float
 * (`PyFloat`) becomes its number, marked as a float on its holder (so `stringifyKeepingPyFloats` writes
 * `100.0` back).
 */
export function toPlainJson(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) setPlain(out, String(k), v);
    return out;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((v, i) => setPlain(out, i, v));
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setPlain(out, k, v);
    return out;
  }
  return value;
}

function setPlain(holder: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  (holder as Record<string | number, unknown>)[key] = toPlainJson(value);
  if (value instanceof PyFloat && Number.isInteger(value.value)) markPyFloat(holder, key);
}
