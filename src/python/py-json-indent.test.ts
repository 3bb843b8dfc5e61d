import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markPyFloat, parseJsonKeepingPyFloats } from "./py-float.js";
import { formatPyJson } from "./py-json-indent.js";

describe("formatPyJson", () => {
  it("writes what Python's json.dumps(indent=2) writes", () => {
    const value = parseJsonKeepingPyFloats(
      '{"a": [], "b": {}, "c": [1, 2.0, 15.1, 1e-05, -0.0, true, null], "d": "caf\\u00e9 \\u2603 \\ud83d\\ude00 \\u0001\\u007f\\t\\"\\\\/", "e": [{"x": {"y": [3]}}], "f": 1e16, "g": 123456789.0}',
    );
    // Oracle: python3 -c 'import json; print(repr(json.dumps(v, indent=2)))' on the same value.
    expect(formatPyJson(value)).toBe(
      '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    2.0,\n    15.1,\n    1e-05,\n    -0.0,\n    true,\n    null\n  ],\n  "d": "caf\\u00e9 \\u2603 \\ud83d\\ude00 \\u0001\\u007f\\t\\"\\\\/",\n  "e": [\n    {\n      "x": {\n        "y": [\n          3\n        ]\n      }\n    }\n  ],\n  "f": 1e+16,\n  "g": 123456789.0\n}',
    );
  });

  it("renders a shared object correctly at every depth it appears", () => {
    const shared = { k: [2] };
    markPyFloat(shared.k, 0);
    expect(formatPyJson([shared, { inner: shared }])).toBe(
      '[\n  {\n    "k": [\n      2.0\n    ]\n  },\n  {\n    "inner": {\n      "k": [\n        2.0\n      ]\n    }\n  }\n]',
    );
  });

  it("equals JSON.stringify(v, null, 2) on ASCII JSON without fractions, and parses back", () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'ab"\\\n\t {}[],:0'.split("")) });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        ascii,
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: fc.constantFrom("k", "y", "_") }), tie("value"), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const text = formatPyJson(value);
        expect(text).toBe(JSON.stringify(value, null, 2));
        expect(JSON.parse(text)).toEqual(value);
      }),
    );
  });

  it("writes a whole number as a float only where its holder marks it", () => {
    const args = { gb_amount: 2, n: 2, list: [2, 2] };
    markPyFloat(args, "gb_amount");
    markPyFloat(args.list, 1);
    expect(formatPyJson(args)).toBe(
      '{\n  "gb_amount": 2.0,\n  "n": 2,\n  "list": [\n    2,\n    2.0\n  ]\n}',
    );
    // The same number in another holder is an int there: a mark belongs to its holder.
    expect(formatPyJson({ moved: args.gb_amount })).toBe('{\n  "moved": 2\n}');
    // A Map's entries carry no marks.
    expect(formatPyJson(new Map([["gb_amount", 2]]))).toBe('{\n  "gb_amount": 2\n}');
  });
});
