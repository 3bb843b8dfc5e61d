import { describe, expect, it } from "vitest";
import { ToolError } from "../../env/world.js";
import { pyIterate, pyNumber, pyRepr, pyTypeName } from "./py-values.js";

// Expected texts are CPython 3.11's `repr()` of the same values (the JSON value's Python reading).
describe("pyRepr prints what Python's repr prints", () => {
  it.each([
    [{ a: [1, "it's", true, null, 1.5, "tab\there"] }, `{'a': [1, "it's", True, None, 1.5, 'tab\\there']}`],
    ["\ud800x", "'\\ud800x'"],
    ["\x7f\xad é", "'\\x7f\\xad é'"],
    [new Map([["k", 2]]), "{'k': 2}"],
    [1e16, "10000000000000000"], // an int, as pyTypeName says
  ])("%j", (value, expected) => {
    expect(pyRepr(value)).toBe(expected);
  });

  it("names non-finite floats as Python does", () => {
    expect([Infinity, -Infinity, NaN].map(pyNumber)).toEqual(["inf", "-inf", "nan"]);
  });
});

describe("pyIterate", () => {
  it("yields list items, characters and dict keys, and fails on scalars as Python does", () => {
    expect(pyIterate(["a", 1])).toEqual(["a", 1]);
    expect(pyIterate("ab")).toEqual(["a", "b"]);
    expect(pyIterate({ x: 1 })).toEqual(["x"]);
    expect(pyIterate(new Map([["y", 1]]))).toEqual(["y"]);
    expect(() => pyIterate(3)).toThrow(new ToolError("'int' object is not iterable", "TypeError"));
    expect(pyTypeName(null)).toBe("NoneType");
  });
});
