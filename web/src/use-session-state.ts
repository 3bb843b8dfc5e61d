import { useEffect, useState } from "react";
import type { z } from "zod";

/**
 * State kept for this tab under `key` (sessionStorage): a page left and come back to with Back opens
 * as it was. What is read back is checked with `schema`; anything else (another version's shape, a
 * hand edit) falls back to `initial`.
 */
export function useSessionState<T>(key: string, schema: z.ZodType<T>, initial: T): [T, (value: T) => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      const stored = sessionStorage.getItem(key);
      if (stored === null) return initial;
      const parsed = schema.safeParse(JSON.parse(stored));
      return parsed.success ? parsed.data : initial;
    } catch {
      return initial; // storage off (private mode) or unreadable: the page works without it
    }
  });
  useEffect(() => {
    try {
      sessionStorage.setItem(key, JSON.stringify(value));
    } catch {
      // Storage full or off: nothing is remembered, nothing breaks.
    }
  }, [key, value]);
  return [value, setValue];
}
