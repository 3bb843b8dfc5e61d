// A policy's passages: the units a tool call or a refusal is linked to. Pure string code with no imports,
// so the web app splits the policy it renders exactly as the server split the one it linked.

/** One passage of a policy: a paragraph, a list, or a paragraph introducing the list that follows it. */
export interface PolicyPassage {
  /** Its position among the policy's passages, from 0. */
  index: number;
  /** Its character range in the policy text: `policy.slice(start, end)` is the passage. */
  start: number;
  end: number;
  /** The headings it sits under, outermost first (a telecom section tag counts as one). */
  headings: readonly string[];
}

const HEADING = /^(#{1,6})\s+(.*)$/;
const SECTION_TAG = /^\s*<(\/?)([A-Za-z][\w-]*)>\s*$/;
const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+/;
const FENCE = /^\s*```/;

/** A section tag's name as a heading: `tech_support_policy` → "Tech support policy". */
export function sectionTagTitle(tag: string): string {
  const title = tag.replace(/[_-]+/g, " ");
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/**
 * The passages of a Markdown policy, in order. A passage is a run of lines between blank lines and
 * headings; a paragraph ending in a colon takes the list after it, and a list goes on across blank
 * lines while its items do. Headings, blank lines and section tags (`<main_policy>`) belong to no
 * passage: they give passages their `headings`.
 *
 * @example
 * policyPassages("## Cancel\n\nA flight can be cancelled if:\n- it was booked today")
 * // [{ index: 0, start: 11, end: 62, headings: ["Cancel"] }]
 */
export function policyPassages(policy: string): PolicyPassage[] {
  const lines: Array<{ text: string; start: number; end: number }> = [];
  for (let at = 0; at <= policy.length;) {
    const newline = policy.indexOf("\n", at);
    const end = newline < 0 ? policy.length : newline;
    lines.push({ text: policy.slice(at, end).replace(/\r$/, ""), start: at, end });
    if (newline < 0) break;
    at = newline + 1;
  }
  const passages: PolicyPassage[] = [];
  let headings: Array<{ level: number; text: string }> = [];
  let open: { start: number; end: number; last: string } | undefined;
  const close = () => {
    if (open)
      passages.push({
        index: passages.length,
        start: open.start,
        end: open.end,
        headings: headings.map((h) => h.text),
      });
    open = undefined;
  };
  const nextContent = (from: number) => lines.slice(from).find((line) => line.text.trim() !== "")?.text;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const tag = SECTION_TAG.exec(line.text);
    const heading = HEADING.exec(line.text);
    if (tag || heading) {
      close();
      if (tag) headings = tag[1] === "" ? [{ level: 0, text: sectionTagTitle(tag[2]!) }] : [];
      else {
        const level = heading![1]!.length;
        const text = heading![2]!.trim().replace(/\s+#+$/, "");
        headings = [...headings.filter((h) => h.level < level), { level, text }];
      }
      continue;
    }
    if (line.text.trim() === "") {
      // A passage goes on across a blank line only into the list its last line introduces or belongs to.
      const next = nextContent(i + 1);
      const intoList =
        open !== undefined &&
        next !== undefined &&
        LIST_ITEM.test(next) &&
        (open.last.trimEnd().endsWith(":") || LIST_ITEM.test(open.last) || /^\s+\S/.test(open.last));
      if (!intoList) close();
      continue;
    }
    if (FENCE.test(line.text)) {
      // A fenced block is one piece of its passage, blank lines and all.
      let j = i + 1;
      while (j < lines.length && !FENCE.test(lines[j]!.text)) j++;
      const last = lines[Math.min(j, lines.length - 1)]!;
      if (open) open = { start: open.start, end: last.end, last: last.text };
      else open = { start: line.start, end: last.end, last: last.text };
      i = j;
      continue;
    }
    if (open) open = { start: open.start, end: line.end, last: line.text };
    else open = { start: line.start, end: line.end, last: line.text };
  }
  close();
  return passages;
}
