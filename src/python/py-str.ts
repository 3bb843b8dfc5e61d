// Python's `str` whitespace methods: `isspace`, `strip`, `lstrip`, `rstrip`, and `strip(chars)`.

/** The characters Python's `str.isspace()` accepts (what `str.strip()` without arguments removes). */
const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);
const TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`);
const ONLY_SPACE = new RegExp(`^[${PY_SPACE}]*$`);

/** `str.isspace()` (true for the empty string here, as the readers want it). */
export function pyIsSpace(text: string): boolean {
  return ONLY_SPACE.test(text);
}
export function pyLstrip(text: string): string {
  return text.replace(LEADING_SPACE, "");
}
export function pyRstrip(text: string): string {
  return text.replace(TRAILING_SPACE, "");
}
export function pyStrip(text: string): string {
  return pyRstrip(pyLstrip(text));
}

/** Python's `str.strip(chars)` with explicit characters. */
export function pyStripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}
