import { describe, expect, it } from "vitest";
import {
  copyPyFloatMarks,
  isPyFloat,
  parseJsonKeepingPyFloats,
  pyArgStr,
  stringifyKeepingPyFloats,
} from "./py-float.js";

describe("Python float marks", () => {
  it("marks integral numbers written as floats, and only those", () => {
    const value = parseJsonKeepingPyFloats(
      '{"a": 2.0, "b": 2, "c": 15.1, "d": [1e3, 3], "s": "2.0 GB \\" 4.0", "n": {"x": -0.0}}',
    ) as { a: number; b: number; c: number; d: number[]; s: string; n: { x: number } };
    expect(value).toEqual({ a: 2, b: 2, c: 15.1, d: [1000, 3], s: '2.0 GB " 4.0', n: { x: -0 } });
    expect(isPyFloat(value, "a")).toBe(true);
    expect(isPyFloat(value, "b")).toBe(false);
    expect(isPyFloat(value, "c")).toBe(true);
    expect(isPyFloat(value.d, 0)).toBe(true);
    expect(isPyFloat(value.d, 1)).toBe(false);
    expect(isPyFloat(value.n, "x")).toBe(true);
  });

  it("prints arguments as a Python f-string would", () => {
    const args = parseJsonKeepingPyFloats('{"gb": 2.0, "n": 50, "f": 0.5, "b": true, "z": null}') as object;
    expect(["gb", "n", "f", "b", "z", "missing"].map((k) => pyArgStr(args, k))).toEqual([
      "2.0",
      "50",
      "0.5",
      "True",
      "None",
      "None",
    ]);
  });

  it("carries marks over to structural copies", () => {
    const source = parseJsonKeepingPyFloats(
      '{"outer": {"gb": 2.0}, "list": [1, 2.0], "plain": {"n": 1}}',
    ) as {
      outer: { gb: number };
      list: number[];
      plain: { n: number };
    };
    const copy = structuredClone(source);
    expect(isPyFloat(copy.outer, "gb")).toBe(false);
    copyPyFloatMarks(source, copy);
    expect(isPyFloat(copy.outer, "gb")).toBe(true);
    expect(isPyFloat(copy.list, 1)).toBe(true);
    expect(isPyFloat(copy.list, 0)).toBe(false);
    const again = structuredClone(copy);
    copyPyFloatMarks(copy, again);
    expect(isPyFloat(again.outer, "gb")).toBe(true);
  });

  it("falls back to a full scan when a float look-alike sits inside a string", () => {
    const value = parseJsonKeepingPyFloats('{"note": "ratio 2.0, fine", "x": 3.0}') as {
      note: string;
      x: number;
    };
    expect(value).toEqual({ note: "ratio 2.0, fine", x: 3 });
    expect(isPyFloat(value, "x")).toBe(true);
  });

  it("parses text without float literals as JSON.parse does", () => {
    const text = '{"a": [1, 2, {"b": "x"}], "c": null}';
    expect(parseJsonKeepingPyFloats(text)).toEqual(JSON.parse(text));
  });
});

describe("stringifyKeepingPyFloats", () => {
  it("writes numbers read as Python floats with their point, and everything else as JSON.stringify does", () => {
    const text = '{"gb_amount": 2.0, "n": 2, "nested": [{"x": 1e3, "y": 1.5}], "s": "2.0"}';
    const value = parseJsonKeepingPyFloats(text);
    expect(stringifyKeepingPyFloats(value)).toBe(
      '{"gb_amount":2.0,"n":2,"nested":[{"x":1000.0,"y":1.5}],"s":"2.0"}',
    );
    expect(stringifyKeepingPyFloats({ a: 2, b: [1, 2] }, 2)).toBe(
      JSON.stringify({ a: 2, b: [1, 2] }, null, 2),
    );
    // Round trip: read back, the floats are floats again.
    const again = parseJsonKeepingPyFloats(stringifyKeepingPyFloats(value)) as { gb_amount: number };
    expect(isPyFloat(again, "gb_amount")).toBe(true);
    expect(isPyFloat(again as object, "n")).toBe(false);
  });
});
