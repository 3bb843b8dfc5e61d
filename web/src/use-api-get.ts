import { useEffect, useState } from "react";
import { describeError, untilReachable } from "./api.js";

/** What a page shows of a request: `data` once it has arrived, `error` if it failed, both null while loading. */
export interface ApiGet<T> {
  data: T | null;
  error: string | null;
  /** The failure's API code (`run_not_found`…), to answer "not found" with a way back. */
  code: string | null;
  /** Load again (after a change). */
  reload: () => void;
  /** Why the last refresh of a polled answer failed (the previous answer stays shown); null when it did not. */
  refreshError: string | null;
}

/** The longest wait between two refreshes after failures (each failure doubles the wait). */
const MAX_POLL_MS = 60_000;

export interface ApiGetOptions<T> {
  /**
   * Refresh the answer after this many milliseconds while it says there is more to come (a run in
   * progress); null stops. Refreshes pause while the page is hidden, and back off after failures.
   */
  pollEvery?: (data: T) => number | null;
}

/**
 * Load with `load` (a typed-client request checked by `answer`) for `key`: a new key loads afresh,
 * and nothing of the previous key's answer is shown.
 */
export function useApiGet<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
  options: ApiGetOptions<T> = {},
): ApiGet<T> {
  const [answer, setAnswer] = useState<{
    key: string;
    data: T | null;
    error: string | null;
    code: string | null;
  }>();
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    // While the server is unreachable the page says so, and tries again until it answers.
    untilReachable(
      () => load(abort.signal),
      abort.signal,
      (error) => setAnswer({ key, data: null, error: describeError(error), code: null }),
    )
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
  const [refreshError, setRefreshError] = useState<{ key: string; error: string } | null>(null);
  const current = answer?.key === key ? answer.data : null;
  const interval = current !== null && options.pollEvery ? options.pollEvery(current) : null;
  useEffect(() => {
    if (interval === null) return;
    const abort = new AbortController();
    let delay = interval;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inFlight = false;
    const schedule = () => (timer = setTimeout(refresh, delay));
    const refresh = () => {
      timer = undefined;
      if (document.hidden) return; // resumed by the visibilitychange listener
      inFlight = true;
      load(abort.signal)
        .then((data) => {
          if (abort.signal.aborted) return;
          delay = interval;
          setRefreshError(null);
          setAnswer({ key, data, error: null, code: null });
          schedule();
        })
        .catch((error: unknown) => {
          if (abort.signal.aborted) return;
          delay = Math.min(delay * 2, MAX_POLL_MS);
          setRefreshError({ key, error: describeError(error) });
          schedule();
        })
        .finally(() => (inFlight = false));
    };
    const onVisibility = () => {
      if (!document.hidden && timer === undefined && !inFlight) refresh();
    };
    document.addEventListener("visibilitychange", onVisibility);
    schedule();
    return () => {
      abort.abort();
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
    // A new answer that still polls at the same interval keeps this loop going.
  }, [key, interval, generation]);
  const reload = () => setGeneration((g) => g + 1);
  const refresh = refreshError?.key === key ? refreshError.error : null;
  return answer?.key === key
    ? { ...answer, reload, refreshError: refresh }
    : { data: null, error: null, code: null, reload, refreshError: null };
}
