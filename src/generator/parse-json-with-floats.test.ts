import { describe, expect, it } from "vitest";
import { JsonSyntaxError } from "../formats/ordered-json.js";
import { parseJsonWithFloats } from "./parse-json-with-floats.js";
import { PyFloat, withoutPyFloats } from "./py-float.js";

describe("parseJsonWithFloats", () => {
  it("keeps whole floats as PyFloat and everything else as plain JSON", () => {
    const value = parseJsonWithFloats(
      '{"a": 2.0, "b": 2, "c": 1e3, "d": 15.1, "e": [-0.0, "2.0", true, null]}',
    );
    expect(value).toEqual({
      a: new PyFloat(2),
      b: 2,
      c: new PyFloat(1000),
      d: 15.1,
      e: [new PyFloat(-0), "2.0", true, null],
    });
    expect(withoutPyFloats(value)).toEqual({ a: 2, b: 2, c: 1000, d: 15.1, e: [0, "2.0", true, null] });
  });

  it("keeps a whole float at the top level too", () => {
    expect(parseJsonWithFloats("2.0")).toEqual(new PyFloat(2));
    expect(parseJsonWithFloats("2")).toBe(2);
  });

  it("keeps the file's key order", () => {
    expect(Object.keys(parseJsonWithFloats('{"z": 1, "a": 2, "m": 3}') as object)).toEqual(["z", "a", "m"]);
  });

  it.each([
    ['{"a": 1,}', 8],
    ['{"a" 1}', 5],
    ["[1, 2", 5],
  ])("rejects %s with the offset of the problem", (text, offset) => {
    expect(() => parseJsonWithFloats(text)).toThrow(JsonSyntaxError);
    try {
      parseJsonWithFloats(text);
    } catch (error) {
      expect((error as JsonSyntaxError).offset).toBe(offset);
    }
  });
});
