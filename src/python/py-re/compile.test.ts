import { describe, expect, it } from "vitest";
import { compileLiteral, compilePythonRegex, countMatches } from "./compile.js";

// Expected counts are `len(re.compile(pattern, re.IGNORECASE).findall(TEXT))` under CPython 3.11.7;
// null means re.compile raised re.error (or ValueError).
const TEXT =
  "Overdraft fee: $35.00 per item (max 3/day).\nCredit card fees & charges; PIN reset.\n" +
  "Rho-Bank+ members: foo_bar 42 \u00c9COLE \u00e9cole \u0130stanbul\tend\n";

const PYTHON_ORACLE: ReadonlyArray<[string, number | null]> = [
  ["overdraft", 1],
  ["fee|charge", 3],
  ["credit.*card", 1],
  ["(?i)PIN", 1],
  ["\\$[0-9]+", 1],
  ["fee (", null],
  ["Rho-Bank\\+", 1],
  ["\\d+", 4],
  ["\\D", 131],
  ["\\w+", 24],
  ["\\W", 35],
  ["\\s", 22],
  ["\\S+", 22],
  ["\\bfee\\b", 1],
  ["\\Bee", 2],
  ["\\B", 91],
  ["^", 1],
  ["$", 2],
  ["(?m)^\\w+", 3],
  ["(?m)$", 4],
  ["\\A\\w+", 1],
  ["\\n\\Z", 1],
  ["end$", 1],
  [".", 135],
  ["(?s).", 138],
  ["[a-c]", 17],
  ["[^a-z]", 45],
  ["[]x]", 1],
  ["[\\d-]", 8],
  ["[\\w.]+", 24],
  ["[\\W\\d]", 42],
  ["[^\\W\\d]", 96],
  ["a{2}", 0],
  ["e{1,2}", 14],
  ["e{,2}", 137],
  ["e{,}", 137],
  ["{x}", 0],
  ["x{}", 0],
  ["\\x41", 8],
  ["\\u00c9", 2],
  ["\\101", 8],
  ["\\0", 0],
  ["\\-", 1],
  ["(fee)s?", 2],
  ["(?:fee|charge)s", 2],
  ["(?P<w>e)(?P=w)", 2],
  ["(e)\\1", 2],
  ["(?=fee)", 2],
  ["(?!f)fe", 0],
  ["(?<=\\$)\\d+", 1],
  ["(?<!\\d)\\d", 4],
  ["(?>fee|f)e", 0],
  ["e*+", 137],
  ["e++", 14],
  ["e*?", 155],
  ["e??", 155],
  ["|e", 155],
  ["(?x) f e e  # comment", 2],
  ["(?#note)fee", 2],
  ["\u00e9cole", 2],
  ["\u0130stanbul", 1],
  ["i", 4],
  ["\u00c9", 2],
  ["x*", 139],
  ["(?i)(?s)item.", 1],
  ["a|(?i)b", null],
  ["(?<=a+)b", null],
  ["(?<name>x)", null],
  ["\\q", null],
  ["[z-a]", null],
  ["(a", null],
  ["a)", null],
  ["*a", null],
  ["a**", null],
  ["\\1", null],
  ["(?L)a", null],
  ["(?au)a", null],
  ["(?(1)a|b)", null],
];

/** Valid Python with no JavaScript translation here (with its count under Python, for the record). */
const UNSUPPORTED: readonly string[] = [
  "\\N{DIGIT ZERO}", // 2
  "(a)?(?(1)a|b)", // 4
  "(?-i:fee)", // 2
  "(?a)\\w", // 100
  "(e)?\\1", // 2
  "(?:(e)|x)\\1", // 2
  "(e*?)+", // 155
  "(?t)fee", // 2
];

describe("compilePythonRegex", () => {
  it.each(PYTHON_ORACLE)(
    "%j counts as Python's findall does (or is rejected as Python rejects it)",
    (pattern, expected) => {
      const result = compilePythonRegex(pattern, { ignoreCase: true });
      if (expected === null) {
        expect(result.kind).toBe("invalid");
        return;
      }
      expect(result.kind).toBe("ok");
      if (result.kind === "ok") expect(countMatches(result.compiled, TEXT)).toBe(expected);
    },
  );

  it.each(UNSUPPORTED)("%j is valid Python that is reported as unsupported, never changed", (pattern) => {
    expect(compilePythonRegex(pattern, { ignoreCase: true }).kind).toBe("unsupported");
  });

  it("reports Python's error text for an invalid pattern", () => {
    expect(compilePythonRegex("fee (", { ignoreCase: true })).toEqual({
      kind: "invalid",
      message: "missing ), unterminated subpattern",
    });
    expect(compilePythonRegex("a(?i)", { ignoreCase: true })).toEqual({
      kind: "invalid",
      message: "global flags not at the start of the expression",
    });
  });

  it("is case-sensitive when asked, and (?i) turns case-insensitivity on for the whole pattern", () => {
    const sensitive = compilePythonRegex("pin", { ignoreCase: false });
    const flagged = compilePythonRegex("(?i)pin", { ignoreCase: false });
    expect(sensitive.kind === "ok" && countMatches(sensitive.compiled, TEXT)).toBe(0);
    expect(flagged.kind === "ok" && countMatches(flagged.compiled, TEXT)).toBe(1);
  });

  it("retries at the position of an empty match for a longer one, as Python's findall does", () => {
    // re.findall("|a", "a") == ["", "a", ""]; JavaScript's own loop would find two.
    const result = compilePythonRegex("|a", { ignoreCase: false });
    expect(result.kind === "ok" && countMatches(result.compiled, "a")).toBe(3);
    expect(result.kind === "ok" && countMatches(result.compiled, "")).toBe(1);
  });

  it("counts astral characters as one code point", () => {
    const result = compilePythonRegex(".", { ignoreCase: true });
    expect(result.kind === "ok" && countMatches(result.compiled, "a\u{1F600}b")).toBe(3);
  });
});

describe("compileLiteral", () => {
  it("matches the pattern's text literally, ignoring case", () => {
    expect(countMatches(compileLiteral("FEE (", { ignoreCase: true }), "a fee (x) and Fee (y)")).toBe(2);
    expect(countMatches(compileLiteral("a.b", { ignoreCase: true }), "a.b axb")).toBe(1);
  });
});
