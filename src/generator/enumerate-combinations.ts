/**
 * Every way to pick at most one member from each set, as the τ² generator orders them:
 *
 * 1. odometer order: the first set is the slowest-changing position, the last the fastest; within a
 *    position the members come in listed order and "nothing" comes last;
 * 2. a combination is kept only if some set at index `requiredFrom` or later contributes a member;
 * 3. the names inside a combination are sorted by plain string comparison (UTF-16 code units);
 * 4. combinations are stable-sorted by size, smallest first.
 *
 * @example
 * enumerateCombinations([["a"], ["c", "b"]], 0)
 * // → [["a"], ["c"], ["b"], ["a", "c"], ["a", "b"]]
 */
export function enumerateCombinations(
  sets: readonly (readonly string[])[],
  requiredFrom: number,
): string[][] {
  const kept: string[][] = [];
  // digits[i] = index into sets[i], where sets[i].length means "nothing".
  const digits = sets.map(() => 0);
  for (;;) {
    const chosen: string[] = [];
    let required = false;
    digits.forEach((digit, position) => {
      const member = sets[position]![digit];
      if (member === undefined) return;
      chosen.push(member);
      if (position >= requiredFrom) required = true;
    });
    if (required) kept.push(chosen.sort());
    let position = sets.length - 1;
    while (position >= 0 && digits[position] === sets[position]!.length) digits[position--] = 0;
    if (position < 0) break;
    digits[position]!++;
  }
  // Array.prototype.sort is stable, so equal sizes keep their odometer order.
  return kept.sort((a, b) => a.length - b.length);
}
