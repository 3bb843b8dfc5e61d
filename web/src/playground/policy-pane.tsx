import { useDeferredValue, useMemo, useState, type ReactNode } from "react";

/** Markdown's **bold** as <strong>, the rest as text with the query marked. */
function render(text: string, query: string): ReactNode {
  const pieces = text.split(/\*\*(.+?)\*\*/g);
  if (pieces.length === 1) return highlight(text, query);
  return pieces.map((piece, i) =>
    i % 2 === 1 ? (
      <strong key={i}>{highlight(piece, query)}</strong>
    ) : (
      <span key={i}>{highlight(piece, query)}</span>
    ),
  );
}

function highlight(text: string, query: string): ReactNode {
  if (!query) return text;
  const parts: ReactNode[] = [];
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    parts.push(text.slice(from, at), <mark key={at}>{text.slice(at, at + query.length)}</mark>);
    from = at + query.length;
  }
  parts.push(text.slice(from));
  return parts;
}

/** The domain policy, split into paragraphs, searchable: matching paragraphs only, matches marked. */
export function PolicyPane(props: { policy: string }) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query.trim());
  const blocks = useMemo(() => props.policy.split(/\n\s*\n/).filter((b) => b.trim() !== ""), [props.policy]);
  const shown = deferred ? blocks.filter((b) => b.toLowerCase().includes(deferred.toLowerCase())) : blocks;
  return (
    <div className="policy">
      <div className="policy-search">
        <label htmlFor="policy-search" className="visually-hidden">
          Search the policy
        </label>
        <input
          id="policy-search"
          type="search"
          placeholder="Search the policy…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        {deferred && (
          <span className="muted" role="status">
            {shown.length} of {blocks.length} paragraphs
          </span>
        )}
      </div>
      <div className="policy-text">
        {shown.map((block, i) => {
          const heading = /^(#{1,4})\s+(.*)$/.exec(block.trim());
          if (heading && !block.trim().includes("\n")) {
            const level = heading[1]!.length;
            return level <= 2 ? (
              <h3 key={i}>{render(heading[2]!, deferred)}</h3>
            ) : (
              <h4 key={i}>{render(heading[2]!, deferred)}</h4>
            );
          }
          return (
            <p key={i} className="policy-block">
              {render(block.trim(), deferred)}
            </p>
          );
        })}
      </div>
    </div>
  );
}
