import { z } from "zod";

function toMap(value: unknown): unknown {
  if (value instanceof Map || value === null || typeof value !== "object" || Array.isArray(value))
    return value;
  return new Map(Object.entries(value));
}

/**
 * A Python `dict[str, V]` in a database: held as a `Map`, so key order is the file's order even for
 * keys that look like integers (plain JS objects would move those first), which tool outputs expose.
 */
export function pyDict<V extends z.ZodType>(value: V) {
  return z.preprocess(toMap, z.map(z.string(), value));
}
