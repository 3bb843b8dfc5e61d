import { Fragment, useDeferredValue, useLayoutEffect, useMemo, useRef, useState } from "react";
import { policyPassages, sectionTagTitle } from "../../../src/knowledge/policy-passages.js";
import type { PolicyLinkView } from "../../../src/server/api-schemas.js";
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
    if (tag[1] === "") blocks.push({ kind: "heading", level: 1, text: sectionTagTitle(tag[2]!) });
  }
  flush();
  return blocks;
}

/** A block of the policy and the passage it belongs to (null: a heading, or between passages). */
export interface PolicyPiece {
  block: MarkdownBlock;
  passage: number | null;
}

/**
 * The policy's blocks, each with its passage: the text is split as the server split it to link actions
 * (`policyPassages`), each piece rendered on its own, so a linked passage is one run of blocks.
 */
export function policyPieces(policy: string): PolicyPiece[] {
  const pieces: PolicyPiece[] = [];
  let at = 0;
  const add = (text: string, passage: number | null) => {
    for (const block of policyBlocks(text)) pieces.push({ block, passage });
  };
  for (const passage of policyPassages(policy)) {
    add(policy.slice(at, passage.start), null);
    add(policy.slice(passage.start, passage.end), passage.index);
    at = passage.end;
  }
  add(policy.slice(at), null);
  return pieces;
}

/**
 * The blocks to show for a search: every block when there is none; else the blocks that mention it,
 * each under the headings of its section (so a match is read in its place).
 */
function matching(pieces: readonly PolicyPiece[], query: string): PolicyPiece[] {
  if (!query) return [...pieces];
  const needle = query.toLowerCase();
  const shown: PolicyPiece[] = [];
  const headings: Array<PolicyPiece & { block: Extract<MarkdownBlock, { kind: "heading" }> }> = [];
  let emitted = 0; // how many of `headings` are already shown
  for (const piece of pieces) {
    const block = piece.block;
    if (block.kind === "heading") {
      while (headings.length > 0 && headings[headings.length - 1]!.block.level >= block.level) headings.pop();
      headings.push({ block, passage: piece.passage });
      emitted = Math.min(emitted, headings.length - 1);
      if (block.text.toLowerCase().includes(needle)) {
        shown.push(...headings.slice(emitted));
        emitted = headings.length;
      }
      continue;
    }
    if (blockText(block).toLowerCase().includes(needle)) {
      shown.push(...headings.slice(emitted), piece);
      emitted = headings.length;
    }
  }
  return shown;
}

/**
 * A policy passage to show highlighted: the one the newest linked action exercises, or the one a person
 * asked for (a card's policy badge: `request` counts the asks, each scrolling to it again).
 */
export interface PolicyFocus {
  link: PolicyLinkView;
  /** What exercised it ("cancel_reservation", "the agent's refusal"). */
  by: string;
  request: number;
}

/**
 * The domain policy, rendered from its Markdown, searchable: matching blocks under their headings,
 * matches marked; the passage `focus` names highlighted and scrolled into view. A domain with a knowledge
 * base (`documentsOf`) gets a second view that searches it.
 */
export function PolicyPane(props: {
  policy: string;
  documentsOf?: string | undefined;
  focus?: PolicyFocus | null | undefined;
}) {
  const [view, setView] = useState<"policy" | "documents">("policy");
  const request = props.focus?.request ?? 0;
  // A person asking for a passage is shown the policy, even from the knowledge base.
  useLayoutEffect(() => {
    if (request > 0) setView("policy");
  }, [request]);
  const text = <PolicyText policy={props.policy} focus={props.focus ?? null} />;
  if (props.documentsOf === undefined) return text;
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
      {view === "policy" ? text : <KnowledgeSearch domain={props.documentsOf} />}
    </div>
  );
}

/** Shown pieces in runs: a passage's blocks together (to highlight as one), the rest one by one. */
function runs(pieces: readonly PolicyPiece[]): Array<{ passage: number | null; blocks: MarkdownBlock[] }> {
  const out: Array<{ passage: number | null; blocks: MarkdownBlock[] }> = [];
  for (const piece of pieces) {
    const last = out[out.length - 1];
    if (last && piece.passage !== null && last.passage === piece.passage) last.blocks.push(piece.block);
    else out.push({ passage: piece.passage, blocks: [piece.block] });
  }
  return out;
}

function PolicyText(props: { policy: string; focus: PolicyFocus | null }) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query.trim());
  const pieces = useMemo(() => policyPieces(props.policy), [props.policy]);
  const shown = useMemo(() => runs(matching(pieces, deferred)), [pieces, deferred]);
  const hits = deferred
    ? matching(pieces, deferred).filter((p) =>
        blockText(p.block).toLowerCase().includes(deferred.toLowerCase()),
      ).length
    : 0;
  const scroller = useRef<HTMLDivElement>(null);
  const focused = props.focus?.link.passage;
  const request = props.focus?.request ?? 0;
  // An asked-for passage must be shown: the search is cleared.
  useLayoutEffect(() => {
    if (request > 0) setQuery("");
  }, [request]);
  // The highlighted passage scrolls into view inside the policy (never the page around it), once per
  // link or ask: as soon as it is shown, not again while the reader searches.
  const scrolledFor = useRef("");
  useLayoutEffect(() => {
    const box = scroller.current;
    const target = box?.querySelector<HTMLElement>(`[data-passage="${focused}"]`);
    if (!box || !target || scrolledFor.current === `${focused}:${request}`) return;
    scrolledFor.current = `${focused}:${request}`;
    box.scrollTop += target.getBoundingClientRect().top - box.getBoundingClientRect().top - 24;
  }, [focused, request, shown]);
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
            {hits} matching block{hits === 1 ? "" : "s"} of {pieces.length}
          </span>
        )}
      </div>
      <div className="policy-text markdown" data-testid="policy-text" ref={scroller}>
        {shown.map((run, i) => {
          const blocks = run.blocks.map((block, j) => (
            <MarkdownBlockView key={j} block={block} query={deferred} />
          ));
          if (run.passage === null) return <Fragment key={`b${i}`}>{blocks}</Fragment>;
          const linked = run.passage === focused;
          return (
            <div
              key={`p${run.passage}-${i}`}
              className={`policy-passage${linked ? " linked" : ""}`}
              data-passage={run.passage}
              data-testid={linked ? "linked-passage" : undefined}
            >
              {linked && props.focus && (
                <span className="policy-passage-by" data-testid="linked-passage-by">
                  {props.focus.by} · score {props.focus.link.score.toFixed(1)}
                </span>
              )}
              {blocks}
            </div>
          );
        })}
      </div>
    </div>
  );
}
