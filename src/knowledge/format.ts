import { pyFixed } from "../python/py-round.js";
import type { SearchHit } from "./bm25.js";

/** Wall-clock times of one KB search, in milliseconds. */
export interface SearchTiming {
  retrievalMs: number;
  /** Post-processing (the reranker, when there is one); shown only when above 0, as τ² does. */
  postprocessingMs: number;
  totalMs: number;
}

/**
 * Matches the timing suffix of a `KB_search` output (from τ²'s retrieval fixture); strip it before
 * comparing outputs, since the times are measured.
 */
export const TIMING_SUFFIX = /\n\n\[Timing: retrieval=\d+ms(, reranking=\d+ms)?, total=\d+ms\]$/;

/**
 * τ²'s text for a list of hits, per hit
 * `{i}. {title}\n   ID: {id}\n   Score: {score:.4f}\n   Content: {content}\n`, joined by newlines; an
 * empty title shows as "Untitled", as in τ².
 */
export function formatHits(hits: readonly SearchHit[]): string {
  return hits
    .map(
      ({ document, score }, index) =>
        `${index + 1}. ${document.title || "Untitled"}\n   ID: ${document.id}\n` +
        `   Score: ${pyFixed(score, 4)}\n   Content: ${document.content}\n`,
    )
    .join("\n");
}

/** `\n\n[Timing: retrieval=Xms, reranking=Yms, total=Zms]`, numbers as Python's `{:.0f}` prints them. */
export function formatTiming(timing: SearchTiming): string {
  const reranking = timing.postprocessingMs > 0 ? `, reranking=${pyFixed(timing.postprocessingMs, 0)}ms` : "";
  const retrieval = pyFixed(timing.retrievalMs, 0);
  return `\n\n[Timing: retrieval=${retrieval}ms${reranking}, total=${pyFixed(timing.totalMs, 0)}ms]`;
}

/** The output of `KB_search` (`KB_search_bm25`, `KB_search_dense`): hits or a notice, then the timing. */
export function formatKbSearchOutput(hits: readonly SearchHit[], timing: SearchTiming): string {
  return (hits.length === 0 ? "No relevant documents found." : formatHits(hits)) + formatTiming(timing);
}

/** The output of `grep`. */
export function formatGrepOutput(pattern: string, hits: readonly SearchHit[]): string {
  return hits.length === 0 ? `No matches found for pattern: ${pattern}` : formatHits(hits);
}
