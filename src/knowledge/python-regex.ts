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
// Checked against CPython 3.11.7 on some 30,000 generated patterns; python-regex.test.ts keeps a sample.

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

// ---------------------------------------------------------------------------------------------------
// The parsed pattern

type Category = { kind: "digit" | "word" | "space"; negate: boolean; ascii: boolean };
type SetItem =
  | { t: "char"; code: number }
  | { t: "range"; lo: number; hi: number }
  | { t: "category"; category: Category };
type Anchor = "start" | "end" | "start-multiline" | "end-multiline" | "string-start" | "string-end";

type Node =
  | { t: "char"; code: number }
  | { t: "any"; dotAll: boolean }
  | { t: "set"; negate: boolean; items: SetItem[] }
  | { t: "category"; category: Category }
  | { t: "anchor"; anchor: Anchor }
  | { t: "boundary"; negate: boolean; ascii: boolean }
  | { t: "group"; group: number | null; body: Node }
  | { t: "look"; behind: boolean; negate: boolean; body: Node }
  | { t: "atomic"; body: Node }
  | { t: "ref"; group: number }
  | { t: "repeat"; min: number; max: number; mode: "greedy" | "lazy" | "possessive"; body: Node }
  | { t: "sequence"; items: Node[] }
  | { t: "alternation"; branches: Node[] };

interface ParsedPattern {
  root: Node;
  ignoreCase: boolean;
  groupWidths: Map<number, [number, number]>;
  unsupported: string | undefined;
}

class PythonRegexSyntaxError extends Error {}

/**
 * How deep groups may nest. The parser, the checks and the emitter recurse once per level, so 5,000
 * levels overflowed the stack ("Maximum call stack size exceeded" as the tool's answer). Python 3.11's
 * own parser accepts 400 levels and raises RecursionError at 500; deeper patterns are refused by name.
 */
export const MAX_GROUP_NESTING = 400;

class PatternTooDeepError extends Error {}

const MAXREPEAT = 4294967295;
const WHITESPACE = new Set([" ", "\t", "\n", "\r", "\v", "\f"]);
const FLAG_LETTERS = "aiLmstux";
const ESCAPES: Readonly<Record<string, number>> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92 };
const CATEGORY_ESCAPES: Readonly<Record<string, Omit<Category, "ascii">>> = {
  d: { kind: "digit", negate: false },
  D: { kind: "digit", negate: true },
  s: { kind: "space", negate: false },
  S: { kind: "space", negate: true },
  w: { kind: "word", negate: false },
  W: { kind: "word", negate: true },
};
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isOctal = (c: string | undefined) => c !== undefined && c >= "0" && c <= "7";
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isAsciiLetter = (c: string) => /^[a-zA-Z]$/.test(c);
const isIdentifier = (name: string) => /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u.test(name);

interface Flags {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
  verbose: boolean;
  ascii: boolean;
}

class Parser {
  private readonly chars: string[];
  private position = 0;
  private groupCount = 0;
  private readonly openGroups = new Set<number>();
  private readonly groupNames = new Map<string, number>();
  private readonly groupWidths = new Map<number, [number, number]>();
  private readonly conditionalReferences: number[] = [];
  private lookbehindGroups: number | undefined;
  private globalFlags: Flags;
  private unsupported: string | undefined;

  constructor(
    pattern: string,
    private readonly baseIgnoreCase: boolean,
  ) {
    this.chars = Array.from(pattern);
    this.globalFlags = {
      ignoreCase: baseIgnoreCase,
      multiline: false,
      dotAll: false,
      verbose: false,
      ascii: false,
    };
  }

  parse(): ParsedPattern {
    const root = this.parseAlternation(this.globalFlags, 0);
    if (this.position < this.chars.length) this.fail("unbalanced parenthesis");
    for (const group of this.conditionalReferences)
      if (group > this.groupCount) this.fail(`invalid group reference ${group}`);
    this.checkLookbehinds(root);
    this.checkRepeats(root);
    return {
      root,
      ignoreCase: this.globalFlags.ignoreCase,
      groupWidths: this.groupWidths,
      unsupported: this.unsupported,
    };
  }

  private fail(message: string): never {
    throw new PythonRegexSyntaxError(message);
  }

  private markUnsupported(message: string): void {
    this.unsupported ??= message;
  }

  private peek(): string | undefined {
    return this.chars[this.position];
  }

  private next(): string | undefined {
    return this.chars[this.position++];
  }

  private match(character: string): boolean {
    if (this.chars[this.position] !== character) return false;
    this.position++;
    return true;
  }

  /** Characters up to `terminator` (consumed), as Python's `getuntil`. */
  private until(terminator: string, what: string): string {
    let result = "";
    for (;;) {
      const character = this.next();
      if (character === undefined) this.fail(`missing ${terminator}, unterminated name`);
      if (character === terminator) break;
      result += character;
    }
    if (result === "") this.fail(`missing ${what}`);
    return result;
  }

  private parseAlternation(flags: Flags, nested: number): Node {
    if (nested > MAX_GROUP_NESTING)
      throw new PatternTooDeepError(
        `groups nested more than ${MAX_GROUP_NESTING} deep (Python's own parser gives up near 500 with RecursionError)`,
      );
    const branches = [this.parseSequence(flags, nested, nested === 0)];
    // Global flags (only allowed at the very start) hold for every later alternative.
    while (this.match("|"))
      branches.push(this.parseSequence(nested === 0 ? this.globalFlags : flags, nested, false));
    return branches.length === 1 ? branches[0]! : { t: "alternation", branches };
  }

  private parseSequence(inherited: Flags, nested: number, first: boolean): Node {
    let flags = inherited;
    const items: Node[] = [];
    for (;;) {
      const character = this.peek();
      if (character === undefined || character === "|" || character === ")") break;
      this.position++;
      if (flags.verbose) {
        if (WHITESPACE.has(character)) continue;
        if (character === "#") {
          for (let c = this.next(); c !== undefined && c !== "\n"; c = this.next());
          continue;
        }
      }
      switch (character) {
        case "\\":
          items.push(this.parseEscape(flags));
          break;
        case "[":
          items.push(this.parseSet(flags));
          break;
        case ".":
          items.push({ t: "any", dotAll: flags.dotAll });
          break;
        case "^":
          items.push({ t: "anchor", anchor: flags.multiline ? "start-multiline" : "start" });
          break;
        case "$":
          items.push({ t: "anchor", anchor: flags.multiline ? "end-multiline" : "end" });
          break;
        case "(": {
          const result = this.parseGroup(flags, nested, first && items.length === 0);
          if (result === "global-flags") flags = { ...flags, ...this.globalFlagsOnly() };
          else if (result !== undefined) items.push(result);
          break;
        }
        case "*":
        case "+":
        case "?":
        case "{":
          this.parseRepeat(character, items, flags);
          break;
        default:
          items.push(this.literalNode(character, flags));
      }
    }
    return items.length === 1 ? items[0]! : { t: "sequence", items };
  }

  private globalFlagsOnly(): Partial<Flags> {
    const { ignoreCase, multiline, dotAll, verbose, ascii } = this.globalFlags;
    return { ignoreCase, multiline, dotAll, verbose, ascii };
  }

  private literalNode(character: string, flags: Flags): Node {
    this.checkAsciiCase(flags);
    return { t: "char", code: character.codePointAt(0)! };
  }

  private checkAsciiCase(flags: Flags): void {
    // JavaScript folds ſ to s and K to k even in ASCII classes; Python's ASCII mode does not.
    if (flags.ascii && flags.ignoreCase)
      this.markUnsupported("ASCII mode (?a) with case-insensitive matching");
  }

  private parseRepeat(character: string, items: Node[], flags: Flags): void {
    let min: number;
    let max: number;
    if (character === "{") {
      const start = this.position;
      let low = "";
      let high = "";
      while (isDigit(this.peek())) low += this.next();
      const comma = this.match(",");
      if (comma) while (isDigit(this.peek())) high += this.next();
      else high = low;
      if ((!comma && low === "") || !this.match("}")) {
        // Not a repeat: a literal "{".
        this.position = start;
        items.push(this.literalNode("{", flags));
        return;
      }
      min = low === "" ? 0 : Number(low);
      max = high === "" ? MAXREPEAT : Number(high);
      if (min >= MAXREPEAT || (high !== "" && max >= MAXREPEAT))
        this.fail("the repetition number is too large");
      if (max < min) this.fail("min repeat greater than max repeat");
    } else {
      [min, max] = character === "*" ? [0, MAXREPEAT] : character === "+" ? [1, MAXREPEAT] : [0, 1];
    }
    const item = items[items.length - 1];
    if (item === undefined || item.t === "anchor" || item.t === "boundary") this.fail("nothing to repeat");
    if (item.t === "repeat") this.fail("multiple repeat");
    const mode = this.match("?") ? "lazy" : this.match("+") ? "possessive" : "greedy";
    items[items.length - 1] = { t: "repeat", min, max, mode, body: item };
  }

  private parseEscape(flags: Flags): Node {
    const character = this.next();
    if (character === undefined) this.fail("bad escape (end of pattern)");
    switch (character) {
      case "A":
        return { t: "anchor", anchor: "string-start" };
      case "Z":
        return { t: "anchor", anchor: "string-end" };
      case "b":
      case "B":
        this.checkAsciiCase(flags);
        return { t: "boundary", negate: character === "B", ascii: flags.ascii };
    }
    const category = CATEGORY_ESCAPES[character];
    if (category) {
      this.checkAsciiCase(flags);
      return { t: "category", category: { ...category, ascii: flags.ascii } };
    }
    const code = this.escapeCode(character, false);
    if (code !== undefined) {
      this.checkAsciiCase(flags);
      return { t: "char", code };
    }
    // \1-\99 (or a three-digit octal escape)
    let digits = character;
    if (isDigit(this.peek())) {
      digits += this.next();
      if (isOctal(digits[0]) && isOctal(digits[1]) && isOctal(this.peek())) {
        digits += this.next();
        const value = parseInt(digits, 8);
        if (value > 0o377) this.fail(`octal escape value \\${digits} outside of range 0-0o377`);
        return { t: "char", code: value };
      }
    }
    const group = Number(digits);
    if (group > this.groupCount) this.fail(`invalid group reference ${group}`);
    this.checkReference(group);
    return { t: "ref", group };
  }

  /**
   * The code point of an escape that stands for one character (shared by classes and the rest), or
   * undefined for a digit escape outside a class (a back-reference). Throws Python's errors.
   */
  private escapeCode(character: string, inSet: boolean): number | undefined {
    const known = ESCAPES[character];
    if (known !== undefined) return known;
    if (inSet && character === "b") return 8;
    switch (character) {
      case "x":
        return this.hexEscape(character, 2);
      case "u":
        return this.hexEscape(character, 4);
      case "U": {
        const value = this.hexEscape(character, 8);
        if (value > 0x10ffff) this.fail(`bad escape \\U${value.toString(16).padStart(8, "0")}`);
        return value;
      }
      case "N": {
        if (!this.match("{")) this.fail("missing {");
        this.until("}", "character name");
        this.markUnsupported("\\N{…} named characters");
        return 0xfffd;
      }
    }
    if (character === "0" || (inSet && isOctal(character))) {
      let digits = character;
      for (let i = 0; i < 2 && isOctal(this.peek()); i++) digits += this.next();
      const value = parseInt(digits, 8);
      if (value > 0o377) this.fail(`octal escape value \\${digits} outside of range 0-0o377`);
      return value;
    }
    if (isDigit(character)) {
      if (inSet) this.fail(`bad escape \\${character}`);
      return undefined;
    }
    if (isAsciiLetter(character)) this.fail(`bad escape \\${character}`);
    return character.codePointAt(0)!;
  }

  private hexEscape(letter: string, length: number): number {
    let digits = "";
    while (digits.length < length && isHex(this.peek())) digits += this.next();
    if (digits.length !== length) this.fail(`incomplete escape \\${letter}${digits}`);
    return parseInt(digits, 16);
  }

  private checkReference(group: number): void {
    if (this.openGroups.has(group)) this.fail("cannot refer to an open group");
    this.checkLookbehindReference(group);
  }

  private checkLookbehindReference(group: number): void {
    if (this.lookbehindGroups === undefined) return;
    if (group > this.groupCount || this.openGroups.has(group)) this.fail("cannot refer to an open group");
    if (group >= this.lookbehindGroups)
      this.fail("cannot refer to group defined in the same lookbehind subpattern");
  }

  private parseSet(flags: Flags): Node {
    const negate = this.match("^");
    const items: SetItem[] = [];
    const item = (character: string): SetItem => {
      this.checkAsciiCase(flags);
      if (character !== "\\") return { t: "char", code: character.codePointAt(0)! };
      const escaped = this.next();
      if (escaped === undefined) this.fail("bad escape (end of pattern)");
      const category = CATEGORY_ESCAPES[escaped];
      if (category) return { t: "category", category: { ...category, ascii: flags.ascii } };
      return { t: "char", code: this.escapeCode(escaped, true)! };
    };
    for (;;) {
      const character = this.next();
      if (character === undefined) this.fail("unterminated character set");
      if (character === "]" && items.length > 0) break;
      const first = item(character);
      if (!this.match("-")) {
        items.push(first);
        continue;
      }
      const second = this.next();
      if (second === undefined) this.fail("unterminated character set");
      if (second === "]") {
        items.push(first, { t: "char", code: 0x2d });
        break;
      }
      const last = item(second);
      if (first.t !== "char" || last.t !== "char" || last.code < first.code)
        this.fail(`bad character range ${character}-${second}`);
      items.push({ t: "range", lo: first.code, hi: last.code });
    }
    return { t: "set", negate, items };
  }

  /** A group, look-around, comment or flag group; "global-flags" for `(?i)`, undefined for a comment. */
  private parseGroup(flags: Flags, nested: number, first: boolean): Node | "global-flags" | undefined {
    let capture = true;
    let atomic = false;
    let name: string | undefined;
    let groupFlags = flags;
    if (this.match("?")) {
      const character = this.next();
      if (character === undefined) this.fail("unexpected end of pattern");
      if (character === "P") {
        if (this.match("<")) {
          name = this.until(">", "group name");
          if (!isIdentifier(name)) this.fail(`bad character in group name '${name}'`);
        } else if (this.match("=")) {
          const reference = this.until(")", "group name");
          if (!isIdentifier(reference)) this.fail(`bad character in group name '${reference}'`);
          const group = this.groupNames.get(reference);
          if (group === undefined) this.fail(`unknown group name '${reference}'`);
          this.checkReference(group);
          return { t: "ref", group };
        } else {
          const next = this.next();
          if (next === undefined) this.fail("unexpected end of pattern");
          this.fail(`unknown extension ?P${next}`);
        }
      } else if (character === ":") {
        capture = false;
      } else if (character === "#") {
        for (;;) {
          const next = this.next();
          if (next === undefined) this.fail("missing ), unterminated comment");
          if (next === ")") return undefined;
        }
      } else if (character === "=" || character === "!" || character === "<") {
        let behind = false;
        let kind = character;
        if (character === "<") {
          const next = this.next();
          if (next === undefined) this.fail("unexpected end of pattern");
          if (next !== "=" && next !== "!") this.fail(`unknown extension ?<${next}`);
          behind = true;
          kind = next;
        }
        const outermost = behind && this.lookbehindGroups === undefined;
        if (outermost) this.lookbehindGroups = this.groupCount + 1;
        const body = this.parseAlternation(flags, nested + 1);
        if (outermost) this.lookbehindGroups = undefined;
        if (!this.match(")")) this.fail("missing ), unterminated subpattern");
        return { t: "look", behind, negate: kind === "!", body };
      } else if (character === "(") {
        this.parseConditional(flags, nested);
        return { t: "sequence", items: [] };
      } else if (character === ">") {
        capture = false;
        atomic = true;
      } else if (FLAG_LETTERS.includes(character) || character === "-") {
        const parsed = this.parseFlags(character);
        if (parsed === "global") {
          if (!first) this.fail("global flags not at the start of the expression");
          return "global-flags";
        }
        capture = false;
        groupFlags = this.scopedFlags(flags, parsed.add, parsed.remove);
      } else {
        this.fail(`unknown extension ?${character}`);
      }
    }
    let group: number | null = null;
    if (capture) {
      group = ++this.groupCount;
      if (name !== undefined) {
        const earlier = this.groupNames.get(name);
        if (earlier !== undefined)
          this.fail(`redefinition of group name '${name}' as group ${group}; was group ${earlier}`);
        this.groupNames.set(name, group);
      }
      this.openGroups.add(group);
    }
    const body = this.parseAlternation(groupFlags, nested + 1);
    if (!this.match(")")) this.fail("missing ), unterminated subpattern");
    if (group !== null) {
      this.openGroups.delete(group);
      this.groupWidths.set(group, width(body, this.groupWidths));
    }
    return atomic ? { t: "atomic", body } : { t: "group", group, body };
  }

  private parseConditional(flags: Flags, nested: number): void {
    const condition = this.until(")", "group name");
    if (isIdentifier(condition)) {
      const group = this.groupNames.get(condition);
      if (group === undefined) this.fail(`unknown group name '${condition}'`);
      this.checkLookbehindReference(group);
    } else {
      // Python reads the number with int(): spaces, a sign and underscores between digits are accepted.
      const number = /^\s*\+?([0-9]+(?:_[0-9]+)*)\s*$/.exec(condition);
      if (number) {
        const group = Number(number[1]!.replaceAll("_", ""));
        if (group === 0) this.fail("bad group number");
        this.conditionalReferences.push(group);
        this.checkLookbehindReference(group);
      } else if (!/^\s*\+?\p{Nd}+(?:_\p{Nd}+)*\s*$/u.test(condition)) {
        this.fail(`bad character in group name '${condition}'`);
      }
    }
    this.parseSequence(flags, nested + 1, false);
    if (this.match("|")) {
      this.parseSequence(flags, nested + 1, false);
      if (this.peek() === "|") this.fail("conditional backref with more than two branches");
    }
    if (!this.match(")")) this.fail("missing ), unterminated subpattern");
    this.markUnsupported("conditional groups (?(…)…|…)");
  }

  private parseFlags(firstCharacter: string): "global" | { add: string; remove: string } {
    let add = "";
    let remove = "";
    let character: string | undefined = firstCharacter;
    if (character !== "-") {
      for (;;) {
        if (character === "L") this.fail("bad inline flags: cannot use 'L' flag with a str pattern");
        add += character;
        if ((add.includes("a") ? 1 : 0) + (add.includes("u") ? 1 : 0) > 1)
          this.fail("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
        character = this.next();
        if (character === undefined) this.fail("missing -, : or )");
        if (character === ")" || character === "-" || character === ":") break;
        if (!FLAG_LETTERS.includes(character))
          this.fail(/\p{L}/u.test(character) ? "unknown flag" : "missing -, : or )");
      }
    }
    if (character === ")") {
      this.applyGlobalFlags(add);
      return "global";
    }
    if (add.includes("t")) this.fail("bad inline flags: cannot turn on global flag");
    if (character === "-") {
      character = this.next();
      if (character === undefined) this.fail("missing flag");
      if (!FLAG_LETTERS.includes(character))
        this.fail(/\p{L}/u.test(character) ? "unknown flag" : "missing flag");
      for (;;) {
        if (character === "a" || character === "u" || character === "L")
          this.fail("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
        remove += character;
        character = this.next();
        if (character === undefined) this.fail("missing :");
        if (character === ":") break;
        if (!FLAG_LETTERS.includes(character))
          this.fail(/\p{L}/u.test(character) ? "unknown flag" : "missing :");
      }
    }
    if (remove.includes("t")) this.fail("bad inline flags: cannot turn off global flag");
    if ([...add].some((flag) => remove.includes(flag))) this.fail("bad inline flags: flag turned on and off");
    return { add, remove };
  }

  private applyGlobalFlags(add: string): void {
    const flags = this.globalFlags;
    this.globalUnicode ||= add.includes("u");
    const ascii = flags.ascii || add.includes("a");
    // Python raises ValueError here (at compile time), not re.error; grep treats both as invalid.
    if (ascii && this.globalUnicode) this.fail("ASCII and UNICODE flags are incompatible");
    if (add.includes("t")) this.markUnsupported("the TEMPLATE flag (?t)");
    this.globalFlags = {
      ignoreCase: flags.ignoreCase || add.includes("i"),
      multiline: flags.multiline || add.includes("m"),
      dotAll: flags.dotAll || add.includes("s"),
      verbose: flags.verbose || add.includes("x"),
      ascii,
    };
  }

  private globalUnicode = false;

  private scopedFlags(flags: Flags, add: string, remove: string): Flags {
    const ignoreCase = remove.includes("i") ? false : add.includes("i") ? true : flags.ignoreCase;
    if (ignoreCase !== this.globalFlags.ignoreCase)
      this.markUnsupported("turning case-insensitivity on or off for part of a pattern");
    return {
      ignoreCase,
      multiline: remove.includes("m") ? false : add.includes("m") || flags.multiline,
      dotAll: remove.includes("s") ? false : add.includes("s") || flags.dotAll,
      verbose: remove.includes("x") ? false : add.includes("x") || flags.verbose,
      ascii: add.includes("u") ? false : add.includes("a") || flags.ascii,
    };
  }

  /**
   * Python ends a loop at an iteration that matched nothing; JavaScript rejects such an iteration and
   * backtracks into it. The two agree unless the repeated part can match empty before it matches text.
   */
  private checkRepeats(node: Node): void {
    forEachChild(node, (child) => this.checkRepeats(child));
    if (node.t === "repeat" && node.max > node.min && mayPreferEmpty(node.body))
      this.markUnsupported("a repeated part that can match empty before matching text (e.g. (a*?)+, (|a)*)");
  }

  /** Python's compile-time rule: a look-behind must match a fixed width. */
  private checkLookbehinds(node: Node): void {
    forEachChild(node, (child) => this.checkLookbehinds(child));
    if (node.t === "look" && node.behind) {
      const [low, high] = width(node.body, this.groupWidths);
      if (low !== high) this.fail("look-behind requires fixed-width pattern");
    }
  }
}

function forEachChild(node: Node, visit: (child: Node) => void): void {
  switch (node.t) {
    case "group":
    case "look":
    case "atomic":
    case "repeat":
      visit(node.body);
      break;
    case "sequence":
      node.items.forEach(visit);
      break;
    case "alternation":
      node.branches.forEach(visit);
      break;
    default:
      break;
  }
}

/** Python's `getwidth`: the least and most characters a node can match (MAXREPEAT for unbounded). */
function width(node: Node, groupWidths: ReadonlyMap<number, [number, number]>): [number, number] {
  const cap = ([low, high]: [number, number]): [number, number] => [
    Math.min(low, MAXREPEAT - 1),
    Math.min(high, MAXREPEAT),
  ];
  switch (node.t) {
    case "char":
    case "any":
    case "set":
    case "category":
      return [1, 1];
    case "anchor":
    case "boundary":
    case "look":
      return [0, 0];
    case "group":
    case "atomic":
      return width(node.body, groupWidths);
    case "ref":
      return groupWidths.get(node.group) ?? [0, 0];
    case "repeat": {
      const [low, high] = width(node.body, groupWidths);
      return cap([low * node.min, high * node.max]);
    }
    case "sequence":
      return cap(
        node.items.reduce<[number, number]>(
          ([low, high], item) => {
            const [itemLow, itemHigh] = width(item, groupWidths);
            return [low + itemLow, high + itemHigh];
          },
          [0, 0],
        ),
      );
    case "alternation": {
      const widths = node.branches.map((branch) => width(branch, groupWidths));
      return cap([Math.min(...widths.map((w) => w[0])), Math.max(...widths.map((w) => w[1]))]);
    }
  }
}

/**
 * Whether a node can pick an empty match at a position where a non-empty one exists, i.e. has a path
 * matching nothing ahead of a path matching text: a lazy quantifier that may stop at nothing, an
 * alternative that can match empty before a later one, or such a part inside. (Conservative: it may say
 * yes where the texts never allow it.) Python's retry after an empty match, and its loops, differ from
 * JavaScript only for such patterns.
 */
function mayPreferEmpty(node: Node): boolean {
  const noGroups = new Map<number, [number, number]>();
  const canBeEmpty = (child: Node) => width(child, noGroups)[0] === 0 || containsRef(child);
  switch (node.t) {
    case "look":
      return false;
    case "repeat":
      if (node.mode === "lazy" && node.max > node.min && (node.min === 0 || canBeEmpty(node.body)))
        return true;
      return mayPreferEmpty(node.body);
    case "alternation":
      return node.branches.slice(0, -1).some(canBeEmpty) || node.branches.some(mayPreferEmpty);
    case "group":
    case "atomic":
      return mayPreferEmpty(node.body);
    case "sequence":
      return node.items.some(mayPreferEmpty);
    default:
      return false;
  }
}

function containsRef(node: Node): boolean {
  if (node.t === "ref") return true;
  let found = false;
  forEachChild(node, (child) => (found ||= containsRef(child)));
  return found;
}

/**
 * A back-reference to a group that may not take part in the match (inside a quantifier, an alternative or
 * a negative look-around that the reference is not also inside): JavaScript matches it as empty, Python
 * fails, so it is reported instead of translated. Groups inside a look-behind count too: JavaScript
 * matches look-behinds right to left, which can capture other text.
 */
function unsupportedBackReference(root: Node): string | undefined {
  const groupPaths = new Map<number, Node[]>();
  const references: Array<{ group: number; path: Node[] }> = [];
  const walk = (node: Node, path: Node[]) => {
    if (node.t === "group" && node.group !== null) groupPaths.set(node.group, path);
    if (node.t === "ref") references.push({ group: node.group, path });
    forEachChild(node, (child) => walk(child, [...path, node]));
  };
  walk(root, []);
  for (const { group, path } of references) {
    const groupPath = groupPaths.get(group);
    if (!groupPath) continue;
    let shared = 0;
    while (shared < groupPath.length && shared < path.length && groupPath[shared] === path[shared]) shared++;
    // Different alternatives of the same alternation: the group never takes part where the reference is.
    if (groupPath[shared - 1]?.t === "alternation")
      return "a back-reference to a group in another alternative";
    // Below the deepest shared ancestor, down to the group.
    const optional = groupPath
      .slice(shared)
      .some(
        (ancestor) =>
          ancestor.t === "repeat" ||
          ancestor.t === "alternation" ||
          (ancestor.t === "look" && (ancestor.negate || ancestor.behind)),
      );
    if (optional) return "a back-reference to a group that may not take part in the match";
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Writing JavaScript

const PY_SPACE_RANGES: ReadonlyArray<[number, number]> = [
  [0x09, 0x0d],
  [0x1c, 0x20],
  [0x85, 0x85],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];
const ASCII_SPACE_RANGES: ReadonlyArray<[number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
];
const ASCII_DIGIT_RANGES: ReadonlyArray<[number, number]> = [[0x30, 0x39]];
const ASCII_WORD_RANGES: ReadonlyArray<[number, number]> = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];

const hex = (code: number) => `\\u{${code.toString(16)}}`;
const rangesText = (ranges: ReadonlyArray<[number, number]>) =>
  ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("");

function complement(ranges: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const result: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) result.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0x10ffff) result.push([next, 0x10ffff]);
  return result;
}

/** Class contents for a category, or undefined when it cannot sit inside a class (Unicode \W). */
function categoryClassContents(category: Category): string | undefined {
  if (category.ascii) {
    const ranges =
      category.kind === "digit"
        ? ASCII_DIGIT_RANGES
        : category.kind === "word"
          ? ASCII_WORD_RANGES
          : ASCII_SPACE_RANGES;
    return rangesText(category.negate ? complement(ranges) : ranges);
  }
  switch (category.kind) {
    case "digit":
      return category.negate ? "\\P{Nd}" : "\\p{Nd}";
    case "space":
      return rangesText(category.negate ? complement(PY_SPACE_RANGES) : PY_SPACE_RANGES);
    case "word":
      return category.negate ? undefined : "\\p{L}\\p{N}_";
  }
}

function categoryAtom(category: Category): string {
  const contents = categoryClassContents(category);
  return contents !== undefined ? `[${contents}]` : "[^\\p{L}\\p{N}_]";
}

function literal(code: number): string {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)
    ? String.fromCodePoint(code)
    : hex(code);
}

/** Python's case-insensitive matching treats these four as one letter; JavaScript's folding does not. */
const TURKISH_I = [0x49, 0x69, 0x130, 0x131];

class Emitter {
  /** JavaScript group number of each Python group. */
  private readonly groups = new Map<number, number>();
  private groupCount: number;
  /** Inside a look-behind (JavaScript matches it right to left), outside any look-ahead within it. */
  private backward = false;

  constructor(
    reservedGroups: number,
    private readonly ignoreCase: boolean,
  ) {
    this.groupCount = reservedGroups;
  }

  private char(code: number): string {
    return this.ignoreCase && TURKISH_I.includes(code) ? `[${TURKISH_I.map(hex).join("")}]` : literal(code);
  }

  emit(node: Node): string {
    switch (node.t) {
      case "char":
        return this.char(node.code);
      case "any":
        return node.dotAll ? "[\\s\\S]" : "[^\\n]";
      case "category":
        return categoryAtom(node.category);
      case "set":
        return this.set(node.negate, node.items);
      case "anchor":
        return {
          start: "(?<![\\s\\S])",
          "string-start": "(?<![\\s\\S])",
          "start-multiline": "(?<![^\\n])",
          end: "(?=\\n?(?![\\s\\S]))",
          "end-multiline": "(?![^\\n])",
          "string-end": "(?![\\s\\S])",
        }[node.anchor];
      case "boundary": {
        const word = categoryAtom({ kind: "word", negate: false, ascii: node.ascii });
        return node.negate
          ? // Python's \B never matches in an empty text.
            `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word})(?:(?=[\\s\\S])|(?<=[\\s\\S])))`
          : `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
      }
      case "group": {
        if (node.group === null) return `(?:${this.emit(node.body)})`;
        this.groupCount++;
        this.groups.set(node.group, this.groupCount);
        return `(${this.emit(node.body)})`;
      }
      case "look": {
        const outer = this.backward;
        this.backward = node.behind;
        const body = this.emit(node.body);
        this.backward = outer;
        return `(?${node.behind ? "<" : ""}${node.negate ? "!" : "="}${body})`;
      }
      case "atomic":
        // A look-behind has a fixed width, so committing to a choice inside it changes nothing.
        return this.backward ? `(?:${this.emit(node.body)})` : this.atomic(() => this.emit(node.body));
      case "ref":
        return `(?:\\${this.groups.get(node.group)!})`;
      case "repeat": {
        const quantifier =
          node.min === 0 && node.max === MAXREPEAT
            ? "*"
            : node.min === 1 && node.max === MAXREPEAT
              ? "+"
              : node.min === 0 && node.max === 1
                ? "?"
                : node.max === MAXREPEAT
                  ? `{${node.min},}`
                  : node.min === node.max
                    ? `{${node.min}}`
                    : `{${node.min},${node.max}}`;
        if (node.mode === "possessive" && !this.backward)
          return this.atomic(() => `(?:${this.emit(node.body)})${quantifier}`);
        return `(?:${this.emit(node.body)})${quantifier}${node.mode === "lazy" ? "?" : ""}`;
      }
      case "sequence":
        return node.items.map((item) => this.emit(item)).join("");
      case "alternation":
        return node.branches.map((branch) => this.emit(branch)).join("|");
    }
  }

  /** An atomic group: a look-ahead (atomic in JavaScript) capturing the match, then consuming it. */
  private atomic(body: () => string): string {
    const group = ++this.groupCount;
    return `(?:(?=(${body()}))\\${group})`;
  }

  private set(negate: boolean, items: SetItem[]): string {
    const inside: string[] = [];
    const outside: string[] = [];
    let turkishI = false;
    for (const item of items) {
      if (item.t === "char") {
        inside.push(hex(item.code));
        turkishI ||= TURKISH_I.includes(item.code);
      } else if (item.t === "range") {
        inside.push(`${hex(item.lo)}-${hex(item.hi)}`);
        turkishI ||= TURKISH_I.some((code) => code >= item.lo && code <= item.hi);
      } else {
        const contents = categoryClassContents(item.category);
        if (contents !== undefined) inside.push(contents);
        else outside.push(categoryAtom(item.category));
      }
    }
    if (turkishI && this.ignoreCase) inside.push(...TURKISH_I.map(hex));
    if (outside.length === 0) return `[${negate ? "^" : ""}${inside.join("")}]`;
    const alternatives = [...(inside.length > 0 ? [`[${inside.join("")}]`] : []), ...outside].join("|");
    return negate ? `(?:(?!${alternatives})[\\s\\S])` : `(?:${alternatives})`;
  }
}
