import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { correctlyRoundedLog } from "./py-log.js";

// `repr(math.log(x))` under CPython 3.11.7 on glibc (correctly rounded). The first four are arguments
// of BM25's idf where V8's Math.log is one ulp off.
const PYTHON_LOG: ReadonlyArray<[number, number]> = [
  [23.5, 3.1570004211501135],
  [41.5, 3.7256934272366524],
  [46.5, 3.8394523125933104],
  [49.5, 3.901972669574645],
  [3.0, 1.0986122886681098],
  [0.1, -2.3025850929940455],
  [1e-300, -690.7755278982137],
  [5e-324, -744.4400719213812],
  [1.7976931348623157e308, 709.782712893384],
  [0.75, -0.2876820724517809],
  [697.5, 6.5475025136955205],
  [10000000000.5, 23.025850929990458],
];

describe("correctlyRoundedLog", () => {
  it.each(PYTHON_LOG)("ln(%d) equals Python's math.log", (x, expected) => {
    expect(correctlyRoundedLog(x)).toBe(expected);
  });

  it("differs from Math.log exactly where V8 is one ulp off (so the fixture above can fail)", () => {
    expect(Math.log(23.5)).not.toBe(3.1570004211501135);
  });

  it("is within one ulp of Math.log everywhere and exact at 1 and on edge inputs", () => {
    expect(correctlyRoundedLog(1)).toBe(0);
    expect(correctlyRoundedLog(0)).toBe(-Infinity);
    expect(correctlyRoundedLog(-1)).toBeNaN();
    fc.assert(
      fc.property(fc.double({ min: Number.MIN_VALUE, max: 1e300, noNaN: true }), (x) => {
        const approximate = Math.log(x);
        const exact = correctlyRoundedLog(x);
        const ulp = Math.max(Number.MIN_VALUE, Math.abs(approximate) * Number.EPSILON);
        return Math.abs(exact - approximate) <= ulp;
      }),
    );
  });
});
