import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidInputFileError } from "./errors.js";
import { parseJsonFile, readJsonFile } from "./json-file.js";
import { parseOrderedJson } from "./ordered-json.js";

function problemsOf(run: () => unknown): InvalidInputFileError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputFileError) return error;
    throw error;
  }
  throw new Error("expected an InvalidInputFileError");
}

describe("parseJsonFile", () => {
  it("names the line and column of a syntax error, for JSON.parse and for a parser that knows it", () => {
    const text = '{\n  "a": 1,\n  "b": }';
    for (const parse of [JSON.parse, parseOrderedJson]) {
      const error = problemsOf(() => parseJsonFile(text, "x.json", "fix it.", parse));
      expect(error.problems[0]!.path).toBe("line 3, column 8");
      expect(error.hint).toBe("fix it.");
    }
  });
});

describe("readJsonFile", () => {
  const schema = z.object({ name: z.string(), tags: z.array(z.string()) });
  const dir = mkdtempSync(path.join(tmpdir(), "passk-json-file-"));
  const write = (text: string) => {
    const file = path.join(dir, "input.json");
    writeFileSync(file, text);
    return file;
  };
  const hints = { syntax: "bad syntax.", schema: "bad shape." };

  it("returns the validated data", () => {
    expect(readJsonFile(write('{"name": "a", "tags": ["x"]}'), schema, hints)).toEqual({
      name: "a",
      tags: ["x"],
    });
  });

  it("lists every schema problem by JSON path, with the schema hint", () => {
    const error = problemsOf(() => readJsonFile(write('{"name": 1, "tags": ["x", 2]}'), schema, hints));
    expect(error.problems.map((p) => p.path)).toEqual(["$.name", "$.tags[1]"]);
    expect(error.hint).toBe("bad shape.");
  });

  it("gives a syntax error the syntax hint", () => {
    const error = problemsOf(() => readJsonFile(write('{"name": '), schema, hints));
    expect(error.problems[0]!.path).toBe("line 1, column 10");
    expect(error.hint).toBe("bad syntax.");
  });
});
