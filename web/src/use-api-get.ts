import { useEffect, useState } from "react";
import { describeError } from "./api.js";

/** What a page shows of a request: `data` once it has arrived, `error` if it failed, both null while loading. */
export interface ApiGet<T> {
  data: T | null;
  error: string | null;
  /** The failure's API code (`run_not_found`…), to answer "not found" with a way back. */
  code: string | null;
  /** Load again (after a change). */
  reload: () => void;
}

/**
 * Load with `load` (a typed-client request checked by `answer`) for `key`: a new key loads afresh,
 * and nothing of the previous key's answer is shown.
 */
export function useApiGet<T>(key: string, load: (signal: AbortSignal) => Promise<T>): ApiGet<T> {
  const [answer, setAnswer] = useState<{
    key: string;
    data: T | null;
    error: string | null;
    code: string | null;
  }>();
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    load(abort.signal)
      .then((data) => {
        if (!abort.signal.aborted) setAnswer({ key, data, error: null, code: null });
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        const code =
          typeof error === "object" && error !== null && "code" in error ? String(error.code) : null;
        setAnswer({ key, data: null, error: describeError(error), code });
      });
    return () => abort.abort();
    // `load` is a new function on each render; the key says what it loads.
  }, [key, generation]);
  const reload = () => setGeneration((g) => g + 1);
  return answer?.key === key ? { ...answer, reload } : { data: null, error: null, code: null, reload };
}
