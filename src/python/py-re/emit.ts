import { MAXREPEAT, type Category, type Node, type SetItem } from "./pattern.js";

// Writing a parsed Python pattern as an equivalent `u`-mode JavaScript RegExp source.

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

export function literal(code: number): string {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)
    ? String.fromCodePoint(code)
    : hex(code);
}

/** Python's case-insensitive matching treats these four as one letter; JavaScript's folding does not. */
const TURKISH_I = [0x49, 0x69, 0x130, 0x131];

export class Emitter {
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
