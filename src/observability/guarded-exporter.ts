import { connect } from "node:net";
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
 * up behind retries; `probe()` finds a collector that refuses connections at once, before the first
 * batch. Failures are otherwise what the wrapped exporter reports.
 */
export class GuardedExporter implements SpanExporter {
  private pausedUntil = 0;
  private warned = false;

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
    this.inner.export(spans, (result) => {
      if (result.code !== SUCCESS) this.failed(result.error);
      resultCallback(result);
    });
  }

  /** Connects to the collector once (without sending anything); a refusal or an unknown host counts as a failure. */
  probe(url: string, timeoutMs = 2_000): void {
    const parsed = new URL(url);
    const port = Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80));
    const socket = connect({ host: parsed.hostname.replace(/^\[|\]$/g, ""), port });
    socket.unref();
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.once("connect", () => socket.destroy());
    socket.once("error", (error) => this.failed(error));
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

/** A short reason: the network error's code, the HTTP status, or the message. */
function describeExportError(error: unknown): string {
  if (!(error instanceof Error)) return "export failed";
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  if (typeof code === "number") return `HTTP ${code}${error.message ? ` ${error.message}` : ""}`;
  return error.message || error.name;
}
