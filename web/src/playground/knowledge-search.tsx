import { useDeferredValue, useState } from "react";
import { DocumentSearchResponseSchema } from "../../../src/server/api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { MarkdownBlockView, parseMarkdown } from "../components/markdown.js";
import { useApiGet } from "../use-api-get.js";

/**
 * The domain's knowledge base, searched as a person reads it (BM25, best first): what the agent had to
 * find. Each hit shows its title, id and score; its text opens on demand.
 */
export function KnowledgeSearch(props: { domain: string }) {
  const [query, setQuery] = useState("");
  const q = useDeferredValue(query.trim());
  const { domain } = props;
  const found = useApiGet(`${domain}\u0000${q}`, (signal) =>
    q === ""
      ? Promise.resolve({ query: "", hits: [] })
      : answer(
          api.domains[":domain"].documents.$get({ param: { domain }, query: { q } }, cancellable(signal)),
          DocumentSearchResponseSchema,
        ),
  );
  return (
    <div className="policy">
      <div className="policy-search">
        <label htmlFor="knowledge-search" className="visually-hidden">
          Search the knowledge base
        </label>
        <input
          id="knowledge-search"
          type="search"
          placeholder="Search the knowledge base…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        {q && found.data && (
          <span className="muted" role="status">
            {found.data.hits.length === 0
              ? "no document shares a word with this"
              : `${found.data.hits.length} best matching document${found.data.hits.length === 1 ? "" : "s"}`}
          </span>
        )}
        {found.error && <span className="muted">{found.error}</span>}
      </div>
      <ol className="policy-text knowledge-hits" data-testid="knowledge-hits">
        {(found.data?.hits ?? []).map((hit) => (
          <li key={hit.id}>
            <details>
              <summary>
                <strong>{hit.title}</strong> <code className="muted">{hit.id}</code>{" "}
                <span className="muted">score {hit.score.toFixed(2)}</span>
              </summary>
              <div className="markdown">
                {parseMarkdown(hit.content).map((block, i) => (
                  <MarkdownBlockView key={i} block={block} query={q} />
                ))}
              </div>
            </details>
          </li>
        ))}
      </ol>
    </div>
  );
}
