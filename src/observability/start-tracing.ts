import { readFileSync } from "node:fs";
import type { Agent } from "node:http";
import type { Socket } from "node:net";
import type { Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ConfigError } from "../core/errors.js";
import type { ModelCallObserver } from "../llm/model-call-observer.js";
import { redactUrl } from "../llm/redact.js";
import { passkVersion } from "../version.js";
import {
  startConversationTrace,
  type ConversationAbout,
  type ConversationTrace,
} from "./conversation-trace.js";
import { GuardedExporter } from "./guarded-exporter.js";
import { modelCallSpans } from "./model-call-spans.js";
import type { OtelSettings } from "./otel-settings.js";
import { environmentSecrets } from "../llm/environment-secrets.js";
import { spanTextFilter } from "./span-text.js";
import { TraceScopes } from "./trace-scope.js";

/** How long the exit waits for the last spans to reach the collector. */
const FINAL_FLUSH_LIMIT_MS = 3_000;

/** The TLS material of the exporter's connections, read from the files the settings name. */
interface TlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** Reads the TLS files now, so that a missing one stops the command before anything is spent. */
function readTlsFiles(tls: OtelSettings["tls"]): TlsFiles {
  const read = (file: string, variable: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new ConfigError(
        `${variable} "${file}" cannot be read (${error instanceof Error ? error.message : String(error)}); give the path of a PEM file, or unset it`,
      );
    }
  };
  return {
    ...(tls.ca ? { ca: read(tls.ca, "OTEL_EXPORTER_OTLP_CERTIFICATE") } : {}),
    ...(tls.cert ? { cert: read(tls.cert, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE") } : {}),
    ...(tls.key ? { key: read(tls.key, "OTEL_EXPORTER_OTLP_CLIENT_KEY") } : {}),
  };
}

/**
 * The exporter's connection pool, its sockets unref'd: an export still waiting on a collector that does
 * not answer never holds the process open once the command is done (the final flush waits a bounded time).
 */
function unrefAgent(tls: TlsFiles) {
  return async (protocol: string): Promise<Agent> => {
    const agent =
      protocol === "https:"
        ? new (await import("node:https")).Agent({ keepAlive: true, ...tls })
        : new (await import("node:http")).Agent({ keepAlive: true });
    const createConnection = agent.createConnection.bind(agent);
    agent.createConnection = (...args: Parameters<typeof createConnection>) => {
      const socket = createConnection(...args);
      (socket as Partial<Socket> | undefined)?.unref?.();
      return socket;
    };
    return agent;
  };
}

/** A process's tracing: hand `modelCalls` to the models, trace each conversation, `shutdown()` before exit. */
export interface Tracing {
  /** The traces URL, credentials redacted (for messages). */
  readonly endpoint: string;
  /** Give it to `createLanguageModel` (`observer`): each call becomes a span of the conversation it is part of. */
  readonly modelCalls: ModelCallObserver;
  conversation(about: ConversationAbout): ConversationTrace;
  /** Sends what is left, waiting at most a few seconds; an unreachable collector costs no wait. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  settings: OtelSettings;
  /** Where the secrets to keep out of spans are read from (provider keys, base-URL credentials). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where the one warning about an unreachable collector goes. */
  warn: (message: string) => void;
  /** The SDK's batching, for tests and benchmarks; the defaults suit a run. */
  batch?: { scheduledDelayMillis?: number; maxQueueSize?: number };
}

/**
 * Starts exporting traces with the official OpenTelemetry SDK (a `BatchSpanProcessor` over the OTLP/HTTP
 * JSON exporter) to `settings.tracesUrl`. Nothing is registered globally. Secrets never reach a span:
 * every text goes through the redaction passk's logs use, with the environment's keys.
 *
 * @example
 * const settings = resolveOtelSettings({ flag: true, env: process.env });
 * const tracing = settings && startTracing({ settings, env: process.env, warn: console.warn });
 * const agent = createLanguageModel("openai:gpt-4.1", { observer: tracing?.modelCalls });
 * // … each conversation: const trace = tracing.conversation(about); trace.run(…); trace.end(…) …
 * await tracing?.shutdown();
 */
export function startTracing(options: StartTracingOptions): Tracing {
  const { settings } = options;
  const endpoint = redactUrl(settings.tracesUrl);
  const tls = readTlsFiles(settings.tls);
  const exporter = new GuardedExporter(
    new OTLPTraceExporter({
      url: settings.tracesUrl,
      headers: settings.headers,
      timeoutMillis: settings.timeoutMs,
      httpAgentOptions: unrefAgent(tls),
    }),
    { endpoint, warn: options.warn },
  );
  exporter.probe(settings.tracesUrl, { headers: settings.headers, tls });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": settings.serviceName,
      "service.version": passkVersion(),
    }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        // A run makes spans fast (a scripted conversation: dozens in a millisecond); keep more than the default.
        maxQueueSize: options.batch?.maxQueueSize ?? 16_384,
        maxExportBatchSize: 512,
        scheduledDelayMillis: options.batch?.scheduledDelayMillis ?? 2_000,
      }),
    ],
  });
  const tracer: Tracer = provider.getTracer("passk", passkVersion());
  const scopes = new TraceScopes();
  const text = spanTextFilter(environmentSecrets(options.env, Object.values(settings.headers)));
  const modelCalls = modelCallSpans(tracer, scopes, text);

  const conversation = (about: ConversationAbout) => startConversationTrace(tracer, scopes, text, about);
  return {
    endpoint,
    modelCalls,
    conversation,
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), exporter.unreachable ? 0 : FINAL_FLUSH_LIMIT_MS);
      });
      // A failed export rejects the flush; the exporter has already said so, once.
      const flushed = provider.shutdown().then(
        () => "sent" as const,
        () => "failed" as const,
      );
      const outcome = await Promise.race([flushed, limit]);
      clearTimeout(timer);
      if (outcome === "late") {
        if (!exporter.unreachable)
          exporter.warnOnce(`the last spans were not accepted within ${FINAL_FLUSH_LIMIT_MS / 1000} s`);
        exporter.abandonPending();
      }
    },
  };
}
