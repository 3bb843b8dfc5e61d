import { describe, expect, it } from "vitest";
import { calculate, pyRound2 } from "./calculate.js";

// Expected texts are what the reference's `calculate` (Python 3.11 `eval`, `round(float(x), 2)`,
// `str`) printed for these expressions; the first two also occur in the τ² fixtures.
const RESULTS: Array<[string, string]> = [
  ["(100 + 30) * 3 / 2", "195.0"],
  ["2 * ((350 - 122) + (499 - 127))", "1200.0"],
  ["0.125", "0.12"], // an exact tie: to even
  ["0.375", "0.38"],
  ["-0.125", "-0.12"],
  ["2.675", "2.67"], // just below the tie in binary
  ["1.005", "1.0"],
  ["762017627833080.1", "762017627833080.1"], // a tie too large for x * 100 to be exact
  ["10 / 3", "3.33"],
  ["-7 // 2", "-4.0"],
  ["-7.5 // 2", "-4.0"],
  ["7 // -2.0", "-4.0"],
  ["-2 ** 2", "-4.0"],
  ["2 ** -1", "0.5"],
  ["2 ** 3 ** 2", "512.0"],
  ["0.1 + 0.2", "0.3"],
  ["-0.001", "-0.0"],
  ["0 / -28", "-0.0"],
  ["123456789 * 1000000000", "1.23456789e+17"],
  ["9007199254740993 + 0", "9007199254740992.0"], // exact ints, then one rounding
  ["10 ** 400 / 10 ** 399", "10.0"],
  ["1.1 ** 3", "1.33"],
  ["990.78 ** 13", "8.865515770406334e+38"], // V8's ** is one ulp off here
  ["536 ** 7.84", "2.4925963296740983e+21"],
];

const ERRORS: Array<[string, string]> = [
  ["1/0", "division by zero"],
  ["1.0/0", "float division by zero"],
  ["1//0", "integer division or modulo by zero"],
  ["1.0 // 0", "float floor division by zero"],
  ["0 ** -1", "0.0 cannot be raised to a negative power"],
  ["2 ** 1024", "int too large to convert to float"],
  ["10.0 ** 400", "(34, 'Numerical result out of range')"],
  ["(-8) ** 0.5", "float() argument must be a string or a real number, not 'complex'"],
  ["(645.459 * -841) ** 502.604", "complex exponentiation"],
  ["0 ** (-8) ** 0.5", "0.0 to a negative or complex power"],
  ["()", "float() argument must be a string or a real number, not 'tuple'"],
  ["() + ()", "float() argument must be a string or a real number, not 'tuple'"],
  ["-()", "bad operand type for unary -: 'tuple'"],
  ["2(3)", "'int' object is not callable"],
  ["2 + x", "Invalid characters in expression"],
  ["", "invalid syntax (<string>, line 0)"],
  ["1 +", "invalid syntax (<string>, line 1)"],
  ["(1", "'(' was never closed (<string>, line 1)"],
  ["1)", "unmatched ')' (<string>, line 1)"],
  [
    "07",
    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["1 2", "invalid syntax (<string>, line 1)"],
  ["(1 2)", "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(1 2", "'(' was never closed (<string>, line 1)"],
  ["1/0 +", "invalid syntax (<string>, line 1)"], // compiled before it runs
  ["1.2.3", "invalid syntax (<string>, line 1)"],
];

describe("calculate prints what the reference prints", () => {
  it.each(RESULTS)("%s → %s", (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each(ERRORS)("%s fails with %s", (expression, message) => {
    expect(() => calculate(expression)).toThrow(message);
    try {
      calculate(expression);
    } catch (error) {
      expect((error as Error).message).toBe(message);
    }
  });
});

describe("pyRound2", () => {
  it("rounds exact ties to even and keeps the sign of zero", () => {
    expect([0.125, 0.375, 0.625, 0.875, -0.625].map(pyRound2)).toEqual([0.12, 0.38, 0.62, 0.88, -0.62]);
    expect(Object.is(pyRound2(-0.001), -0)).toBe(true);
  });

  it("leaves values that are already whole or not finite alone", () => {
    expect(pyRound2(2 ** 60)).toBe(2 ** 60);
    expect(pyRound2(Infinity)).toBe(Infinity);
  });
});
