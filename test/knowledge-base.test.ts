import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, InvalidInputFileError } from "../src/core/errors.js";
import { compareCodePoints, createKnowledgeBase, loadKnowledgeBase } from "../src/knowledge/index.js";

const temporary = mkdtempSync(path.join(os.tmpdir(), "passk-kb-"));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

/** A documents folder holding these files. */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(temporary, "documents-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}
const doc = (id: string, title = id, content = `content of ${id}`) => JSON.stringify({ id, title, content });

describe("loadKnowledgeBase", () => {
  it("reads *.json documents in code-point order of their file names, and nothing else", () => {
    const dir = folder({
      "b.json": doc("b"),
      "a_2.json": doc("a_2"),
      "a_10.json": doc("a_10"),
      "B.json": doc("B"),
      "\u{1F600}.json": doc("emoji"),
      "\uFF5E.json": doc("fullwidth"),
      "notes.txt": "not a document",
    });
    mkdirSync(path.join(dir, "sub"));
    // Python's sorted(): by code point, so U+FF5E sorts before U+1F600 (UTF-16 order would not).
    expect(loadKnowledgeBase(dir).documents.map((document) => document.id)).toEqual([
      "B",
      "a_10",
      "a_2",
      "b",
      "fullwidth",
      "emoji",
    ]);
  });

  it("keeps the document fields and finds documents by id", () => {
    const kb = loadKnowledgeBase(folder({ "x.json": doc("x", "Title X", "Body X") }));
    expect(kb.document("x")).toEqual({ id: "x", title: "Title X", content: "Body X" });
    expect(kb.document("y")).toBeUndefined();
  });

  it("rejects a document that is not JSON, naming the file and the position", () => {
    const dir = folder({ "ok.json": doc("ok"), "broken.json": '{"id": "x",' });
    expect(() => loadKnowledgeBase(dir)).toThrow(InvalidInputFileError);
    expect(() => loadKnowledgeBase(dir)).toThrow(
      /broken\.json is not valid \(1 problem\):\n {2}- line 1, column/,
    );
  });

  it("rejects a document without its fields, naming the file and the field", () => {
    const dir = folder({ "short.json": JSON.stringify({ id: "short", content: "no title" }) });
    expect(() => loadKnowledgeBase(dir)).toThrow(InvalidInputFileError);
    expect(() => loadKnowledgeBase(dir)).toThrow(
      /short\.json is not valid \(1 problem\):\n {2}- \$\.title: Invalid input: expected string/,
    );
  });

  it("rejects two documents with one id", () => {
    const dir = folder({ "one.json": doc("same"), "two.json": doc("same") });
    expect(() => loadKnowledgeBase(dir)).toThrow(
      /two\.json is not valid .*\n {2}- \$\.id: "same" is also the id of .*one\.json/,
    );
  });

  it("says to pull the data when the folder is missing or empty", () => {
    expect(() => loadKnowledgeBase(path.join(temporary, "missing"))).toThrow(ConfigError);
    expect(() => loadKnowledgeBase(path.join(temporary, "missing"))).toThrow(
      /the knowledge-base folder .*missing is missing; run `passk data pull` or fix --data\./,
    );
    expect(() => loadKnowledgeBase(folder({}))).toThrow(/holds no \*\.json documents/);
  });

  it("reads a folder once for the process", () => {
    const dir = folder({ "a.json": doc("a") });
    const first = loadKnowledgeBase(dir);
    writeFileSync(path.join(dir, "b.json"), doc("b"));
    expect(loadKnowledgeBase(dir)).toBe(first);
  });
});

describe("createKnowledgeBase", () => {
  it("keeps the given order and refuses duplicate ids", () => {
    expect(
      createKnowledgeBase([
        { id: "z", title: "", content: "" },
        { id: "a", title: "", content: "" },
      ]).documents.map((d) => d.id),
    ).toEqual(["z", "a"]);
    expect(() =>
      createKnowledgeBase([
        { id: "a", title: "", content: "" },
        { id: "a", title: "", content: "" },
      ]),
    ).toThrow('<in-memory knowledge base> has two documents with id "a"; give every document its own id.');
  });
});

describe("compareCodePoints", () => {
  it("orders as Python's string comparison", () => {
    expect(["b", "\u{1F600}", "a", "\uFF5E", "ab"].sort(compareCodePoints)).toEqual([
      "a",
      "ab",
      "b",
      "\uFF5E",
      "\u{1F600}",
    ]);
  });
});
