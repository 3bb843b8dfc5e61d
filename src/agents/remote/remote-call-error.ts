import { ConfigError } from "../../core/errors.js";
import { httpFetchFor } from "../../llm/http-fetch.js";
import { parseRetryAfterMs } from "../../llm/retry.js";

/**
 * One failed exchange with a remote agent. Internal: the conversation turns it into a ConfigError (the
 * set-up is wrong: 401, 403, 404 when a conversation starts), a {@link RemoteAgentError} (the agent
 * answered, with an error: `agentFault`) or, once retries are spent or pointless, an InfrastructureError.
 */
export class RemoteCallError extends Error {
  constructor(
    message: string,
    /** Trying again may succeed: the agent was down, slow or overloaded (a transport failure). */
    readonly retryable: boolean,
    readonly details: { status?: number; retryAfterMs?: number; agentFault?: boolean } = {},
  ) {
    super(message);
    this.name = "RemoteCallError";
  }
}

/** The largest message a remote agent may send by default (a reply's text, a tool call's arguments). */
export const DEFAULT_MAX_AGENT_MESSAGE_BYTES = 256 * 1024;

/**
 * A remote agent sent a message larger than passk accepts (`--max-agent-message-bytes`). It is the
 * agent's own failure — the conversation ends as `agent_error` — and is never retried: a message that
 * large is a bug or an attack, and holding it (in the trajectory, the store, the results) would let one
 * agent take the process's memory.
 */
export class AgentMessageTooLargeError extends Error {
  constructor(what: string, bytes: number | undefined, limit: number) {
    super(
      `the agent sent ${what} ${bytes === undefined ? "over" : `of ${bytes} bytes, over`} the limit of ${limit} bytes for one message; ` +
        "it was not kept. Raise --max-agent-message-bytes if your agent's messages are really this large",
    );
    this.name = "AgentMessageTooLargeError";
  }
}

/**
 * The deepest nesting of objects and lists passk keeps from a remote agent (a tool call's arguments, an
 * answer's JSON). Real tool arguments nest a few levels; Python's `json` (the reference's tooling) cannot
 * read a results file holding about a thousand.
 */
export const MAX_AGENT_JSON_DEPTH = 64;

/**
 * A remote agent sent JSON nested deeper than {@link MAX_AGENT_JSON_DEPTH}: the agent's own failure, never
 * retried and never kept, as a message over the size limit is.
 */
export class AgentMessageTooDeepError extends Error {
  constructor(what: string) {
    super(
      `the agent sent ${what} nested deeper than ${MAX_AGENT_JSON_DEPTH} levels of objects and lists; it was not kept`,
    );
    this.name = "AgentMessageTooDeepError";
  }
}

/** Whether `value` nests objects and lists deeper than `limit` levels (walked without recursion). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The body of a response as text, read only up to `limit` bytes (past it: {@link AgentMessageTooLargeError}). */
export async function readTextAtMost(response: Response, limit: number, what: string): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new AgentMessageTooLargeError(what, undefined, limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The remote agent answered, and its answer is an error — an HTTP 500 (or another error status that is
 * not about availability), a JSON-RPC error, a failed A2A task, a malformed or empty reply. With a remote
 * agent the service is the system under test, so this is the agent's own failure: the conversation ends
 * as `agent_error`, scores 0 and counts in pass^k, as a crash of an in-process agent does.
 */
export class RemoteAgentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RemoteAgentError";
  }
}

/** A RemoteCallError for an answer of the agent that is an error (never retried: it is the agent's). */
export function agentAnswerError(message: string, status?: number): RemoteCallError {
  return new RemoteCallError(message, false, {
    agentFault: true,
    ...(status !== undefined ? { status } : {}),
  });
}

/**
 * Statuses that say the agent (or a proxy or load balancer before it) is overloaded or briefly
 * unavailable: a transport failure, retried. Every other error status is the agent's answer.
 */
const UNAVAILABLE_STATUSES = new Set([408, 425, 429, 502, 503, 504]);
/** Refused credentials: the set-up is wrong, not the agent. */
const REFUSED_STATUSES = new Set([401, 403, 407]);

/** At most this much of an error body (or an agent's error message) goes into a message. */
const SHOWN_CHARS = 300;

/**
 * Text the agent sent, as quoted in an error message: trimmed, at most {@link SHOWN_CHARS} characters,
 * saying so when it was cut.
 */
export function shownText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= SHOWN_CHARS) return trimmed;
  // Never half of a surrogate pair.
  const cut = trimmed.slice(0, SHOWN_CHARS).replace(/[\uD800-\uDBFF]$/, "");
  return `${cut}… (cut: ${trimmed.length} characters in all)`;
}

/** Redirects followed at most for one request; past this it is a redirect loop. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Redirects that keep the method and the body (RFC 9110): the only ones passk follows for a POST. */
const BODY_KEEPING_REDIRECTS = new Set([307, 308]);

/**
 * `fetch` for calls to a remote agent: node:http keep-alive for plain-http URLs (local agents), the
 * platform fetch otherwise; a bearer token for the agent when one is configured; and an HTTP error
 * status turned into a {@link RemoteCallError}: 408, 425, 429, 502, 503 and 504 are retried (honouring
 * Retry-After); 401, 403 and 407 are the set-up's; every other status (500 above all) is the agent's own
 * error answer. Redirects are followed only to the same origin, a POST only by 307 and 308 (which keep its
 * body), at most 5 in a row; any other redirect is the agent's error answer, with a sentence.
 */
export function remoteAgentFetch(options: {
  authToken?: string;
  defaultTimeoutMs: number;
  /**
   * The origin of the URL the user named. passk's bearer token, the MCP token and the policy go only
   * there: a request elsewhere (an agent card naming another host) is refused as a set-up error.
   */
  origin?: string;
}): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (
      options.origin !== undefined &&
      URL.canParse(url) &&
      !sameOrigin(new URL(url), new URL(options.origin))
    )
      throw new ConfigError(
        `the agent at ${options.origin} sent passk to ${new URL(url).origin} (its agent card names another origin); ` +
          "passk sends its tokens and the conversation only to the origin you named — name the agent's own URL in --agent-llm",
      );
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    if (options.authToken !== undefined) headers.authorization = `Bearer ${options.authToken}`;
    const method = init?.method ?? "GET";
    const signal = init?.signal ?? AbortSignal.timeout(options.defaultTimeoutMs);
    let response: Response;
    // Redirects are followed here, not by fetch: only to the same origin, and never turning a POST into a GET.
    for (let target = url, hops = 0; ; hops++) {
      try {
        response = await agentFetch(target, { ...init, headers, signal, redirect: "manual" });
      } catch (error) {
        if (init?.signal?.aborted) throw error;
        throw new RemoteCallError(`${method} ${pathOf(url)}: ${connectionFailure(error)}`, true);
      }
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || location === null) break;
      await response.body?.cancel().catch(() => undefined);
      const next = URL.canParse(location, target) ? new URL(location, target) : undefined;
      const refused = (why: string) =>
        agentAnswerError(
          `${method} ${pathOf(url)} answered HTTP ${response.status} to ${shownText(location)}, which passk does not follow: ${why}`,
          response.status,
        );
      if (next === undefined) throw refused("it is not a URL");
      if (!sameOrigin(next, new URL(target)))
        throw refused(
          "it is on another origin, and passk sends the conversation only to the origin you named",
        );
      if (method !== "GET" && method !== "HEAD" && !BODY_KEEPING_REDIRECTS.has(response.status))
        throw refused(
          `a ${response.status} turns the ${method} into a GET without its body (only 307 and 308 keep them)`,
        );
      if (hops + 1 > MAX_REDIRECTS)
        throw agentAnswerError(
          `${method} ${pathOf(url)} was redirected more than ${MAX_REDIRECTS} times (a redirect loop, last to ${shownText(next.pathname)})`,
          response.status,
        );
      target = next.href;
    }
    if (response.ok) return response;
    const body = await response.text().catch(() => "");
    const retryAfterMs = parseRetryAfterMs(Object.fromEntries(response.headers));
    const shown = body.trim() === "" ? "" : `: ${shownText(body)}`;
    throw new RemoteCallError(
      `${method} ${pathOf(url)} answered HTTP ${response.status}${shown}`,
      UNAVAILABLE_STATUSES.has(response.status),
      {
        status: response.status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        ...(UNAVAILABLE_STATUSES.has(response.status) || REFUSED_STATUSES.has(response.status)
          ? {}
          : { agentFault: true }),
      },
    );
  };
}

/** The transport of calls to a remote agent: its answers over 32 MiB are called the agent's. */
const agentFetch = httpFetchFor("the agent's answer");

/** What went wrong with a connection, in words: refused, reset, timed out… */
export function connectionFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  if (code === "ECONNREFUSED") return "connection refused (is the agent running?)";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "the connection was reset";
  if (error instanceof DOMException && error.name === "TimeoutError") return "no answer in time";
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${message} (${code})` : message;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Same scheme and port, and the same host — every loopback name counting as one (localhost, 127.0.0.1, ::1). */
function sameOrigin(a: URL, b: URL): boolean {
  if (a.origin === b.origin) return true;
  return (
    a.protocol === b.protocol && a.port === b.port && LOOPBACK.test(a.hostname) && LOOPBACK.test(b.hostname)
  );
}

function pathOf(url: string): string {
  return URL.canParse(url) ? new URL(url).pathname : url;
}
