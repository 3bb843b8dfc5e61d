import { describe, expect, it } from "vitest";
import { PyFloat } from "./py-float-value.js";
import { pyJsonLoads, PyJsonDecodeError } from "./py-json-loads.js";
import { pyRepr } from "./py-values.js";

// Expected texts are CPython 3.11's (`json.loads`, C scanner), as the reference's tools return them.
const ERRORS: Array<[string, string]> = [
  ["{user_id: 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"],
  ['{"a": 1,}', "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"],
  ["[1,]", "Expecting value: line 1 column 4 (char 3)"],
  ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
  ['{"a": }', "Expecting value: line 1 column 7 (char 6)"],
  ["", "Expecting value: line 1 column 1 (char 0)"],
  ["   ", "Expecting value: line 1 column 4 (char 3)"],
  ['{"a": 1} x', "Extra data: line 1 column 10 (char 9)"],
  ['"abc', "Unterminated string starting at: line 1 column 1 (char 0)"],
  ['"a\\qb"', "Invalid \\escape: line 1 column 3 (char 2)"],
  ['"\\u12"', "Invalid \\uXXXX escape: line 1 column 3 (char 2)"],
  ["nul", "Expecting value: line 1 column 1 (char 0)"],
  ["-", "Expecting value: line 1 column 1 (char 0)"],
  ["-x", "Expecting value: line 1 column 1 (char 0)"],
  ["1.", "Extra data: line 1 column 2 (char 1)"],
  ["1e", "Extra data: line 1 column 2 (char 1)"],
  ["01", "Extra data: line 1 column 2 (char 1)"],
  ['{"a":\n  [1,\n  2 3]}', "Expecting ',' delimiter: line 3 column 5 (char 16)"],
  ['"a\tb"', "Invalid control character at: line 1 column 3 (char 2)"],
  ["\ufeff{}", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"],
  ["[", "Expecting value: line 1 column 2 (char 1)"],
  ["{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"],
  ['{"a":1', "Expecting ',' delimiter: line 1 column 7 (char 6)"],
  ['{"name": "Sarah "Bosch"}', "Expecting ',' delimiter: line 1 column 18 (char 17)"],
];

describe("pyJsonLoads", () => {
  it.each(ERRORS)("%j fails as CPython does", (text, message) => {
    expect(() => pyJsonLoads(text)).toThrow(PyJsonDecodeError);
    expect(() => pyJsonLoads(text)).toThrow(message);
  });

  it("builds Python values: ints, floats, order, constants", () => {
    expect(pyRepr(pyJsonLoads('{"a": 2, "b": 2.5, "c": [1, 2.0], "d": true, "e": null}'))).toBe(
      "{'a': 2, 'b': 2.5, 'c': [1, 2.0], 'd': True, 'e': None}",
    );
    expect(pyRepr(pyJsonLoads('{"a": 2, "c": [1, 2.0]}', { parseIntAsFloat: true }))).toBe(
      "{'a': 2.0, 'c': [1.0, 2.0]}",
    );
    expect(pyRepr(pyJsonLoads('{"b": 1, "2": 2, "a": 3}'))).toBe("{'b': 1, '2': 2, 'a': 3}");
    expect(pyJsonLoads("1E+2")).toEqual(new PyFloat(100));
    expect(pyRepr(pyJsonLoads("[NaN, -Infinity]"))).toBe("[nan, -inf]");
    expect(pyJsonLoads('"\\ud83d\\ude00"')).toBe("😀");
    const proto = pyJsonLoads('{"__proto__": 1}') as Record<string, unknown>;
    expect(Object.keys(proto)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
  });

  it("keeps the first position and the last value of a repeated key", () => {
    expect(pyRepr(pyJsonLoads('{"a": 1, "b": 2, "a": 3}'))).toBe("{'a': 3, 'b': 2}");
  });
});
