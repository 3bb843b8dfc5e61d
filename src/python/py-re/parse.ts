import {
  forEachChild,
  MAXREPEAT,
  mayPreferEmpty,
  width,
  type Category,
  type Node,
  type ParsedPattern,
  type SetItem,
} from "./pattern.js";

// Python's `re` parser (sre_parse, CPython 3.11) for str patterns: the same grammar, the same errors.

export class PythonRegexSyntaxError extends Error {}

/**
 * How deep groups may nest. The parser, the checks and the emitter recurse once per level, so 5,000
 * levels overflowed the stack ("Maximum call stack size exceeded" as the tool's answer). Python 3.11's
 * own parser accepts 400 levels and raises RecursionError at 500; deeper patterns are refused by name.
 */
export const MAX_GROUP_NESTING = 400;

export class PatternTooDeepError extends Error {}

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

export class Parser {
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
