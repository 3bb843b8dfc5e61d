import { useEffect, useState } from "react";
import type { z } from "zod";
import { describeError, getJson } from "./api.js";

/**
 * GET `path` and check the answer against `schema`: `data` once it has arrived, `error` if it failed,
 * both null while loading. A new `path` loads afresh: nothing of the previous path's answer is shown.
 */
export function useApiGet<T extends z.ZodType>(
  path: string,
  schema: T,
): { data: z.infer<T> | null; error: string | null } {
  const [answer, setAnswer] = useState<{ path: string; data: z.infer<T> | null; error: string | null }>();
  useEffect(() => {
    const abort = new AbortController();
    getJson(path, schema, abort.signal)
      .then((data) => setAnswer({ path, data, error: null }))
      .catch((error: unknown) => {
        if (!abort.signal.aborted) setAnswer({ path, data: null, error: describeError(error) });
      });
    return () => abort.abort();
  }, [path, schema]);
  return answer?.path === path ? answer : { data: null, error: null };
}
