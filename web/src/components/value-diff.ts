/** One difference between two values at a path; `left`/`right` undefined when only the other side has it. */
export interface DiffRow {
  path: string;
  left: unknown;
  right: unknown;
  status: "changed" | "only-left" | "only-right";
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Pairs of indexes of equal elements of `a` and `b`, in order (a longest common subsequence). */
function commonElements(a: readonly unknown[], b: readonly unknown[]): Array<[number, number]> {
  const ka = a.map((v) => JSON.stringify(v));
  const kb = b.map((v) => JSON.stringify(v));
  // Lists in a database record are short (payments, flights, items): quadratic is fine; cap it anyway.
  if (ka.length * kb.length > 250_000) return [];
  const lengths: number[][] = Array.from({ length: ka.length + 1 }, () =>
    new Array<number>(kb.length + 1).fill(0),
  );
  for (let i = ka.length - 1; i >= 0; i--)
    for (let j = kb.length - 1; j >= 0; j--)
      lengths[i]![j] =
        ka[i] === kb[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < ka.length && j < kb.length;) {
    if (ka[i] === kb[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/**
 * The differences between two values, as rows a person can read: objects key by key, lists element
 * by element (equal elements are matched up first, so one inserted payment does not mark every later
 * one as changed), elements at the same place compared field by field.
 */
export function diffValues(path: string, left: unknown, right: unknown): DiffRow[] {
  if (same(left, right)) return [];
  if (left === undefined) return [{ path, left, right, status: "only-right" }];
  if (right === undefined) return [{ path, left, right, status: "only-left" }];
  if (isObject(left) && isObject(right)) {
    return [...new Set([...Object.keys(left), ...Object.keys(right)])].flatMap((key) =>
      diffValues(path ? `${path}.${key}` : key, left[key], right[key]),
    );
  }
  if (Array.isArray(left) && Array.isArray(right)) {
    const rows: DiffRow[] = [];
    const pairs = [...commonElements(left, right), [left.length, right.length] as [number, number]];
    let i = 0;
    let j = 0;
    for (const [ni, nj] of pairs) {
      // Between two matched elements: compare what stands at the same place, then the extras.
      const gap = Math.max(ni - i, nj - j);
      for (let k = 0; k < gap; k++) {
        const li = i + k < ni ? i + k : undefined;
        const rj = j + k < nj ? j + k : undefined;
        const label = li !== undefined && rj !== undefined && li !== rj ? `[${li}→${rj}]` : `[${li ?? rj}]`;
        rows.push(
          ...diffValues(
            `${path}${label}`,
            li !== undefined ? left[li] : undefined,
            rj !== undefined ? right[rj] : undefined,
          ),
        );
      }
      i = ni + 1;
      j = nj + 1;
    }
    return rows;
  }
  return [{ path, left, right, status: "changed" }];
}

/** Rows of a record's field differences, each expanded element by element. */
export function fieldRows(fields: ReadonlyArray<{ path: string; left: unknown; right: unknown }>): DiffRow[] {
  return fields.flatMap((f) => diffValues(f.path, f.left, f.right));
}
