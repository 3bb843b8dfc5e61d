import { useDeferredValue, useMemo, useState } from "react";
import { MarkdownBlockView, blockText, parseMarkdown, type MarkdownBlock } from "../components/markdown.js";
import { KnowledgeSearch } from "./knowledge-search.js";

/** A line that is only a section tag (`<main_policy>`, `</main_policy>`): how telecom joins its two policies. */
const SECTION_TAG = /^\s*<(\/?)([A-Za-z][\w-]*)>\s*$/;

/**
 * The policy's blocks: its Markdown, where a section the model sees wrapped in tags
 * (`<tech_support_policy>…</tech_support_policy>`) is shown under a heading named after the tag.
 */
export function policyBlocks(policy: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  let section: string[] = [];
  const flush = () => {
    blocks.push(...parseMarkdown(section.join("\n")));
    section = [];
  };
  for (const line of policy.split("\n")) {
    const tag = SECTION_TAG.exec(line);
    if (!tag) {
      section.push(line);
      continue;
    }
    flush();
    if (tag[1] === "") {
      const title = tag[2]!.replace(/[_-]+/g, " ");
      blocks.push({ kind: "heading", level: 1, text: title.charAt(0).toUpperCase() + title.slice(1) });
    }
  }
  flush();
  return blocks;
}

/**
 * The blocks to show for a search: every block when there is none; else the blocks that mention it,
 * each under the headings of its section (so a match is read in its place).
 */
function matching(blocks: readonly MarkdownBlock[], query: string): MarkdownBlock[] {
  if (!query) return [...blocks];
  const needle = query.toLowerCase();
  const shown: MarkdownBlock[] = [];
  const headings: Array<Extract<MarkdownBlock, { kind: "heading" }>> = [];
  let emitted = 0; // how many of `headings` are already shown
  for (const block of blocks) {
    if (block.kind === "heading") {
      while (headings.length > 0 && headings[headings.length - 1]!.level >= block.level) headings.pop();
      headings.push(block);
      emitted = Math.min(emitted, headings.length - 1);
      if (block.text.toLowerCase().includes(needle)) {
        shown.push(...headings.slice(emitted));
        emitted = headings.length;
      }
      continue;
    }
    if (blockText(block).toLowerCase().includes(needle)) {
      shown.push(...headings.slice(emitted), block);
      emitted = headings.length;
    }
  }
  return shown;
}

/**
 * The domain policy, rendered from its Markdown, searchable: matching blocks under their headings,
 * matches marked. A domain with a knowledge base (`documentsOf`) gets a second view that searches it.
 */
export function PolicyPane(props: { policy: string; documentsOf?: string | undefined }) {
  const [view, setView] = useState<"policy" | "documents">("policy");
  if (props.documentsOf === undefined) return <PolicyText policy={props.policy} />;
  return (
    <div className="policy">
      <div className="segmented" role="group" aria-label="What to read">
        <button type="button" aria-pressed={view === "policy"} onClick={() => setView("policy")}>
          Policy
        </button>
        <button type="button" aria-pressed={view === "documents"} onClick={() => setView("documents")}>
          Knowledge base
        </button>
      </div>
      {view === "policy" ? (
        <PolicyText policy={props.policy} />
      ) : (
        <KnowledgeSearch domain={props.documentsOf} />
      )}
    </div>
  );
}

function PolicyText(props: { policy: string }) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query.trim());
  const blocks = useMemo(() => policyBlocks(props.policy), [props.policy]);
  const shown = useMemo(() => matching(blocks, deferred), [blocks, deferred]);
  const hits = deferred
    ? shown.filter((b) => blockText(b).toLowerCase().includes(deferred.toLowerCase())).length
    : 0;
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
            {hits} matching block{hits === 1 ? "" : "s"} of {blocks.length}
          </span>
        )}
      </div>
      <div className="policy-text markdown" data-testid="policy-text">
        {shown.map((block, i) => (
          <MarkdownBlockView key={i} block={block} query={deferred} />
        ))}
      </div>
    </div>
  );
}
