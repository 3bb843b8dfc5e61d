import type { z } from "zod";
import { ApiErrorSchema } from "../../src/server/api-schemas.js";

/** A non-2xx answer of the API, with the server's code and sentence. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function readAnswer<T extends z.ZodType>(response: Response, schema: T): Promise<z.infer<T>> {
  const text = await response.text();
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
      ? new ApiRequestError(response.status, error.data.code, error.data.message)
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

export async function getJson<T extends z.ZodType>(
  path: string,
  schema: T,
  signal?: AbortSignal,
): Promise<z.infer<T>> {
  return readAnswer(
    await fetch(path, { signal: signal ?? null, headers: { Accept: "application/json" } }),
    schema,
  );
}

export async function postJson<T extends z.ZodType>(
  path: string,
  body: unknown,
  schema: T,
): Promise<z.infer<T>> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return readAnswer(response, schema);
}

export function describeError(error: unknown): string {
  if (error instanceof ApiRequestError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
