import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { binomial, divideExact, isSuccessful, passAtK, passHatK } from "./pass-hat-k.js";

const trialCounts = fc
  .integer({ min: 1, max: 40 })
  .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n })));

describe("passHatK", () => {
  it("equals C(c,k)/C(n,k) on hand-computed values", () => {
    expect(passHatK(4, 2, 1)).toBe(0.5);
    expect(passHatK(4, 2, 2)).toBe(1 / 6);
    expect(passHatK(4, 3, 2)).toBe(0.5);
    expect(passHatK(4, 3, 3)).toBe(0.25);
    expect(passHatK(5, 4, 3)).toBe(4 / 10);
    expect(passHatK(3, 3, 3)).toBe(1);
  });

  it("refuses k above the number of trials, naming both", () => {
    expect(() => passHatK(2, 1, 3)).toThrow("number of trials 2 is less than k 3");
  });

  it("lies in [0, 1], never rises with k, is 1 when all pass and 0 when fewer than k pass", () => {
    fc.assert(
      fc.property(trialCounts, ([n, c]) => {
        let previous = 1;
        for (let k = 1; k <= n; k++) {
          const value = passHatK(n, c, k);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
          expect(value).toBeLessThanOrEqual(previous);
          if (c === n) expect(value).toBe(1);
          if (c < k) expect(value).toBe(0);
          previous = value;
        }
      }),
    );
  });
});

describe("passAtK", () => {
  it("equals 1 − C(n−c,k)/C(n,k)", () => {
    expect(passAtK(4, 2, 2)).toBe(5 / 6);
    expect(passAtK(4, 1, 2)).toBe(0.5);
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(4, 2, 3)).toBe(1);
  });

  it("is at least pass^k and never falls with k", () => {
    fc.assert(
      fc.property(trialCounts, ([n, c]) => {
        let previous = 0;
        for (let k = 1; k <= n; k++) {
          const value = passAtK(n, c, k);
          expect(value).toBeGreaterThanOrEqual(passHatK(n, c, k));
          expect(value).toBeGreaterThanOrEqual(previous);
          previous = value;
        }
      }),
    );
  });
});

describe("exact arithmetic", () => {
  it("binomial is exact beyond 2^53", () => {
    expect(binomial(60, 30)).toBe(118264581564861424n);
    expect(binomial(5, 7)).toBe(0n);
  });

  it("divideExact rounds big quotients as the double division of the reduced fraction", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 200 }),
        (p, q, e) => {
          const scale = 3n ** BigInt(e);
          expect(divideExact(BigInt(p) * scale, BigInt(q) * scale)).toBe(p / q);
        },
      ),
    );
  });

  it("isSuccessful accepts rewards within 1e-6 of 1 only", () => {
    expect(isSuccessful(1)).toBe(true);
    expect(isSuccessful(0.9999995)).toBe(true);
    expect(isSuccessful(0.99)).toBe(false);
    expect(isSuccessful(null)).toBe(false);
  });
});
