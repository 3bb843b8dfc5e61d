import type { ReactNode } from "react";
import { parseMarkdown as parseMarkdownText, type MarkdownBlock } from "./markdown-parse.js";

export { blockText, parseMarkdown, type MarkdownBlock } from "./markdown-parse.js";

/** `query` marked in `text` (case-insensitive). */
export function highlight(text: string, query: string): ReactNode {
  if (!query) return text;
  const parts: ReactNode[] = [];
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    parts.push(text.slice(from, at), <mark key={at}>{text.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  parts.push(text.slice(from));
  return parts;
}

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*|__[^_]+__)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\([^)]*\))/g;

/** Inline Markdown: `code`, **bold**, *italic*, [links](…) as their text; `query` marked. */
export function renderInline(text: string, query = ""): ReactNode {
  const out: ReactNode[] = [];
  let from = 0;
  let key = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index;
    if (at > from) out.push(<span key={key++}>{highlight(text.slice(from, at), query)}</span>);
    const token = match[0];
    if (match[1]) out.push(<code key={key++}>{highlight(token.slice(1, -1), query)}</code>);
    else if (match[2]) out.push(<strong key={key++}>{renderInline(token.slice(2, -2), query)}</strong>);
    else if (match[3]) out.push(<em key={key++}>{renderInline(token.slice(1, -1), query)}</em>);
    else out.push(<span key={key++}>{highlight(token.slice(1, token.indexOf("]")), query)}</span>);
    from = at + token.length;
  }
  if (from < text.length) out.push(<span key={key++}>{highlight(text.slice(from), query)}</span>);
  return out;
}

export function MarkdownBlockView(props: { block: MarkdownBlock; query?: string }) {
  const { block } = props;
  const query = props.query ?? "";
  switch (block.kind) {
    case "heading": {
      const Tag = block.level <= 1 ? "h3" : block.level === 2 ? "h4" : "h5";
      return <Tag className={`md-h${block.level}`}>{renderInline(block.text, query)}</Tag>;
    }
    case "paragraph":
      return <p className="md-p">{renderInline(block.text, query)}</p>;
    case "code":
      return <pre className="md-code">{highlight(block.text, query)}</pre>;
    case "rule":
      return <hr className="md-rule" />;
    case "list": {
      const items = block.items.map((item, i) => (
        <li key={i}>
          {renderInline(item.text, query)}
          {item.children.map((child, j) => (
            <MarkdownBlockView key={j} block={child} query={query} />
          ))}
        </li>
      ));
      return block.ordered ? <ol className="md-list">{items}</ol> : <ul className="md-list">{items}</ul>;
    }
  }
}

/** A Markdown text as React elements (never HTML from the text: a policy cannot inject markup). */
export function Markdown(props: { text: string; className?: string }) {
  const blocks = parseMarkdownText(props.text);
  return (
    <div className={props.className ?? "markdown"}>
      {blocks.map((block, i) => (
        <MarkdownBlockView key={i} block={block} />
      ))}
    </div>
  );
}
