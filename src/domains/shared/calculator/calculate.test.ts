import { describe, expect, it } from "vitest";
import { PyException } from "../../../python/py-exception.js";
import { calculate } from "./calculate.js";
import { pyRound2 } from "../../../python/py-arithmetic.js";

/** What the reference's `calculate` gives: "OK <result>" or "ERR <Python exception>: <text>". */
function run(expression: unknown): string {
  try {
    return `OK ${calculate(expression)}`;
  } catch (error) {
    if (error instanceof PyException) return `ERR ${error.pyType}: ${error.message}`;
    throw error;
  }
}

// Oracle: CPython 3.11.7 running `str(round(float(eval(e, {"__builtins__": None}, {})), 2))` after the
// reference's character check (the same Python version the τ² fixtures were made with).
const PYTHON_3_11: Array<[string, string]> = [
  // Powers: V8's Math.pow is often an ulp off where the C library's pow is not.
  ["10.**26.", "OK 1e+26"],
  ["(+141-68)**43.", "OK 1.327036857282757e+80"],
  ["-206-431**8.4", "OK -1.3477491585363743e+22"],
  ["1.0000001**1000000000", "OK 2.6881038582144647e+43"],
  ["1 2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["(1", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  ["1)", "ERR SyntaxError: unmatched ')' (<string>, line 1)"],
  [")", "ERR SyntaxError: unmatched ')' (<string>, line 1)"],
  ["", "ERR SyntaxError: invalid syntax (<string>, line 0)"],
  [" ", "ERR SyntaxError: invalid syntax (<string>, line 0)"],
  ["1+", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["+", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  [
    "01",
    "ERR SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["00", "OK 0.0"],
  ["00.5", "OK 0.5"],
  ["1.2.3", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1..2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["...", "ERR TypeError: float() argument must be a string or a real number, not 'ellipsis'"],
  ["...+1", "ERR TypeError: unsupported operand type(s) for +: 'ellipsis' and 'int'"],
  ["2(3)", "ERR TypeError: 'int' object is not callable"],
  ["2.5(3)", "ERR TypeError: 'float' object is not callable"],
  ["()", "ERR TypeError: float() argument must be a string or a real number, not 'tuple'"],
  ["()(1)", "ERR TypeError: 'tuple' object is not callable"],
  ["(1+2)(3)", "ERR TypeError: 'int' object is not callable"],
  ["1/0", "ERR ZeroDivisionError: division by zero"],
  ["1.0/0", "ERR ZeroDivisionError: float division by zero"],
  ["1//0", "ERR ZeroDivisionError: integer division or modulo by zero"],
  ["1.0//0", "ERR ZeroDivisionError: float floor division by zero"],
  ["7//2", "OK 3.0"],
  ["-7//2", "OK -4.0"],
  ["7.5//2", "OK 3.0"],
  ["2**-1", "OK 0.5"],
  ["-2**2", "OK -4.0"],
  ["2**0.5", "OK 1.41"],
  ["(-8)**(1/3)", "ERR TypeError: float() argument must be a string or a real number, not 'complex'"],
  ["0**-1", "ERR ZeroDivisionError: 0.0 cannot be raised to a negative power"],
  ["0.0**-1", "ERR ZeroDivisionError: 0.0 cannot be raised to a negative power"],
  ["10.0**400", "ERR OverflowError: (34, 'Numerical result out of range')"],
  ["2**10000", "ERR OverflowError: int too large to convert to float"],
  ["10**400/10**399", "OK 10.0"],
  ["10.0**308*10", "OK inf"],
  ["10.0**308*10-10.0**308*10", "OK nan"],
  ["0.125", "OK 0.12"],
  ["0.375", "OK 0.38"],
  ["-0.125", "OK -0.12"],
  ["2.675", "OK 2.67"],
  ["1e5", "ERR ValueError: Invalid characters in expression"],
  ["1 +", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["* 2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1 * * 2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1 ** ** 2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["( )", "ERR TypeError: float() argument must be a string or a real number, not 'tuple'"],
  ["(1)(2)(3)", "ERR TypeError: 'int' object is not callable"],
  ["1 . 2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1 .2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1. 2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1.(", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  ["(1,)", "ERR ValueError: Invalid characters in expression"],
  ["((1)", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  ["1))", "ERR SyntaxError: unmatched ')' (<string>, line 1)"],
  ["(()", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  [".", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1 . . 2", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["2 * (3 + 4", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  ["2 */ 3", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["2 // / 3", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["3 - -", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["*", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["**", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["/", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["(*1)", "ERR SyntaxError: cannot use starred expression here (<string>, line 1)"],
  ["2(*3)", "ERR TypeError: 2 argument after * must be an iterable, not int"],
  ["2(**3)", "ERR TypeError: 2 argument after ** must be a mapping, not int"],
  ["2()", "ERR TypeError: 'int' object is not callable"],
  ["1(2)(3)", "ERR TypeError: 'int' object is not callable"],
  ["((()))", "ERR TypeError: float() argument must be a string or a real number, not 'tuple'"],
  ["0.1+0.2", "OK 0.3"],
  ["  1+1", "OK 2.0"],
  ["1+1  ", "OK 2.0"],
  ["1/3", "OK 0.33"],
  ["2/3", "OK 0.67"],
  ["100", "OK 100.0"],
  ["100.0", "OK 100.0"],
  ["1.5e", "ERR ValueError: Invalid characters in expression"],
  ["12345678901234567890*3", "OK 3.70370367037037e+19"],
  ["9007199254740993", "OK 9007199254740992.0"],
  ["9007199254740993/1", "OK 9007199254740992.0"],
  ["123456789012345678901234567890/7", "OK 1.763668414462081e+28"],
  ["-0.0", "OK -0.0"],
  ["-0.001", "OK -0.0"],
  ["0.005", "OK 0.01"],
  ["1.005", "OK 1.0"],
  ["(1).", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["1.(2)", "ERR TypeError: 'float' object is not callable"],
  ["..(1)", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["(...)", "ERR TypeError: float() argument must be a string or a real number, not 'ellipsis'"],
  ["... ...", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["()+()", "ERR TypeError: float() argument must be a string or a real number, not 'tuple'"],
  ["()*2", "ERR TypeError: float() argument must be a string or a real number, not 'tuple'"],
  ["2*()", "ERR TypeError: float() argument must be a string or a real number, not 'tuple'"],
  ["-()", "ERR TypeError: bad operand type for unary -: 'tuple'"],
  ["(1)(2", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  ["1 (2", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  ["1 2 3", "ERR SyntaxError: invalid syntax (<string>, line 1)"],
  ["((1 2))", "ERR SyntaxError: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["1 - (2 3)", "ERR SyntaxError: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["3131.1 + 4777.75 + 367.38", "OK 8276.23"],
  ["155.33 - 147.05 + 268.77 - 235.13", "OK 41.92"],
  ["135.24 - 153.23", "OK -17.99"],
  ["2.5 * 4", "OK 10.0"],
  ["10 / 4", "OK 2.5"],
  ["(100 - 20) * 0.9", "OK 72.0"],
  ["1.125", "OK 1.12"],
  ["-1.125", "OK -1.12"],
  ["2**0.5*2**0.5", "OK 2.0"],
  ["4 // 0.5", "OK 8.0"],
  ["-7.5 // 2", "OK -4.0"],
  ["7 // -2.0", "OK -4.0"],
  ["((1 2)", "ERR SyntaxError: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(*1 2)", "ERR SyntaxError: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(**1)", "ERR SyntaxError: cannot use double starred expression here (<string>, line 1)"],
  ["1 (2 3)", "ERR SyntaxError: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["1 2)", "ERR SyntaxError: unmatched ')' (<string>, line 1)"],
  ["((1)", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  [
    "1 - (2 3) 01",
    "ERR SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  [
    "1 2 01",
    "ERR SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
  ["10 ** 400 * 1.0", "ERR OverflowError: int too large to convert to float"],
  ["2**-1074", "OK 0.0"],
  ["2.0**-1080", "OK 0.0"],
  ["()*2.5", "ERR TypeError: can't multiply sequence by non-int of type 'float'"],
  ["() + 1", 'ERR TypeError: can only concatenate tuple (not "int") to tuple'],
  ["1 + ()", "ERR TypeError: unsupported operand type(s) for +: 'int' and 'tuple'"],
  ["...*()", "ERR TypeError: can't multiply sequence by non-int of type 'ellipsis'"],
  ["(-8)**(1/3)//2", "ERR TypeError: unsupported operand type(s) for //: 'complex' and 'int'"],
  ["(-8)**0.5/0", "ERR ZeroDivisionError: complex division by zero"],
  ["2(*())", "ERR TypeError: 'int' object is not callable"],
  ["2(**())", "ERR TypeError: 2 argument after ** must be a mapping, not tuple"],
  ["...(1)", "ERR TypeError: 'ellipsis' object is not callable"],
  // Expressions the τ² fixtures use (the first two), exact ties, V8's `**` being an ulp off, overflow
  // and complex results on the way to `float()`, and the order of syntax errors.
  ["(100 + 30) * 3 / 2", "OK 195.0"],
  ["2 * ((350 - 122) + (499 - 127))", "OK 1200.0"],
  ["762017627833080.1", "OK 762017627833080.1"], // a tie too large for x * 100 to be exact
  ["10 / 3", "OK 3.33"],
  ["-7 // 2", "OK -4.0"],
  ["-2 ** 2", "OK -4.0"],
  ["2 ** -1", "OK 0.5"],
  ["2 ** 3 ** 2", "OK 512.0"],
  ["0.1 + 0.2", "OK 0.3"],
  ["0 / -28", "OK -0.0"],
  ["123456789 * 1000000000", "OK 1.23456789e+17"],
  ["9007199254740993 + 0", "OK 9007199254740992.0"], // exact ints, then one rounding
  ["10 ** 400 / 10 ** 399", "OK 10.0"],
  ["1.1 ** 3", "OK 1.33"],
  ["990.78 ** 13", "OK 8.865515770406334e+38"],
  ["536 ** 7.84", "OK 2.4925963296740983e+21"],
  ["1.0 // 0", "ERR ZeroDivisionError: float floor division by zero"],
  ["0 ** -1", "ERR ZeroDivisionError: 0.0 cannot be raised to a negative power"],
  ["2 ** 1024", "ERR OverflowError: int too large to convert to float"],
  ["10.0 ** 400", "ERR OverflowError: (34, 'Numerical result out of range')"],
  ["(-8) ** 0.5", "ERR TypeError: float() argument must be a string or a real number, not 'complex'"],
  ["(645.459 * -841) ** 502.604", "ERR OverflowError: complex exponentiation"],
  ["0 ** (-8) ** 0.5", "ERR ZeroDivisionError: 0.0 to a negative or complex power"],
  ["() + ()", "ERR TypeError: float() argument must be a string or a real number, not 'tuple'"],
  ["2 + x", "ERR ValueError: Invalid characters in expression"],
  ["(1 2)", "ERR SyntaxError: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(1 2", "ERR SyntaxError: '(' was never closed (<string>, line 1)"],
  ["1/0 +", "ERR SyntaxError: invalid syntax (<string>, line 1)"], // compiled before it runs
  [
    "07",
    "ERR SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
  ],
];

describe("calculate evaluates like CPython 3.11", () => {
  it.each(PYTHON_3_11)("%j", (expression, expected) => {
    expect(run(expression)).toBe(expected);
  });

  it.each([
    [12, "ERR TypeError: 'int' object is not iterable"],
    [1.5, "ERR TypeError: 'float' object is not iterable"],
    [true, "ERR TypeError: 'bool' object is not iterable"],
    [null, "ERR TypeError: 'NoneType' object is not iterable"],
    [["1", "+", "2"], "ERR TypeError: eval() arg 1 must be a string, bytes or code object"],
    [["12"], "ERR TypeError: eval() arg 1 must be a string, bytes or code object"],
    [["1", 2], "ERR TypeError: 'in <string>' requires string as left operand, not int"],
    [["a"], "ERR ValueError: Invalid characters in expression"],
    [{ "1": 1 }, "ERR TypeError: eval() arg 1 must be a string, bytes or code object"],
  ])("raw argument %j fails as in Python", (expression, expected) => {
    expect(run(expression)).toBe(expected);
  });

  it("keeps deeply nested parentheses linear", () => {
    const deep = `${"(".repeat(200)}1${")".repeat(200)}`;
    expect(run(deep)).toBe("OK 1.0");
  });
});

describe("pyRound2 is Python's round(x, 2)", () => {
  it.each([
    [0.125, 0.12], // exact binary tie: to even
    [0.375, 0.38],
    [-0.125, -0.12],
    [2.675, 2.67], // 2.67499999… in binary
    [1.005, 1], // 1.00499999…
    [0.005, 0.01], // 0.005000000000000000104…
    [-0.001, -0],
    [0.625, 0.62],
    [0.875, 0.88],
    [-0.625, -0.62],
    [2 ** 60, 2 ** 60], // already whole
    [Infinity, Infinity],
  ])("round(%d, 2) = %d", (value, expected) => {
    expect(Object.is(pyRound2(value), expected)).toBe(true);
  });
});
