// The parsed form of a Python pattern, and the properties of it that CPython's compiler checks (widths)
// or that decide whether JavaScript can run it the Python way.

export type Category = { kind: "digit" | "word" | "space"; negate: boolean; ascii: boolean };
export type SetItem =
  | { t: "char"; code: number }
  | { t: "range"; lo: number; hi: number }
  | { t: "category"; category: Category };
export type Anchor = "start" | "end" | "start-multiline" | "end-multiline" | "string-start" | "string-end";

export type Node =
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

export interface ParsedPattern {
  root: Node;
  ignoreCase: boolean;
  groupWidths: Map<number, [number, number]>;
  unsupported: string | undefined;
}

/** CPython's `MAXREPEAT`: an unbounded repeat's maximum. */
export const MAXREPEAT = 4294967295;

export function forEachChild(node: Node, visit: (child: Node) => void): void {
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
export function width(node: Node, groupWidths: ReadonlyMap<number, [number, number]>): [number, number] {
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
export function mayPreferEmpty(node: Node): boolean {
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
export function unsupportedBackReference(root: Node): string | undefined {
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
