import { describe, expect, it } from "vitest";
import { PythonRandom } from "./py-random.js";

// Oracle: CPython 3.11, `random.seed(s); [random.randint(0, 1000000) for _ in range(6)]`.
const CPYTHON: ReadonlyArray<[number, number[]]> = [
  [300, [626729, 373753, 361454, 1567, 514337, 363271]],
  [0, [885440, 403958, 794772, 933488, 441001, 42450]],
  [42, [670487, 116739, 26225, 777572, 288389, 256787]],
  [-7, [339563, 993908, 158176, 414002, 682554, 50631]],
  [2 ** 40 + 5, [528881, 542031, 281652, 696042, 970757, 28760]],
  [123456789, [672557, 463751, 568526, 744442, 946644, 884213]],
];

describe("PythonRandom", () => {
  for (const [seed, expected] of CPYTHON) {
    it(`randint(0, 1000000) equals CPython's after random.seed(${seed})`, () => {
      const random = new PythonRandom(seed);
      expect(Array.from({ length: 6 }, () => random.randint(0, 1_000_000))).toEqual(expected);
    });
  }

  it("getrandbits(32) equals CPython's after random.seed(5)", () => {
    const random = new PythonRandom(5);
    expect([random.getrandbits(32), random.getrandbits(32), random.getrandbits(32)]).toEqual([
      2675342405, 1097127993, 3185950873,
    ]);
  });

  it("rejects ranges it cannot draw like CPython", () => {
    expect(() => new PythonRandom(1).randint(0, 2 ** 32 - 1)).toThrow(RangeError);
    expect(() => new PythonRandom(1).randint(3, 2)).toThrow(RangeError);
  });
});
