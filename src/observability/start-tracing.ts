import type { Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { ModelCallObserver } from "../llm/model-call-observer.js";
import { redactUrl } from "../llm/redact.js";
import type { JobContext, RunJob } from "../runner/execute-run.js";
import { passkVersion } from "../version.js";
import {
  startConversationTrace,
  type ConversationAbout,
  type ConversationTrace,
} from "./conversation-trace.js";
import { GuardedExporter } from "./guarded-exporter.js";
import { modelCallSpans } from "./model-call-spans.js";
import type { OtelSettings } from "./otel-settings.js";
import { environmentSecrets, spanTextFilter } from "./span-text.js";
import { TraceScopes } from "./trace-scope.js";

/** How long the exit waits for the last spans to reach the collector. */
const FINAL_FLUSH_LIMIT_MS = 5_000;

/** A process's tracing: hand `modelCalls` to the models, trace each conversation, `shutdown()` before exit. */
export interface Tracing {
  /** The traces URL, credentials redacted (for messages). */
  readonly endpoint: string;
  /** Give it to `createLanguageModel` (`observer`): each call becomes a span of the conversation it is part of. */
  readonly modelCalls: ModelCallObserver;
  conversation(about: ConversationAbout): ConversationTrace;
  /** A run's job whose conversation is traced (`about` names it from the job). */
  traceRunJob(job: RunJob, about: (context: JobContext) => ConversationAbout): RunJob;
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
 * // … run conversations through tracing.traceRunJob(job, about) …
 * await tracing?.shutdown();
 */
export function startTracing(options: StartTracingOptions): Tracing {
  const { settings } = options;
  const endpoint = redactUrl(settings.tracesUrl);
  const exporter = new GuardedExporter(
    new OTLPTraceExporter({
      url: settings.tracesUrl,
      headers: settings.headers,
      timeoutMillis: settings.timeoutMs,
    }),
    { endpoint, warn: options.warn },
  );
  exporter.probe(settings.tracesUrl);
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
    traceRunJob: (job, about) => async (context) => {
      const trace = conversation(about(context));
      try {
        const run = await trace.run(() => job({ ...context, onSimulationEvent: trace.onEvent }));
        trace.end({ run });
        return run;
      } catch (error) {
        trace.end({ error });
        throw error;
      }
    },
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
      if (outcome === "late" && !exporter.unreachable)
        exporter.warnOnce(`the last spans were not accepted within ${FINAL_FLUSH_LIMIT_MS / 1000} s`);
    },
  };
}
