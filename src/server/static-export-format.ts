import { z } from "zod";

/**
 * The data of a run's static export (`passk export --format html`), shared by the writer (Node) and
 * the web app that reads it from disk. The app's API answers are embedded as scripts, keyed by their
 * API path (`runs/<run>/simulations/<domain>/<task>/<trial>`, each segment URI-encoded): a page
 * opened from file:// may load scripts but not fetch files.
 */

/** The global `data/index.js` sets: the run, the small answers inline, the large ones by file. */
export const STATIC_EXPORT_GLOBAL = "__PASSK_STATIC__";
/** The table each answer file adds its answer to, by key. */
export const STATIC_ANSWERS_GLOBAL = "__PASSK_STATIC_ANSWERS__";

export const StaticExportIndexSchema = z.object({
  format: z.literal("passk-static-export"),
  version: z.literal(1),
  /** The exported run's full id. */
  runId: z.string().min(1),
  /** When the export was written (ISO 8601). */
  exportedAt: z.string(),
  /** Answers embedded in the index, by key. */
  answers: z.record(z.string(), z.unknown()),
  /** Answers in files of their own (path relative to the export's folder), by key, in the run's grid order. */
  files: z.record(z.string(), z.string()),
});
export type StaticExportIndex = z.infer<typeof StaticExportIndexSchema>;

/** The key of an API path's answer: its segments after `/api/`, each URI-encoded. */
export function staticAnswerKey(segments: readonly string[]): string {
  return segments.map(encodeURIComponent).join("/");
}
