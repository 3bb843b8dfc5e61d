import { Emitter, literal } from "./emit.js";
import { Parser, PatternTooDeepError, PythonRegexSyntaxError } from "./parse.js";
import { mayPreferEmpty, unsupportedBackReference, width, type ParsedPattern } from "./pattern.js";

// Python `re` patterns (CPython 3.11, str patterns) run on JavaScript's RegExp, for τ²'s grep tool.
//
// The pattern is parsed with Python's grammar and rules, so exactly the patterns `re.compile` rejects are
// reported invalid (grep then falls back to the escaped literal, as the reference does), and the parsed
// pattern is written out as an equivalent `u`-mode JavaScript RegExp. Supported: literals and every
// Python escape (\a \f \n \r \t \v \xhh \uhhhh \Uhhhhhhhh octal \0 \ooo, escaped punctuation), `.`,
// classes (Python's `[]…]`, ranges, \d \w \s and their negations inside), \d \w \s \b \B with Python's
// Unicode meaning (\w = letters, numbers and `_`; \s = `str.isspace()`), \A \Z, `^` `$` with Python's
// meaning (`$` also before a final newline), greedy / lazy / possessive quantifiers including `{,n}`
// and `{,}`, groups, `(?P<name>…)`, `(?P=name)`, numbered back-references, `(?:…)`, `(?#…)`,
// look-ahead, fixed-width look-behind (Python's width rule is enforced), atomic groups `(?>…)`, global
// inline flags `(?aimsux)` at the start and scoped ones (`(?s:…)`, `(?-m:…)`…), verbose mode.
// Matches are counted as Python's `findall` counts them, including its retry after an empty match.
//
// Valid Python that has no JavaScript equivalent here is reported "unsupported" (never silently
// changed): conditional groups `(?(1)…|…)`, `\N{NAME}`, the `(?t)` flag, turning case-insensitivity off
// (or on) for part of a pattern, ASCII mode (`(?a)`) together with case-insensitive matching (JavaScript
// folds ſ and K into ASCII letters), back-references to a group that may not take part in the match or
// sits in a look-behind (JavaScript matches an unset group as empty where Python fails, and runs
// look-behinds right to left), and a repeated part that can match empty before matching text, such as
// `(a*?)+` (Python ends the loop at an empty iteration, JavaScript backtracks into it).
//
// Case-insensitive matching is JavaScript's simple case folding plus Python's one extra rule that
// matters, I/i/İ/ı as one letter; with it the two agree on all 2,978 case pairs of Unicode (characters
// related by a lower/upper/title/fold mapping, checked against CPython). Character properties come from
// the engine's Unicode version. A pattern that backtracks catastrophically hangs here as in Python.
// Checked against CPython 3.11.7 on some 30,000 generated patterns; compile.test.ts keeps a sample.

/** A JavaScript regex standing for a Python pattern, and how to count its matches the Python way. */
export interface CompiledPythonRegex {
  /** Global, `u`-mode regex. */
  readonly regex: RegExp;
  /**
   * For patterns that can prefer an empty match where a longer one exists: a sticky regex that finds only
   * non-empty matches, for Python's retry at the same position after an empty match.
   */
  readonly nonEmpty?: RegExp;
}

export type PythonRegexResult =
  | { kind: "ok"; compiled: CompiledPythonRegex }
  /** `re.compile` would raise `re.error`; `message` is Python's. */
  | { kind: "invalid"; message: string }
  /** Valid Python that this translation cannot run; `message` says which construct. */
  | { kind: "unsupported"; message: string };

/** Compiles a Python pattern (`re.compile(pattern, re.IGNORECASE if ignoreCase else 0)`). */
export function compilePythonRegex(pattern: string, options: { ignoreCase: boolean }): PythonRegexResult {
  let parsed: ParsedPattern;
  try {
    parsed = new Parser(pattern, options.ignoreCase).parse();
  } catch (error) {
    if (error instanceof PythonRegexSyntaxError) return { kind: "invalid", message: error.message };
    if (error instanceof PatternTooDeepError) return { kind: "unsupported", message: error.message };
    throw error;
  }
  const unsupported = parsed.unsupported ?? unsupportedBackReference(parsed.root);
  if (unsupported !== undefined) return { kind: "unsupported", message: unsupported };
  const flags = parsed.ignoreCase ? "giu" : "gu";
  try {
    const source = new Emitter(0, parsed.ignoreCase).emit(parsed.root);
    const compiled: { regex: RegExp; nonEmpty?: RegExp } = { regex: new RegExp(source, flags) };
    if (width(parsed.root, parsed.groupWidths)[0] === 0 && mayPreferEmpty(parsed.root)) {
      // (?=([\s\S]*)) keeps the rest of the text from the start; (?!\1$) at the end rejects an end there.
      const inner = new Emitter(1, parsed.ignoreCase).emit(parsed.root);
      compiled.nonEmpty = new RegExp(
        `(?=([\\s\\S]*))(?:${inner})(?!\\1(?![\\s\\S]))`,
        flags.replace("g", "y"),
      );
    }
    return { kind: "ok", compiled };
  } catch (error) {
    return { kind: "unsupported", message: `JavaScript cannot compile its translation (${String(error)})` };
  }
}

/** A compiled pattern for the literal text (what `re.escape` gives), for the reference's fallback. */
export function compileLiteral(text: string, options: { ignoreCase: boolean }): CompiledPythonRegex {
  const source = Array.from(text, (character) => literal(character.codePointAt(0)!)).join("");
  return { regex: new RegExp(source, options.ignoreCase ? "giu" : "gu") };
}

/** Python's `len(re.findall(pattern, text))`. */
export function countMatches(compiled: CompiledPythonRegex, text: string): number {
  const { regex, nonEmpty } = compiled;
  let count = 0;
  regex.lastIndex = 0;
  for (;;) {
    const match = regex.exec(text);
    if (match === null) return count;
    count++;
    if (match[0] !== "") continue;
    const at = match.index;
    if (nonEmpty) {
      // Python searches again at the same position, refusing only an empty match there.
      nonEmpty.lastIndex = at;
      if (nonEmpty.exec(text) !== null) {
        count++;
        regex.lastIndex = nonEmpty.lastIndex;
        continue;
      }
    }
    if (at >= text.length) return count;
    regex.lastIndex = at + (text.codePointAt(at)! > 0xffff ? 2 : 1);
  }
}
