export { resolveOtelSettings, DEFAULT_OTLP_ENDPOINT } from "./otel-settings.js";
export type { OtelSettings } from "./otel-settings.js";
export { startTracing } from "./start-tracing.js";
export type { Tracing, StartTracingOptions } from "./start-tracing.js";
export type { ConversationAbout, ConversationTrace } from "./conversation-trace.js";
export { MAX_SPAN_TEXT_CHARS } from "./span-text.js";
