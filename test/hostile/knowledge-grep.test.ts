import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  PatternTooExpensiveError,
  UnsupportedPatternError,
  createKnowledgeBase,
  grepSearch,
  loadKnowledgeBase,
} from "../../src/knowledge/index.js";
import { MAX_GROUP_NESTING } from "../../src/python/py-re/parse.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";

// F5-a: one grep call with a regex bomb froze the whole process (no sentence, SIGTERM ignored).

const bomb = createKnowledgeBase([
  { id: "a", title: "A", content: `${"word ".repeat(40)}!` },
  { id: "b", title: "B", content: "fees and charges" },
]);

describe("grep: a pattern that backtracks catastrophically", () => {
  for (const pattern of ["(\\w+\\s?)*$", "(a|aa)*b", "(x+x+)+y"]) {
    it(`${pattern} is stopped at the time budget with a sentence, and the process goes on`, () => {
      const content = pattern.includes("\\w") ? undefined : (pattern.includes("x") ? "x" : "a").repeat(60);
      const kb = content ? createKnowledgeBase([{ id: "x", title: "X", content }]) : bomb;
      const started = Date.now();
      let error: unknown;
      try {
        grepSearch(kb, pattern, 10, { budgetMs: 200 });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PatternTooExpensiveError);
      expect(String((error as Error).message)).toMatch(/too expensive.*simpler pattern/);
      // Generous: stopped long before the hours the search would take.
      expect(Date.now() - started).toBeLessThan(30_000);
      // The process still searches: the next call works.
      expect(grepSearch(bomb, "fee").map((hit) => hit.document.id)).toEqual(["b"]);
    });
  }

  it("ordinary patterns over the official knowledge base stay well within the default budget", () => {
    const kb = loadKnowledgeBase(path.join(tau2DataDir(), "banking_knowledge", "documents"));
    for (const pattern of ["fee|charge", "overdraft", "\\d+%", "card.*replace"])
      expect(() => grepSearch(kb, pattern)).not.toThrow();
  });
});

describe("grep: groups nested thousands deep", () => {
  const nested = (depth: number) => `${"(".repeat(depth)}fee${")".repeat(depth)}`;

  it("5,000 levels: refused by name with a cut pattern, not a stack overflow", () => {
    let error: unknown;
    try {
      grepSearch(bomb, nested(5000));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnsupportedPatternError);
    const message = (error as Error).message;
    expect(message).toContain(`groups nested more than ${MAX_GROUP_NESTING} deep`);
    expect(message).not.toContain("call stack");
    expect(message.length).toBeLessThan(600);
  });

  it(`${MAX_GROUP_NESTING} levels (Python 3.11 compiles them) still search`, () => {
    expect(grepSearch(bomb, nested(MAX_GROUP_NESTING)).map((hit) => hit.document.id)).toEqual(["b"]);
  });
});
