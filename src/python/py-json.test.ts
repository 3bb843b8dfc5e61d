import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { pyFloatRepr, pyJsonString, toPyJson } from "./py-json.js";
import { pyShapeOf } from "./py-shape.js";

describe("pyFloatRepr", () => {
  it.each([
    [100, "100.0"],
    [0.1, "0.1"],
    [1e-5, "1e-05"],
    [0.0001, "0.0001"],
    [1e16, "1e+16"],
    [123456789012345.6, "123456789012345.6"],
    [1.5e300, "1.5e+300"],
    [-2.5, "-2.5"],
    [0, "0.0"],
    [503.51, "503.51"],
    [2577.53, "2577.53"],
    [1234567890123456.0, "1234567890123456.0"],
  ])("repr(%s) = %s", (value, expected) => {
    expect(pyFloatRepr(value)).toBe(expected);
  });

  it("round-trips every finite double", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(Number(pyFloatRepr(x))).toBe(x);
      }),
    );
  });
});

describe("pyJsonString", () => {
  it("escapes non-ASCII like ensure_ascii", () => {
    expect(pyJsonString('📶 é\u007f\n"')).toBe('"\\ud83d\\udcf6 \\u00e9\\u007f\\n\\""');
  });
});

describe("toPyJson", () => {
  const Item = z.object({
    name: z.string(),
    price: z.number(),
    count: z.int(),
    at: z.iso.datetime({ local: true }),
  });
  const shape = pyShapeOf(Item);
  const item = { name: "a", price: 4, count: 2, at: "2025-01-15T10:30:00" };

  it("dumps a model with Python spacing, float and datetime rules", () => {
    expect(toPyJson(item, shape, { mode: "dump" })).toBe(
      '{"name": "a", "price": 4.0, "count": 2, "at": "2025-01-15 10:30:00"}',
    );
  });

  it("sorts keys at every level in dump mode", () => {
    const Db = z.object({ z: z.record(z.string(), Item), a: z.boolean() });
    expect(toPyJson({ z: { k: item }, a: true }, pyShapeOf(Db), { mode: "dump", sortKeys: true })).toBe(
      '{"a": true, "z": {"k": {"at": "2025-01-15 10:30:00", "count": 2, "name": "a", "price": 4.0}}}',
    );
  });

  it("stringifies scalars outside models in tool mode", () => {
    expect(toPyJson({ charge: 4, ok: true, nested: [1, 2.5] }, pyShapeOf(z.any()), { mode: "tool" })).toBe(
      '{"charge": "4", "ok": "True", "nested": ["1", "2.5"]}',
    );
    expect(toPyJson([item], pyShapeOf(z.array(Item)), { mode: "tool" })).toBe(
      '[{"name": "a", "price": 4.0, "count": 2, "at": "2025-01-15 10:30:00"}]',
    );
  });

  it("keeps Map insertion order for integer-like keys", () => {
    const m = new Map([
      ["9", 1],
      ["10", 2],
    ]);
    expect(toPyJson(m, pyShapeOf(z.map(z.string(), z.int())), { mode: "dump" })).toBe('{"9": 1, "10": 2}');
  });
});
