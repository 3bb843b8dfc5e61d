import { pyLstrip, pyStrip, pyStripChars } from "./py-str.js";

// Docstring parsing with the behaviour of the Python package `docstring_parser` in AUTO style (what
// `from docstring_parser import parse` gives τ²'s Tool builder): every style parser is tried, those that
// fail are dropped, and the one with the most meta entries wins, ties going to the earlier style
// (reST, then Google). Google style is reproduced in full; reST far enough to count its `:field:`
// entries and to give its descriptions; numpydoc and epydoc find nothing in docstrings without
// underlined section titles or `@field` lines, so they only matter when both others fail.

/** A parsed parameter (or attribute) entry: `name (type): description` or `name: description`. */
export interface DocstringParam {
  argName: string;
  typeName: string | null;
  description: string;
  isOptional: boolean | null;
  default: string | null;
}

export interface DocstringMeta {
  /** The section key: param, attribute, raises, returns, yields, examples, or a reST field name. */
  key: string;
  description: string | null;
  typeName: string | null;
}

export interface ParsedDocstring {
  style: "rest" | "google" | "plain";
  shortDescription: string | null;
  longDescription: string | null;
  /** Parameter and attribute entries, in order (docstring_parser's `Docstring.params`). */
  params: DocstringParam[];
  /** All meta entries (their count decides the AUTO style). */
  meta: DocstringMeta[];
}

class DocstringParseError extends Error {}

/** Python's `str.expandtabs(8)`. */
function expandTabs(text: string, size = 8): string {
  let out = "";
  let column = 0;
  for (const ch of text) {
    if (ch === "\t") {
      const spaces = size - (column % size);
      out += " ".repeat(spaces);
      column += spaces;
    } else {
      out += ch;
      column = ch === "\n" || ch === "\r" ? 0 : column + 1;
    }
  }
  return out;
}

/** Python's `inspect.cleandoc` (as of 3.11). */
export function cleandoc(doc: string): string {
  const lines = expandTabs(doc).split("\n");
  let margin = Infinity;
  for (const line of lines.slice(1)) {
    const content = pyLstrip(line).length;
    if (content > 0) margin = Math.min(margin, line.length - content);
  }
  lines[0] = pyLstrip(lines[0]!);
  if (margin < Infinity) for (let i = 1; i < lines.length; i++) lines[i] = lines[i]!.slice(margin);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  while (lines.length > 0 && lines[0] === "") lines.shift();
  return lines.join("\n");
}

/** Short description = first line; long description = the rest, stripped, or null. */
function describe(descriptionChunk: string): Pick<ParsedDocstring, "shortDescription" | "longDescription"> {
  const newline = descriptionChunk.indexOf("\n");
  const first = newline < 0 ? descriptionChunk : descriptionChunk.slice(0, newline);
  const rest = newline < 0 ? undefined : descriptionChunk.slice(newline + 1);
  return {
    shortDescription: first || null,
    longDescription: rest === undefined ? null : pyStrip(rest) || null,
  };
}

// --- Google style -----------------------------------------------------------------------------------

type SectionType = "single" | "multiple" | "single-or-multiple";
const SECTIONS: ReadonlyArray<[title: string, key: string, type: SectionType]> = [
  ["Arguments", "param", "multiple"],
  ["Args", "param", "multiple"],
  ["Parameters", "param", "multiple"],
  ["Params", "param", "multiple"],
  ["Raises", "raises", "multiple"],
  ["Exceptions", "raises", "multiple"],
  ["Except", "raises", "multiple"],
  ["Attributes", "attribute", "multiple"],
  ["Example", "examples", "single"],
  ["Examples", "examples", "single"],
  ["Returns", "returns", "single-or-multiple"],
  ["Yields", "yields", "single-or-multiple"],
];
const SECTION_BY_TITLE = new Map(SECTIONS.map(([title, key, type]) => [title, { key, type }]));
const PARAM_KEYWORDS = new Set(["param", "parameter", "arg", "argument", "attribute", "key", "keyword"]);
const TITLES = new RegExp(`^(${SECTIONS.map(([title]) => `(${title})`).join("|")}):[ \\t\\r\\f\\v]*$`, "gm");
const TYPED_ARG = /^\s*(.+?)\s*\(\s*(.*[^\s]+)\s*\)/;
const ARG_DEFAULT = /^.*\. Defaults to (.+)\./;
const MULTIPLE = /^(?:(\s*[^:\s]+:)|([^:]*\]:.*))/;

interface GoogleEntry {
  meta: DocstringMeta;
  param?: DocstringParam;
}

function googleEntry(text: string, title: string): GoogleEntry {
  const section = SECTION_BY_TITLE.get(title)!;
  if (section.type === "single" || (section.type === "single-or-multiple" && !MULTIPLE.test(text))) {
    if (PARAM_KEYWORDS.has(section.key)) throw new DocstringParseError("Expected paramenter name.");
    return { meta: { key: section.key, description: text, typeName: null } };
  }
  const colon = text.indexOf(":");
  if (colon < 0) throw new DocstringParseError(`Expected a colon in ${JSON.stringify(text)}.`);
  const before = text.slice(0, colon);
  let description = text.slice(colon + 1);
  if (description) {
    if (description[0] === " ") description = description.slice(1);
    const newline = description.indexOf("\n");
    if (newline >= 0)
      description = description.slice(0, newline) + "\n" + cleandoc(description.slice(newline + 1));
    description = pyStripChars(description, "\n");
  }
  if (PARAM_KEYWORDS.has(section.key)) {
    const typed = TYPED_ARG.exec(before);
    let argName = before;
    let typeName: string | null = null;
    let isOptional: boolean | null = null;
    if (typed) {
      argName = typed[1]!;
      typeName = typed[2]!;
      isOptional = false;
      if (typeName.endsWith(", optional")) {
        isOptional = true;
        typeName = typeName.slice(0, -", optional".length);
      } else if (typeName.endsWith("?")) {
        isOptional = true;
        typeName = typeName.slice(0, -1);
      }
    }
    const defaultMatch = ARG_DEFAULT.exec(description);
    const param = {
      argName,
      typeName,
      description,
      isOptional,
      default: defaultMatch ? defaultMatch[1]! : null,
    };
    return { meta: { key: section.key, description, typeName }, param };
  }
  const typeName =
    section.key === "raises" || section.key === "returns" || section.key === "yields" ? before : null;
  return { meta: { key: section.key, description, typeName } };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function emptyDocstring(style: ParsedDocstring["style"]): ParsedDocstring {
  return { style, shortDescription: null, longDescription: null, params: [], meta: [] };
}

function parseGoogle(text: string): ParsedDocstring {
  const result = emptyDocstring("google");
  if (!text) return result;
  const cleaned = cleandoc(text);
  const matches = [...cleaned.matchAll(TITLES)];
  const metaStart = matches[0]?.index ?? cleaned.length;
  Object.assign(result, describe(cleaned.slice(0, metaStart)));
  if (matches.length === 0) return result;

  // One chunk per section title (a repeated title keeps its first position and its last text).
  const chunks = new Map<string, string>();
  matches.forEach((match, j) => {
    const start = match.index + match[0].length;
    const end = matches[j + 1]?.index ?? cleaned.length;
    let details = cleaned.slice(start, end);
    const unknown = /\n\S/.exec(details);
    if (unknown) details = details.slice(0, unknown.index);
    chunks.set(match[1]!, pyStripChars(details, "\n"));
  });

  for (const [title, chunk] of chunks) {
    const indent = /^\s*/.exec(chunk)![0];
    const section = SECTION_BY_TITLE.get(title)!;
    if (section.type !== "multiple") {
      const entry = googleEntry(cleandoc(chunk), title);
      result.meta.push(entry.meta);
      continue;
    }
    const starts = [...chunk.matchAll(new RegExp(`^${escapeRegExp(indent)}(?=\\S)`, "gm"))];
    if (starts.length === 0) throw new DocstringParseError(`No specification for "${title}": "${chunk}"`);
    starts.forEach((start, j) => {
      const from = start.index + start[0].length;
      const to = starts[j + 1]?.index ?? chunk.length;
      const entry = googleEntry(pyStripChars(chunk.slice(from, to), "\n"), title);
      result.meta.push(entry.meta);
      if (entry.param) result.params.push(entry.param);
    });
  }
  return result;
}

// --- reST style (descriptions and entry count) -------------------------------------------------------

function parseRest(text: string): ParsedDocstring {
  const result = emptyDocstring("rest");
  if (!text) return result;
  const cleaned = cleandoc(text);
  const fieldStart = /^:/m.exec(cleaned);
  const metaStart = fieldStart ? fieldStart.index : cleaned.length;
  Object.assign(result, describe(cleaned.slice(0, metaStart)));
  const metaChunk = cleaned.slice(metaStart);
  for (const match of metaChunk.matchAll(/^:[\s\S]*?(?=^:|(?![\s\S]))/gm)) {
    const chunk = match[0];
    if (!chunk) continue;
    const body = chunk.replace(/^:+/, "");
    const colon = body.indexOf(":");
    if (colon < 0) throw new DocstringParseError(`Error parsing meta information near "${chunk}".`);
    const args = body
      .slice(0, colon)
      .split(/\s+/)
      .filter((part) => part !== "");
    let description = pyStrip(body.slice(colon + 1));
    const newline = description.indexOf("\n");
    if (newline >= 0)
      description = description.slice(0, newline) + "\n" + cleandoc(description.slice(newline + 1));
    const key = args[0] ?? "";
    if (
      (args.length === 2 && key === "type") ||
      ((args.length === 1 || args.length === 2) && key === "rtype")
    )
      continue;
    if (PARAM_KEYWORDS.has(key)) {
      if (args.length !== 2 && args.length !== 3)
        throw new DocstringParseError(`Expected one or two arguments for a ${key} keyword.`);
      const argName = args[args.length - 1]!;
      const typeName = args.length === 3 ? args[1]! : null;
      result.params.push({ argName, typeName, description, isOptional: null, default: null });
    }
    result.meta.push({ key, description, typeName: null });
  }
  return result;
}

/** Parse a docstring as `docstring_parser.parse(text)` (AUTO style) does. */
export function parseDocstring(text: string | undefined | null): ParsedDocstring {
  const source = text ?? "";
  const candidates: ParsedDocstring[] = [];
  for (const parser of [parseRest, parseGoogle]) {
    try {
      candidates.push(parser(source));
    } catch (error) {
      if (!(error instanceof DocstringParseError)) throw error;
    }
  }
  if (candidates.length === 0) {
    // Neither style applies; numpydoc (no underlined titles here) reads it as plain description.
    const cleaned = source ? cleandoc(source) : "";
    return { style: "plain", ...describe(cleaned), params: [], meta: [] };
  }
  return candidates.reduce((best, candidate) =>
    candidate.meta.length > best.meta.length ? candidate : best,
  );
}

/** Parameter descriptions by name (a later entry with the same name wins, as in a Python dict). */
export function docstringParamMap(doc: ParsedDocstring): Map<string, DocstringParam> {
  return new Map(doc.params.map((param) => [param.argName, param]));
}
