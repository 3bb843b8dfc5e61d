/**
 * Python number formatting, as the telecom tools print numbers: `f"{x:.2f}"` and `round(x, 2)`. Python
 * rounds the exact binary value half to even; `Number.prototype.toFixed` rounds exact ties up, so ties
 * are settled here.
 */
export function pyFixed(value: number, digits: number): string {
  const rounded = value.toFixed(digits);
  // toFixed(100) is the exact decimal expansion of the double for the magnitudes used here.
  const exact = Math.abs(value).toFixed(100);
  const point = exact.indexOf(".");
  const rest = exact.slice(point + 1 + digits);
  if (!/^50*$/.test(rest)) return rounded;
  const kept = exact.slice(0, point + 1 + digits).replace(/\.$/, "");
  const lastDigit = Number(kept[kept.length - 1]);
  if (lastDigit % 2 === 1) return rounded; // rounding up reaches the even neighbour
  return (value < 0 ? "-" : "") + kept;
}

/** Python `round(value, digits)` for floats. */
export function pyRound(value: number, digits: number): number {
  return Number(pyFixed(value, digits));
}
