import { AsyncLocalStorage } from "node:async_hooks";
import { ROOT_CONTEXT, trace, type Context, type Span } from "@opentelemetry/api";

/** What the code running now belongs to: a conversation's span, and the model call in progress. */
export interface TraceScope {
  span: Span;
  /** The model call in progress (its retries are recorded on it). */
  call?: { span: Span; attemptStart: number; failedAttempts: number };
}

/**
 * The scope of the code running now, carried across awaits. passk keeps its own instead of registering
 * a global OpenTelemetry context manager, so that tracing changes nothing outside passk's spans.
 */
export class TraceScopes {
  private readonly storage = new AsyncLocalStorage<TraceScope>();

  current(): TraceScope | undefined {
    return this.storage.getStore();
  }

  /** The context a new span's parent is taken from: the current scope's span, or none. */
  parentContext(): Context {
    const scope = this.storage.getStore();
    return scope ? trace.setSpan(ROOT_CONTEXT, scope.call?.span ?? scope.span) : ROOT_CONTEXT;
  }

  run<T>(scope: TraceScope, work: () => T): T {
    return this.storage.run(scope, work);
  }
}
