/**
 * The block structure of a small Markdown subset, for policies and scenarios: headings, paragraphs,
 * nested lists, fenced code and rules (inline `code`, **bold** and *italic* are read when rendering,
 * in `markdown.tsx`).
 */
export type MarkdownBlock =
  | { kind: "heading"; level: number; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; ordered: boolean; items: ListItem[] }
  | { kind: "code"; text: string }
  | { kind: "rule" };

export interface ListItem {
  text: string;
  children: MarkdownBlock[];
}

// One way to match each line: the closing #s are taken off by `headingText`, not by the pattern (an
// optional tail after a lazy group made a line of spaces cost cubic time).
const HEADING = /^(#{1,6})\s+(.*)$/;
const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const FENCE = /^\s*```/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;

/** A heading's text without its optional closing sequence (`## Title ##`): #s after a space, at the end. */
function headingText(rest: string): string {
  const text = rest.trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  if (end === 0) return "";
  return end < text.length && /\s/.test(text[end - 1]!) ? text.slice(0, end).trimEnd() : text;
}

interface OpenList {
  indent: number;
  block: Extract<MarkdownBlock, { kind: "list" }>;
}

/** The blocks of a Markdown text, top level first. */
export function parseMarkdown(text: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let paragraph: string[] = [];
  let lists: OpenList[] = [];
  const flushParagraph = () => {
    if (paragraph.length > 0) blocks.push({ kind: "paragraph", text: paragraph.join(" ") });
    paragraph = [];
  };
  const closeLists = () => {
    lists = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) {
      flushParagraph();
      closeLists();
      const code: string[] = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]!); i++) code.push(lines[i]!);
      blocks.push({ kind: "code", text: code.join("\n") });
      continue;
    }
    if (line.trim() === "") {
      flushParagraph();
      // A list goes on after a blank line only if the next line is an item or indented.
      const next = lines.slice(i + 1).find((l) => l.trim() !== "");
      if (next === undefined || !(LIST_ITEM.test(next) || /^\s{2,}\S/.test(next))) closeLists();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushParagraph();
      closeLists();
      blocks.push({ kind: "heading", level: heading[1]!.length, text: headingText(heading[2]!) });
      continue;
    }
    if (RULE.test(line) && paragraph.length === 0) {
      closeLists();
      blocks.push({ kind: "rule" });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flushParagraph();
      const indent = item[1]!.replace(/\t/g, "    ").length;
      const ordered = /\d/.test(item[2]!);
      while (lists.length > 0 && lists[lists.length - 1]!.indent > indent) lists.pop();
      // A numbered list right after a bulleted one (or the other way round) is a new list.
      if (
        lists.length > 0 &&
        lists[lists.length - 1]!.indent === indent &&
        lists[lists.length - 1]!.block.ordered !== ordered
      )
        lists.pop();
      const open = lists[lists.length - 1];
      if (open && open.indent === indent) {
        open.block.items.push({ text: item[3]!, children: [] });
      } else {
        const block: OpenList["block"] = { kind: "list", ordered, items: [{ text: item[3]!, children: [] }] };
        const parent = open?.block.items[open.block.items.length - 1];
        if (parent) parent.children.push(block);
        else blocks.push(block);
        lists.push({ indent, block });
      }
      continue;
    }
    const open = lists[lists.length - 1];
    if (open && /^\s+\S/.test(line)) {
      // An indented line continues the last item.
      const last = open.block.items[open.block.items.length - 1]!;
      last.text = `${last.text} ${line.trim()}`;
      continue;
    }
    closeLists();
    paragraph.push(line.trim());
  }
  flushParagraph();
  return blocks;
}

/** Every text of a block, for search. */
export function blockText(block: MarkdownBlock): string {
  switch (block.kind) {
    case "heading":
    case "paragraph":
    case "code":
      return block.text;
    case "list":
      return block.items.map((item) => [item.text, ...item.children.map(blockText)].join(" ")).join(" ");
    case "rule":
      return "";
  }
}
