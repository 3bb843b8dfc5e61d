/** A document a knowledge-base search returned to the agent, read back from the tool's output. */
export interface ReturnedDocument {
  rank: number;
  title: string;
  id: string;
  score: string;
  content: string;
}

/** The knowledge-base search tools whose output lists documents (τ²'s text for hits). */
export const KNOWLEDGE_SEARCH_TOOLS: ReadonlySet<string> = new Set([
  "KB_search",
  "KB_search_bm25",
  "KB_search_dense",
  "grep",
]);

const HIT = /(\d+)\. (.*)\n {3}ID: (.*)\n {3}Score: (.*)\n {3}Content: /y;

/**
 * The documents in a `KB_search` (or `grep`) output, in rank order: each hit is
 * `{rank}. {title}\n   ID: {id}\n   Score: {score}\n   Content: {content}\n`, hits joined by a blank line,
 * the timing line last. A hit starts only where the next rank and its ID and Score lines do, so a
 * numbered list inside a document stays in its content. An output that is not such a list gives none.
 */
export function returnedDocuments(output: string): ReturnedDocument[] {
  const text = output.replace(/\n\n\[Timing: [^\]\n]*\]$/, "");
  const hits: Array<{ at: number; match: RegExpExecArray }> = [];
  for (let at = 0; at >= 0;) {
    HIT.lastIndex = at;
    const match = HIT.exec(text);
    if (match && Number(match[1]) === hits.length + 1) hits.push({ at, match });
    else if (hits.length === 0) return [];
    const next = text.indexOf(`\n\n${hits.length + 1}. `, at + 1);
    at = next < 0 ? -1 : next + 2;
  }
  return hits.map(({ at, match }, i) => {
    const end = i + 1 < hits.length ? hits[i + 1]!.at - 2 : text.length;
    return {
      rank: Number(match[1]),
      title: match[2]!,
      id: match[3]!,
      score: match[4]!,
      content: text.slice(at + match[0].length, end).replace(/\n$/, ""),
    };
  });
}
