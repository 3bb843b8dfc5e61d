/**
 * Python text formatting the telecom tools print: `f"{x:.2f}"`, `round(x, 2)` and `repr()` of small
 * values. Python rounds the exact binary value half to even; `Number.prototype.toFixed` rounds exact
 * ties up, so ties are settled here.
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

/** Python `repr()` of a string: single quotes unless the text has a single quote and no double one. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

/** Python `repr()` of a list of strings: `['sms', 'storage']`. */
export function pyStrListRepr(items: readonly string[]): string {
  return `[${items.map(pyStrRepr).join(", ")}]`;
}
