import { PasskError } from "../core/errors.js";
import type { SearchHit } from "./bm25.js";
import type { KnowledgeBase } from "./knowledge-base.js";
import {
  compileLiteral,
  compilePythonRegex,
  countMatches,
  type CompiledPythonRegex,
} from "./python-regex.js";

/**
 * A grep pattern that is valid Python but uses a construct passk cannot run on JavaScript's regex engine
 * (see `python-regex.ts` for the list). Python would have searched with it, so passk does not silently
 * search for something else; the tool reports it to the model instead.
 */
export class UnsupportedPatternError extends PasskError {
  constructor(
    readonly pattern: string,
    readonly construct: string,
  ) {
    super(
      "unsupported_pattern",
      `grep pattern "${pattern}" uses ${construct}, which passk cannot run; rewrite the pattern without it.`,
    );
    this.name = "UnsupportedPatternError";
  }
}

export interface GrepOptions {
  /** τ²'s grep is case-insensitive (`re.IGNORECASE`); default false. */
  caseSensitive?: boolean;
}

/**
 * The documents a Python regular expression matches in, as τ²'s `grep` tool finds them: the pattern is
 * compiled as Python's `re` would (an invalid pattern falls back to its escaped literal, as the reference
 * does), each document's content is scored by its number of non-overlapping matches (`len(findall)`),
 * documents without a match are dropped, the rest are sorted by score (ties in KB order) and cut to `topK`.
 * Throws UnsupportedPatternError for valid Python that passk cannot translate.
 *
 * @example
 * grepSearch(kb, "fee|charge").map((hit) => [hit.document.id, hit.score])
 */
export function grepSearch(
  kb: KnowledgeBase,
  pattern: string,
  topK = 10,
  options: GrepOptions = {},
): SearchHit[] {
  const compiled = compileGrepPattern(pattern, options);
  const hits: SearchHit[] = [];
  for (const document of kb.documents) {
    const score = countMatches(compiled, document.content);
    if (score > 0) hits.push({ document, score });
  }
  hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, Math.max(0, topK));
}

/** The regex grep searches with: the pattern itself, or its literal text when Python rejects it. */
export function compileGrepPattern(pattern: string, options: GrepOptions = {}): CompiledPythonRegex {
  const ignoreCase = !options.caseSensitive;
  const result = compilePythonRegex(pattern, { ignoreCase });
  switch (result.kind) {
    case "ok":
      return result.compiled;
    case "invalid":
      return compileLiteral(pattern, { ignoreCase });
    case "unsupported":
      throw new UnsupportedPatternError(pattern, result.message);
  }
}
