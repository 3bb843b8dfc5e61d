import { RunSearchQuerySchema, SimulationDetailSchema } from "../../src/server/api-schemas.js";
import {
  STATIC_ANSWERS_GLOBAL,
  STATIC_EXPORT_GLOBAL,
  StaticExportIndexSchema,
  staticAnswerKey,
  type StaticExportIndex,
} from "../../src/server/static-export-format.js";
import { searchTranscripts, type SearchableConversation } from "../../src/review/transcript-search.js";

/**
 * A run exported with `passk export --format html`: the page was opened from a folder (file:// or a
 * static host) whose `data/index.js` embedded the API's answers. Absent (undefined) when a passk
 * server serves the app.
 */
export const staticExport: StaticExportIndex | undefined = (() => {
  const embedded = (window as unknown as Record<string, unknown>)[STATIC_EXPORT_GLOBAL];
  if (embedded === undefined) return undefined;
  const parsed = StaticExportIndexSchema.safeParse(embedded);
  if (!parsed.success)
    throw new Error(`this export's data/index.js is not one passk reads: ${parsed.error.message}`);
  return parsed.data;
})();

/** The base URL the typed client is given in a static export (never requested: see {@link staticFetch}). */
export const STATIC_API_BASE = "http://static-export.passk.invalid/api";

const answers = (): Record<string, unknown> => {
  const table = window as unknown as Record<string, Record<string, unknown> | undefined>;
  return (table[STATIC_ANSWERS_GLOBAL] ??= {});
};

/** Each answer file is loaded once, as a script (file:// lets a page load scripts, not fetch files). */
const loading = new Map<string, Promise<unknown>>();
function loadAnswer(key: string, file: string): Promise<unknown> {
  let pending = loading.get(key);
  if (!pending) {
    pending = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = file;
      script.onload = () => {
        const answer = answers()[key];
        if (answer === undefined) reject(new Error(`${file} does not hold the answer it should`));
        else resolve(answer);
      };
      script.onerror = () => reject(new Error(`could not load ${file}: is the exported folder complete?`));
      document.head.append(script);
    });
    pending.catch(() => loading.delete(key)); // a failed load may be tried again
    loading.set(key, pending);
  }
  return pending;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

const refusal = (status: number, message: string) => json({ code: "static_export", message }, status);

/** Simulation files loaded at once while searching. */
const SEARCH_BATCH = 100;

/**
 * The run's search, over its transcripts loaded from their files in the run's grid order (as the
 * server walks them), a batch at a time: it stops loading once more than the shown hits are found.
 */
async function search(index: StaticExportIndex, runPrefix: string, query: string): Promise<Response> {
  const q = RunSearchQuerySchema.safeParse({ q: query });
  if (!q.success) return refusal(400, q.error.issues[0]?.message ?? "invalid query");
  const entries = Object.entries(index.files).filter(([key]) => key.startsWith(runPrefix));
  const conversations: SearchableConversation[] = [];
  let found = searchTranscripts([], q.data.q);
  for (let start = 0; start < entries.length && !found.truncated; start += SEARCH_BATCH) {
    const batch = entries.slice(start, start + SEARCH_BATCH);
    for (const raw of await Promise.all(batch.map(([key, file]) => loadAnswer(key, file)))) {
      const detail = SimulationDetailSchema.parse(raw);
      conversations.push({
        domain: detail.domain,
        task_id: detail.simulation.task_id,
        trial: detail.trial,
        messages: detail.simulation.messages,
      });
    }
    found = searchTranscripts(conversations, q.data.q);
  }
  return json({ query: q.data.q, searched: entries.length, hits: found.hits, truncated: found.truncated });
}

/**
 * `fetch` for the typed client in a static export: each GET is answered from the embedded answers
 * (loading a simulation's file when first asked); what would change anything is refused.
 */
export async function staticFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const index = staticExport;
  if (!index) throw new Error("not a static export");
  const request = new Request(input, init);
  if (request.method !== "GET")
    return refusal(405, "this is a static export of one run: nothing in it can be changed");
  const url = new URL(request.url);
  const segments = url.pathname
    .replace(/^\/api\/?/, "")
    .split("/")
    .filter((s) => s !== "")
    .map(decodeURIComponent);
  const key = staticAnswerKey(segments);
  if (Object.hasOwn(index.answers, key)) return json(index.answers[key]);
  if (Object.hasOwn(index.files, key)) return json(await loadAnswer(key, index.files[key]!));
  if (segments.length === 3 && segments[0] === "runs" && segments[2] === "search")
    return search(
      index,
      `${staticAnswerKey(["runs", segments[1]!, "simulations"])}/`,
      url.searchParams.get("q") ?? "",
    );
  const otherRun = segments[0] === "runs" && segments[1] !== index.runId;
  return json(
    {
      code: otherRun ? "run_not_found" : segments[2] === "simulations" ? "simulation_not_found" : "not_found",
      message: otherRun
        ? `this export holds only run ${index.runId}`
        : "this export does not hold that page's data",
    },
    404,
  );
}
