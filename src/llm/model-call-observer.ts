import type { LanguageModel } from "../core/llm.js";
import type { RetryEvent } from "./retry.js";

/** Which participant the model plays; only used to name the right flags in error messages. */
export type LlmRole = "agent" | "user" | "judge" | "reranker";

/** A model as whoever watches its calls sees it: never a key or a base URL. */
export interface ObservedModel {
  /** `<provider>` and `<model>` of the spec. */
  provider: string;
  model: string;
  role: LlmRole;
  /** Takes the model's own secrets (its API key, a base URL's credentials) out of a text. */
  redact: (text: string) => string;
}

/**
 * Watches a model's calls without changing them; passk's OpenTelemetry tracing (`src/observability/`)
 * is one. `wrap` is a layer of {@link composeLanguageModel}, outside the response cache and the
 * retries, so it sees each request once, with its whole latency and its priced reply.
 */
export interface ModelCallObserver {
  wrap(model: LanguageModel, about: ObservedModel): LanguageModel;
  /** An attempt of a call in progress failed and is retried (called within that call). */
  retried(event: RetryEvent): void;
}

/**
 * Several observers as one (tracing and the run's call record): the first given wraps outermost, and
 * each hears every retry. None given: undefined.
 */
export function combineObservers(
  observers: ReadonlyArray<ModelCallObserver | undefined>,
): ModelCallObserver | undefined {
  const present = observers.filter((o): o is ModelCallObserver => o !== undefined);
  if (present.length <= 1) return present[0];
  return {
    wrap: (model, about) => present.reduceRight((inner, observer) => observer.wrap(inner, about), model),
    retried: (event) => {
      for (const observer of present) observer.retried(event);
    },
  };
}
