import http from "node:http";
import { Readable } from "node:stream";
import zlib from "node:zlib";

/** One keep-alive pool for the process, as the platform fetch has one global dispatcher. */
const agent = new http.Agent({ keepAlive: true });

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * `fetch` for plain-http base URLs (local model servers, mock models): node:http with keep-alive.
 *
 * Why: the platform fetch (undici) spends about half a millisecond of CPU per call on a local server
 * (a request clone with a teed body, WHATWG streams both ways), which alone caps a thousand concurrent
 * conversations at a few hundred calls a second. Hosted APIs (https) keep the platform fetch: their
 * latency dwarfs that cost, and they keep its compression and any global dispatcher the user set.
 *
 * Same contract as fetch for what the AI SDK uses: it resolves at the response headers with a Response
 * whose body streams (server-sent events arrive as they are sent), rejects with
 * `TypeError("fetch failed", { cause })` on a network error and with the signal's reason on abort.
 * Anything else — a Request object, a non-text body, another scheme, a redirect answer — goes to the
 * platform fetch (a redirect is re-sent through it, so it is followed exactly as fetch follows it).
 */
export const httpFetch: typeof fetch = httpFetchFor("the provider's answer");

/**
 * {@link httpFetch} whose answers over {@link MAX_RESPONSE_BYTES} are named `whose` in the error ("the
 * agent's answer"); with `redirect: "manual"` a plain-http redirect answer is returned as it is.
 */
export function httpFetchFor(whose: string): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
    const body = init?.body;
    if (
      url === undefined ||
      !url.startsWith("http:") ||
      !(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)
    ) {
      return limitedBody(await globalThis.fetch(input, init), MAX_RESPONSE_BYTES, whose);
    }
    return nodeFetch(url, body, init, whose);
  };
}

/**
 * The most a model's answer may weigh. A hostile or broken provider answering hundreds of megabytes
 * would otherwise be held whole in memory; past this the body fails like a dropped connection (an
 * infrastructure error, retried), never as the agent's fault.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** An answer over {@link MAX_RESPONSE_BYTES}: its body fails with this, naming whose answer it was. */
export class ResponseTooLargeError extends TypeError {
  constructor(whose: string, limit: number) {
    super(`${whose} is larger than ${limit} bytes; it was not read further`);
    this.name = "ResponseTooLargeError";
  }
}

/** The response with its body cut off, with an error naming the limit, past {@link MAX_RESPONSE_BYTES}. */
export function limitedBody(
  response: Response,
  limit = MAX_RESPONSE_BYTES,
  whose = "the provider's answer",
): Response {
  if (response.body === null) return response;
  const tooLarge = () => new ResponseTooLargeError(whose, limit);
  const declared = Number(response.headers.get("content-length"));
  let seen = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (Number.isFinite(declared) && declared > limit) controller.error(tooLarge());
      },
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The answer of a plain-http call through node:http, its body capped at {@link MAX_RESPONSE_BYTES}. */
async function nodeFetch(
  url: string,
  body: string | Uint8Array | null | undefined,
  init: RequestInit | undefined,
  whose: string,
): Promise<Response> {
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();
  const headers = headerRecord(init?.headers);
  headers.accept ??= "*/*";
  if (body !== undefined && body !== null) headers["content-length"] = String(Buffer.byteLength(body));

  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = http.request(url, { method: init?.method ?? "GET", headers, agent });
    let answer: http.IncomingMessage | undefined;
    // Before the answer the call rejects; after it, the body stream errors (as fetch's does).
    const onAbort = () => {
      const reason: unknown = signal?.reason;
      const error = reason instanceof Error ? reason : new DOMException("aborted", "AbortError");
      if (answer) answer.destroy(error);
      else request.destroy(error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("response", (incoming) => {
      answer = incoming;
      incoming.once("close", () => signal?.removeEventListener("abort", onAbort));
      resolve(incoming);
    });
    request.once("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) reject(signal.reason);
      else reject(new TypeError("fetch failed", { cause: error }));
    });
    request.end(body ?? undefined);
  });

  const status = response.statusCode ?? 0;
  if (
    REDIRECT_STATUSES.has(status) &&
    response.headers.location !== undefined &&
    init?.redirect !== "manual"
  ) {
    response.resume();
    return limitedBody(await globalThis.fetch(url, init), MAX_RESPONSE_BYTES, whose);
  }
  const responseHeaders = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
  if (NULL_BODY_STATUSES.has(status)) {
    response.resume();
    return new Response(null, { status, statusText: response.statusMessage ?? "", headers: responseHeaders });
  }
  return new Response(Readable.toWeb(capped(decoded(response), whose)) as ReadableStream<Uint8Array>, {
    status,
    statusText: response.statusMessage ?? "",
    headers: responseHeaders,
  });
}

/** A node stream that fails once more than {@link MAX_RESPONSE_BYTES} went through it. */
function capped(stream: Readable, whose: string): Readable {
  let seen = 0;
  stream.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > MAX_RESPONSE_BYTES) stream.destroy(new ResponseTooLargeError(whose, MAX_RESPONSE_BYTES));
  });
  return stream;
}

/** The body as sent, or decompressed when the server compressed it anyway (fetch decompresses too). */
function decoded(response: http.IncomingMessage): Readable {
  const encoding = response.headers["content-encoding"]?.trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  response.on("error", (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

function headerRecord(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const record: Record<string, string> = {};
  if (init === undefined) return record;
  // The AI SDK passes a plain object; Headers and pair lists are read the way fetch reads them.
  const entries = init instanceof Headers || Array.isArray(init) ? new Headers(init) : Object.entries(init);
  for (const [name, values] of entries) {
    const key = name.toLowerCase();
    const value = typeof values === "string" ? values : values.join(", ");
    record[key] = record[key] === undefined ? value : `${record[key]}, ${value}`;
  }
  return record;
}
