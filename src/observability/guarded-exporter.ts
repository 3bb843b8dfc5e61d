import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

type ExportResult = Parameters<Parameters<SpanExporter["export"]>[1]>[0];
/** `ExportResultCode` of `@opentelemetry/core` (not a dependency of passk's own). */
const SUCCESS = 0;
const FAILED = 1;

/** After a failed export, spans are dropped for this long rather than queued behind a dead collector. */
const PAUSE_AFTER_FAILURE_MS = 60_000;

/**
 * An exporter that never lets an unreachable collector hurt a run: the first failure prints one warning
 * (naming the endpoint, without its credentials) and exports pause for a minute, so that nothing piles
 * up behind retries; `probe()` finds a collector that cannot be reached, or that refuses the
 * credentials, at once, before the first batch. Failures are otherwise what the wrapped exporter reports.
 */
export class GuardedExporter implements SpanExporter {
  private pausedUntil = 0;
  private warned = false;
  private readonly pending = new Set<() => void>();

  constructor(
    private readonly inner: SpanExporter,
    private readonly options: {
      /** The traces URL as messages may show it (credentials redacted). */
      endpoint: string;
      warn: (message: string) => void;
      now?: () => number;
    },
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.now() < this.pausedUntil) {
      resultCallback({ code: FAILED });
      return;
    }
    let answered = false;
    const answer = (result: ExportResult) => {
      if (answered) return;
      answered = true;
      this.pending.delete(abandon);
      resultCallback(result);
    };
    const abandon = () => answer({ code: FAILED });
    this.pending.add(abandon);
    this.inner.export(spans, (result) => {
      if (result.code !== SUCCESS) this.failed(result.error);
      answer(result);
    });
  }

  /**
   * Answers every export still waiting on the collector as failed, so that nothing waits for it any
   * longer (the batch processor holds a timer until its export answers); the requests themselves
   * finish or time out without holding the process open.
   */
  abandonPending(): void {
    for (const abandon of [...this.pending]) abandon();
  }

  /**
   * Sends the collector one empty export (a valid OTLP request holding no spans) with the exporter's
   * headers: a refused connection, an unknown host or an answer such as 401 or 404 is known at once,
   * before the first batch. A slow or busy collector (a timeout, 429, 502–504) is left to the exports.
   */
  probe(
    url: string,
    options: {
      headers: Readonly<Record<string, string>>;
      /** The TLS material the exports use (a private CA, a client certificate). */
      tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
      timeoutMs?: number;
    },
  ): void {
    const body = JSON.stringify({ resourceSpans: [] });
    // node:http, as the exporter sends (fetch would refuse some ports the exporter can use).
    const send = new URL(url).protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(url, {
      method: "POST",
      headers: {
        ...options.headers,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      },
      timeout: options.timeoutMs ?? 2_000,
      ...options.tls,
    });
    request.on("response", (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      const busy = status === 429 || (status >= 502 && status <= 504);
      if (status >= 400 && !busy) this.failed(new HttpStatusError(status));
    });
    let timedOut = false;
    // The probe never holds the process open.
    request.on("socket", (socket) => socket.unref());
    request.on("timeout", () => {
      timedOut = true;
      request.destroy();
    });
    request.on("error", (error) => {
      if (!timedOut) this.failed(error);
    });
    request.end(body);
  }

  /** Whether an export failed or the probe found no collector (exports are paused). */
  get unreachable(): boolean {
    return this.now() < this.pausedUntil;
  }

  /** Says once that spans were lost (e.g. the final flush ran out of time). */
  warnOnce(reason: string): void {
    if (this.warned) return;
    this.warned = true;
    this.options.warn(
      `warning: traces could not be sent to ${this.options.endpoint} (${reason}); the run goes on without them — ` +
        `is the collector running? (--otel URL, OTEL_EXPORTER_OTLP_ENDPOINT)`,
    );
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  private failed(error: unknown): void {
    this.pausedUntil = this.now() + PAUSE_AFTER_FAILURE_MS;
    this.warnOnce(describeExportError(error));
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** The collector's answer to the probe was an error status. */
class HttpStatusError extends Error {
  constructor(readonly code: number) {
    super("");
    this.name = "HttpStatusError";
  }
}

/** A short reason: the network error's code, the HTTP status, or the message. */
function describeExportError(error: unknown): string {
  if (!(error instanceof Error)) return "export failed";
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  if (typeof code === "number") return `HTTP ${code}${error.message ? ` ${error.message}` : ""}`;
  return error.message || error.name;
}
