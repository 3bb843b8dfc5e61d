import { hc } from "hono/client";
import type { z } from "zod";
import { ApiErrorSchema } from "../../src/server/api-schemas.js";
import type { ApiType } from "../../src/server/routes/api-routes.js";
import { STATIC_API_BASE, staticExport, staticFetch } from "./static-export.js";

/**
 * The typed client of the server's API: paths, parameters, queries and bodies are checked against
 * the server's routes at compile time (`ApiType`); every answer is still parsed with the shared zod
 * schema when it arrives ({@link answer}), since a server of another version may answer otherwise.
 * In a static export (`passk export --format html`) the answers embedded in the folder answer instead.
 */
export const api = staticExport
  ? hc<ApiType>(STATIC_API_BASE, { fetch: staticFetch })
  : hc<ApiType>(`${window.location.origin}/api`, { headers: { Accept: "application/json" } });

/** A non-2xx answer of the API, with the server's code and sentence. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;
  /** The run a refusal is about (`duplicate_import`). */
  readonly runId: string | undefined;
  constructor(status: number, code: string, message: string, runId?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.runId = runId;
  }
}

/** The request never reached the server or got no answer (it is down, restarting, or the network is). */
export class ConnectionError extends Error {
  constructor(cause: unknown) {
    super("cannot reach the passk server (is it running?)", { cause });
  }
}

/** The longest wait between two tries while the server cannot be reached. */
const MAX_RETRY_MS = 10_000;

/**
 * `load`, tried again while the server cannot be reached (a {@link ConnectionError}; each wait is
 * longer, up to 10 s) so a page recovers by itself when the server comes back; `onUnreachable` hears
 * each failed try. Other errors, and `signal` aborting, end the tries.
 */
export async function untilReachable<T>(
  load: () => Promise<T>,
  signal: AbortSignal,
  onUnreachable: (error: ConnectionError) => void,
): Promise<T> {
  let wait = 1_000;
  for (;;) {
    try {
      return await load();
    } catch (error) {
      if (!(error instanceof ConnectionError) || signal.aborted) throw error;
      onUnreachable(error);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, wait);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(error);
          },
          { once: true },
        );
      });
      wait = Math.min(wait * 2, MAX_RETRY_MS);
    }
  }
}

/**
 * The answer of a request made with {@link api}, checked against `schema`: the data, or an
 * {@link ApiRequestError} with the server's code and sentence, or a {@link ConnectionError}.
 */
export async function answer<T extends z.ZodType>(
  request: Promise<Response>,
  schema: T,
): Promise<z.infer<T>> {
  let response: Response;
  try {
    response = await request;
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ConnectionError(error);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ConnectionError(error);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiRequestError(
      response.status,
      "bad_response",
      `the server answered ${response.status} without JSON`,
    );
  }
  if (!response.ok) {
    const error = ApiErrorSchema.safeParse(body);
    throw error.success
      ? new ApiRequestError(response.status, error.data.code, error.data.message, error.data.runId)
      : new ApiRequestError(response.status, "http_error", `the server answered ${response.status}`);
  }
  // Answers are checked against the shared schema: a mismatch is a bug worth seeing, not guessing around.
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ApiRequestError(
      response.status,
      "bad_response",
      `unexpected answer from ${response.url}: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}

/** `init` for a request that `signal` can cancel. */
export const cancellable = (signal: AbortSignal | undefined) => ({ init: { signal: signal ?? null } });

export function describeError(error: unknown): string {
  if (error instanceof ApiRequestError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
