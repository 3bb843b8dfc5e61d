import { PyFloat } from "./py-float-value.js";
import { ANY_SHAPE, type PyShape } from "./py-shape.js";

/**
 * Python-compatible JSON text, byte for byte what τ²-bench's `json.dumps` prints: separators `", "` and
 * `": "`, `ensure_ascii`, floats through `repr` (`100.0`, `1e-05`), and the two ways τ² turns a value into
 * text:
 *
 * - `dump`: a pydantic model dumped in python mode and passed to `json.dumps(..., default=str)` — numbers
 *   stay numbers, datetimes print as `str(datetime)` (`2025-01-15 10:30:00`). Used for DB hashes
 *   (with `sortKeys`).
 * - `tool`: what the environment does with a tool's return value: models are dumped as above, but every
 *   int, float and bool *outside* a model becomes its Python string (`3` → `"3"`, `True` → `"True"`).
 */
export interface PyJsonOptions {
  mode: "dump" | "tool";
  sortKeys?: boolean;
}

/** `repr(float)` of CPython: shortest round-trip digits, exponent outside [1e-4, 1e16). */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  let text: string;
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      const intPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
      const fracPart = digits.slice(exponent + 1);
      text = `${intPart}.${fracPart || "0"}`;
    } else {
      text = `0.${"0".repeat(-exponent - 1)}${digits}`;
    }
  } else {
    const fraction = digits.slice(1);
    const sign = exponent < 0 ? "-" : "+";
    text = `${digits[0]}${fraction ? `.${fraction}` : ""}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return negative ? `-${text}` : text;
}

/** `str()` of a Python number held in a JS number: ints without a point, floats through `repr`. */
export function pyNumberStr(value: number, shape: PyShape = ANY_SHAPE): string {
  if (shape.kind === "float") return pyFloatRepr(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return value.toFixed(0);
  return pyFloatRepr(value);
}

const NON_ASCII = /[\u007f-\uffff]/g;

/** A JSON string literal as Python writes it with `ensure_ascii=True`. */
export function pyJsonString(value: string): string {
  const json = JSON.stringify(value);
  return NON_ASCII.test(json)
    ? json.replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : json;
}

/** `str()` of a non-finite float (`nan`, `inf`, `-inf`); `json.dumps` writes them `NaN`, `Infinity`. */
function pyNonFiniteStr(value: number): string {
  return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
}

/** Python `str(datetime)` of an ISO string: the `T` separator becomes a space. */
function pyDateTimeStr(iso: string): string {
  return iso.length > 10 && iso[10] === "T" ? `${iso.slice(0, 10)} ${iso.slice(11)}` : iso;
}

/** Serialise `value`, shaped like `shape`, the way τ² (Python) does. */
export function toPyJson(value: unknown, shape: PyShape, options: PyJsonOptions): string {
  return write(value, shape, options.mode === "dump", options.sortKeys === true);
}

function resolve(shape: PyShape): PyShape {
  return shape.kind === "lazy" ? shape.resolve() : shape;
}

function write(value: unknown, rawShape: PyShape, inModel: boolean, sortKeys: boolean): string {
  if (value === null || value === undefined) return "null";
  let shape = resolve(rawShape);
  if (shape.kind === "union") shape = pickUnionOption(shape.options, value);
  switch (typeof value) {
    case "string":
      if (shape.kind === "datetime" || shape.kind === "date") {
        return pyJsonString(inModel ? pyDateTimeStr(value) : value);
      }
      return pyJsonString(value);
    case "number":
      if (!inModel) return `"${pyNumberStr(value, shape)}"`;
      if (!Number.isFinite(value)) return pyFloatRepr(value);
      return pyNumberStr(value, shape);
    case "boolean":
      if (!inModel) return value ? '"True"' : '"False"';
      return value ? "true" : "false";
    case "object":
      break;
    default:
      return pyJsonString(String(value));
  }
  if (value instanceof PyFloat) {
    const text = pyFloatRepr(value.value);
    return inModel ? text : `"${Number.isFinite(value.value) ? text : pyNonFiniteStr(value.value)}"`;
  }
  if (Array.isArray(value)) {
    const item = shape.kind === "list" ? shape.item : ANY_SHAPE;
    if (value.length === 0) return "[]";
    return `[${value.map((v) => write(v, item, inModel, sortKeys)).join(", ")}]`;
  }
  if (shape.kind === "model") {
    return cached(shape.cache, value, sortKeys && inModel, () => writeModel(value, shape, sortKeys));
  }
  const valueShape = shape.kind === "dict" ? shape.value : ANY_SHAPE;
  const writeDict = () => {
    const entries =
      value instanceof Map ? [...(value as Map<string, unknown>)] : Object.entries(value as object);
    if (entries.length === 0) return "{}";
    if (sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${pyJsonString(String(k))}: ${write(v, valueShape, inModel, sortKeys)}`).join(", ")}}`;
  };
  return shape.kind === "dict" ? cached(shape.cache, value, sortKeys && inModel, writeDict) : writeDict();
}

function writeModel(value: object, shape: Extract<PyShape, { kind: "model" }>, sortKeys: boolean): string {
  const record = value as Record<string, unknown>;
  const fields = sortKeys ? sortedFields(shape) : shape.fields;
  if (fields.length === 0) return "{}";
  return `{${fields.map(([name, fieldShape]) => `${pyJsonString(name)}: ${write(record[name], fieldShape, true, sortKeys)}`).join(", ")}}`;
}

const sortedFieldCache = new WeakMap<object, Array<[string, PyShape]>>();
function sortedFields(shape: Extract<PyShape, { kind: "model" }>): Array<[string, PyShape]> {
  let sorted = sortedFieldCache.get(shape);
  if (!sorted) {
    sorted = [...shape.fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    sortedFieldCache.set(shape, sorted);
  }
  return sorted;
}

/**
 * Memoise the canonical (sorted, dumped) text of frozen records: worlds share unchanged records with
 * the base DB, so hashing a world re-serialises only what changed.
 */
function cached(cache: WeakMap<object, string>, value: object, enabled: boolean, make: () => string): string {
  if (!enabled || !Object.isFrozen(value)) return make();
  let text = cache.get(value);
  if (text === undefined) {
    text = make();
    cache.set(value, text);
  }
  return text;
}

function pickUnionOption(options: PyShape[], value: unknown): PyShape {
  const resolved = options.map(resolve);
  const fits = (s: PyShape): boolean => {
    switch (typeof value) {
      case "string":
        return s.kind === "str" || s.kind === "datetime" || s.kind === "date";
      case "number":
        return Number.isInteger(value) ? s.kind === "int" || s.kind === "float" : s.kind === "float";
      case "boolean":
        return s.kind === "bool";
      default:
        if (Array.isArray(value)) return s.kind === "list";
        if (s.kind === "model") {
          const keys = value instanceof Map ? [...value.keys()] : Object.keys(value as object);
          return keys.every((k) => s.fields.some(([name]) => name === k));
        }
        return s.kind === "dict";
    }
  };
  return resolved.find(fits) ?? ANY_SHAPE;
}

/**
 * Stream the canonical (dumped, key-sorted) text of a database in pieces: the root model and its
 * collections are emitted entry by entry, records come from their memoised text. Hashing the pieces
 * avoids building one multi-megabyte string per hash.
 */
export function emitCanonical(value: unknown, rawShape: PyShape, emit: (piece: string) => void): void {
  const shape = resolve(rawShape);
  if (shape.kind !== "model" || value === null || typeof value !== "object") {
    emit(toPyJson(value, shape, { mode: "dump", sortKeys: true }));
    return;
  }
  const record = value as Record<string, unknown>;
  emit("{");
  sortedFields(shape).forEach(([name, fieldShape], index) => {
    emit(`${index > 0 ? ", " : ""}${pyJsonString(name)}: `);
    const field = record[name];
    const resolved = resolve(fieldShape);
    if (resolved.kind !== "dict" || field === null || typeof field !== "object") {
      emit(toPyJson(field, resolved, { mode: "dump", sortKeys: true }));
      return;
    }
    emit("{");
    for (const piece of dictPieces(field, resolved.value)) emit(piece);
    emit("}");
  });
  emit("}");
}

const dictPiecesCache = new WeakMap<PyShape, WeakMap<object, string[]>>();
/**
 * The canonical pieces of a table, one per entry (`"key": {...}` with its separator); kept for frozen
 * tables, so an unchanged table costs nothing to emit and gives the same strings every time.
 */
function dictPieces(dict: object, valueShape: PyShape): string[] {
  const frozen = Object.isFrozen(dict);
  let byDict = dictPiecesCache.get(valueShape);
  const known = frozen ? byDict?.get(dict) : undefined;
  if (known) return known;
  const pieces = sortedEntries(dict).map(
    ([key, item], i) =>
      `${i > 0 ? ", " : ""}${pyJsonString(key)}: ${toPyJson(item, valueShape, { mode: "dump", sortKeys: true })}`,
  );
  if (frozen) {
    if (!byDict) dictPiecesCache.set(valueShape, (byDict = new WeakMap()));
    byDict.set(dict, pieces);
  }
  return pieces;
}

const sortedEntriesCache = new WeakMap<object, Array<[string, unknown]>>();
/** A dict's entries sorted by key; kept for frozen dicts (a world's unchanged tables), never changed. */
function sortedEntries(dict: object): Array<[string, unknown]> {
  const frozen = Object.isFrozen(dict);
  const known = frozen ? sortedEntriesCache.get(dict) : undefined;
  if (known) return known;
  const entries = dict instanceof Map ? [...(dict as Map<string, unknown>)] : Object.entries(dict);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (frozen) sortedEntriesCache.set(dict, entries);
  return entries;
}

/**
 * Whether two databases have the same canonical text — what equal τ² hashes mean — without hashing:
 * shared (copy-on-write) parts are equal by identity, the rest is compared record by record.
 */
export function sameCanonical(a: unknown, b: unknown, rawShape: PyShape): boolean {
  if (a === b) return true;
  const shape = resolve(rawShape);
  const text = (value: unknown, s: PyShape) => toPyJson(value, s, { mode: "dump", sortKeys: true });
  if (shape.kind !== "model" || a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return text(a, shape) === text(b, shape);
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const [name, fieldShape] of shape.fields) {
    const fa = ra[name];
    const fb = rb[name];
    if (fa === fb) continue;
    const resolved = resolve(fieldShape);
    if (
      resolved.kind !== "dict" ||
      fa === null ||
      fb === null ||
      typeof fa !== "object" ||
      typeof fb !== "object"
    ) {
      if (text(fa, resolved) !== text(fb, resolved)) return false;
      continue;
    }
    const ea = fa instanceof Map ? (fa as Map<string, unknown>) : new Map(Object.entries(fa));
    const eb = fb instanceof Map ? (fb as Map<string, unknown>) : new Map(Object.entries(fb));
    if (ea.size !== eb.size) return false;
    for (const [key, item] of ea) {
      if (!eb.has(key)) return false;
      const other = eb.get(key);
      if (item !== other && text(item, resolved.value) !== text(other, resolved.value)) return false;
    }
  }
  return true;
}
