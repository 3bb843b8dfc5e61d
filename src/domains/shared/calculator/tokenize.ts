// CPython 3.11's tokenizer, restricted to what `calculate` lets through (digits, + - * / ( ) . and
// spaces). Like CPython it stops at the first lexical error; the parser raises that error only when
// it reaches the token, which decides which SyntaxError text the user sees.

export type Token =
  | { kind: "number"; text: string; level: number }
  | { kind: "ellipsis" | "dot" | "end"; level: number }
  | { kind: "op"; text: "+" | "-" | "*" | "**" | "/" | "//" | "(" | ")"; level: number }
  /** A lexical error; `atEnd` marks the unclosed-parenthesis error CPython raises at end of input. */
  | { kind: "error"; message: string; atEnd: boolean; level: number };

const LEADING_ZEROS =
  "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers";

const isDigit = (char: string | undefined) => char !== undefined && char >= "0" && char <= "9";

/** Tokens of `source` (leading spaces already stripped), ending with an `end` or `error` token. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let level = 0;
  let i = 0;
  const digitsFrom = (start: number) => {
    let end = start;
    while (isDigit(source[end])) end++;
    return end;
  };
  while (true) {
    while (source[i] === " ") i++;
    const char = source[i];
    if (char === undefined) {
      tokens.push(
        level > 0
          ? { kind: "error", message: "'(' was never closed", atEnd: true, level }
          : { kind: "end", level },
      );
      return tokens;
    }
    const start = i;
    if (isDigit(char) || (char === "." && isDigit(source[i + 1]))) {
      i = digitsFrom(i);
      let isFloat = false;
      if (source[i] === ".") {
        isFloat = true;
        i = digitsFrom(i + 1);
      }
      const text = source.slice(start, i);
      if (!isFloat && /^0+[1-9]/.test(text)) {
        tokens.push({ kind: "error", message: LEADING_ZEROS, atEnd: false, level });
        return tokens;
      }
      tokens.push({ kind: "number", text, level });
      continue;
    }
    if (char === ".") {
      if (source.startsWith("...", i)) {
        tokens.push({ kind: "ellipsis", level });
        i += 3;
      } else {
        tokens.push({ kind: "dot", level });
        i += 1;
      }
      continue;
    }
    if ((char === "*" || char === "/") && source[i + 1] === char) {
      tokens.push({ kind: "op", text: char === "*" ? "**" : "//", level });
      i += 2;
      continue;
    }
    if (char === "(") level++;
    if (char === ")") {
      if (level === 0) {
        tokens.push({ kind: "error", message: "unmatched ')'", atEnd: false, level });
        return tokens;
      }
      level--;
    }
    tokens.push({ kind: "op", text: char as "+" | "-" | "*" | "/" | "(" | ")", level });
    i += 1;
  }
}
