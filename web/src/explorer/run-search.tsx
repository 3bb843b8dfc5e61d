import { useState, type FormEvent } from "react";
import { RunSearchResultSchema, type RunSearchResult } from "../../../src/server/api-schemas.js";
import { answer, api, describeError } from "../api.js";
import { taskLabel } from "../format.js";
import { href } from "../router.js";

const ROLE_NAMES = { assistant: "agent", user: "customer", tool: "tool result", system: "system" } as const;

/** Full-text search across a run's transcripts: each hit links to its turn. */
export function RunSearch(props: { runId: string }) {
  const [query, setQuery] = useState("");
  const [result, setResult] = useState<RunSearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const search = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    answer(
      api.runs[":runId"].search.$get({ param: { runId: props.runId }, query: { q: query } }),
      RunSearchResultSchema,
    )
      .then(setResult)
      .catch((e: unknown) => {
        setResult(null);
        setError(describeError(e));
      })
      .finally(() => setBusy(false));
  };
  return (
    <section className="card run-search">
      <h2>Search the transcripts</h2>
      <form role="search" onSubmit={search}>
        <input
          type="search"
          aria-label="Words to find in this run's transcripts"
          placeholder="an id, a tool, words the agent said…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit" disabled={busy || query.trim().length < 2}>
          Search
        </button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <>
          <p className="muted small" data-testid="search-summary">
            {result.hits.length === 0
              ? `“${result.query}” is in none of the ${result.searched} conversations.`
              : `${result.hits.length}${result.truncated ? "+" : ""} messages hold “${result.query}” (${result.searched} conversations searched${result.truncated ? "; the first 100 shown — narrow the words" : ""}).`}
          </p>
          <ol className="search-hits">
            {result.hits.map((hit) => (
              <li key={`${hit.domain}/${hit.taskId}/${hit.trial}/${hit.messageIndex}`}>
                <a
                  href={href({
                    page: "simulation",
                    runId: props.runId,
                    domain: hit.domain,
                    taskId: hit.taskId,
                    trial: hit.trial,
                    turn: hit.messageIndex,
                  })}
                >
                  {taskLabel(hit.taskId, 40)} · trial {hit.trial} · message {hit.messageIndex} (
                  {ROLE_NAMES[hit.role]})
                </a>
                <div className="snippet">
                  {hit.snippet.before}
                  <mark>{hit.snippet.match}</mark>
                  {hit.snippet.after}
                </div>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
