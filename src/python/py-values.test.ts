import { describe, expect, it } from "vitest";
import { PyException } from "./py-exception.js";
import { pydanticErrorText, pydanticLaxInt, pyIterate, pyNumber, pyRepr, pyTypeName } from "./py-values.js";

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
    expect(() => pyIterate(3)).toThrow(new PyException("'int' object is not iterable", "TypeError"));
    expect(pyTypeName(null)).toBe("NoneType");
  });
});

describe("pydanticErrorText", () => {
  it("cuts long input reprs by UTF-8 bytes, as pydantic-core 2.13 does", () => {
    // Expected text printed by pydantic 2.13.4 for `M(a="é" * 30, b=[1] * 30)`.
    const text = pydanticErrorText("M", [
      {
        loc: ["a"],
        message: "Input should be a valid integer, unable to parse string as an integer",
        type: "int_parsing",
        input: "é".repeat(30),
      },
      {
        loc: ["b"],
        message: "Input should be a valid string",
        type: "string_type",
        input: Array(30).fill(1),
      },
    ]);
    expect(text).toBe(
      [
        "2 validation errors for M",
        "a",
        "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='éééééééééééé...ééééééééééé', input_type=str]",
        "    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing",
        "b",
        "  Input should be a valid string [type=string_type, input_value=[1, 1, 1, 1, 1, 1, 1, 1, ... 1, 1, 1, 1, 1, 1, 1, 1], input_type=list]",
        "    For further information visit https://errors.pydantic.dev/2.13/v/string_type",
      ].join("\n"),
    );
  });
});

describe("pydanticLaxInt", () => {
  it("accepts what pydantic 2.13.4 accepts for an int field, and names the failure otherwise", () => {
    // Each input was given to a pydantic 2.13.4 `int` field.
    const accepted: Array<[unknown, number]> = [
      ["1_000", 1000],
      [" 12 ", 12],
      ["1.0", 1],
      ["1.00", 1],
      [" 1_0.0 ", 10],
      ["+3", 3],
      [true, 1],
      [7, 7],
    ];
    for (const [input, value] of accepted) expect(pydanticLaxInt(input)).toBe(value);
    const refused = ["1.5", "1.", "1e3", "0x10", "", "1__0", "_1"];
    for (const input of refused) expect(pydanticLaxInt(input)).toMatchObject({ type: "int_parsing" });
    expect(pydanticLaxInt(1.5)).toMatchObject({ type: "int_from_float" });
    expect(pydanticLaxInt([1])).toMatchObject({ type: "int_type" });
  });
});
