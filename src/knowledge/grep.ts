import vm from "node:vm";
import { PasskError } from "../core/errors.js";
import type { SearchHit } from "./bm25.js";
import type { KnowledgeBase } from "./knowledge-base.js";
import {
  compileLiteral,
  compilePythonRegex,
  countMatches,
  type CompiledPythonRegex,
} from "../python/py-re/compile.js";

/**
 * A grep pattern that is valid Python but uses a construct passk cannot run on JavaScript's regex engine
 * (see `python/py-re/compile.ts` for the list). Python would have searched with it, so passk does not silently
 * search for something else; the tool reports it to the model instead.
 */
export class UnsupportedPatternError extends PasskError {
  constructor(
    readonly pattern: string,
    readonly construct: string,
  ) {
    super(
      "unsupported_pattern",
      `grep pattern "${pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern}" uses ${construct}, which passk cannot run; rewrite the pattern without it.`,
    );
    this.name = "UnsupportedPatternError";
  }
}

/**
 * A grep pattern whose search over the knowledge base took longer than the time budget (a regex that
 * backtracks catastrophically, such as `(\w+\s?)*$`). The search is stopped, the process goes on, and
 * the tool tells the model to write a simpler pattern.
 */
export class PatternTooExpensiveError extends PasskError {
  constructor(
    readonly pattern: string,
    readonly budgetMs: number,
  ) {
    super(
      "pattern_too_expensive",
      `grep pattern "${pattern.slice(0, 200)}" is too expensive: the search was stopped after ${budgetMs} ms; use a simpler pattern (no nested repetition such as (a+)*).`,
    );
    this.name = "PatternTooExpensiveError";
  }
}

/** How long one grep call may search the whole knowledge base (the official KB takes a few ms). */
export const GREP_TIME_BUDGET_MS = 2000;

export interface GrepOptions {
  /** τ²'s grep is case-insensitive (`re.IGNORECASE`); default false. */
  caseSensitive?: boolean;
  /** Time budget for the search, in milliseconds; default GREP_TIME_BUDGET_MS. */
  budgetMs?: number;
}

// One context, reused: `vm`'s timeout interrupts even a backtracking regex, synchronously.
let searchContext: vm.Context | undefined;

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
  const search = () => {
    for (const document of kb.documents) {
      const score = countMatches(compiled, document.content);
      if (score > 0) hits.push({ document, score });
    }
  };
  const budgetMs = options.budgetMs ?? GREP_TIME_BUDGET_MS;
  searchContext ??= vm.createContext({});
  searchContext.search = search;
  try {
    vm.runInContext("search()", searchContext, { timeout: budgetMs });
  } catch (error) {
    if (isTimeout(error)) throw new PatternTooExpensiveError(pattern, budgetMs);
    throw error;
  } finally {
    searchContext.search = undefined;
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

function isTimeout(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    error.code === "ERR_SCRIPT_EXECUTION_TIMEOUT"
  );
}
