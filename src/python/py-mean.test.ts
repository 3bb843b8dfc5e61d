import { describe, expect, it } from "vitest";
import { numpySum, pandasMean } from "./py-mean.js";

describe("numpySum (numpy's pairwise float64 sum)", () => {
  it("gives numpy's answers where plain left-to-right addition differs", () => {
    const tenths = new Array<number>(10).fill(0.1);
    // Python: sum([0.1] * 10) == 0.9999999999999999, numpy: np.sum([0.1] * 10) == 1.0
    expect(tenths.reduce((a, b) => a + b, 0)).toBe(0.9999999999999999);
    expect(numpySum(tenths)).toBe(1.0);
  });

  it("adds short arrays left to right", () => {
    expect(numpySum([0.1, 0.2, 0.3])).toBe(0.1 + 0.2 + 0.3);
    expect(numpySum([])).toBe(0);
  });

  it("splits long arrays in halves that are multiples of 8", () => {
    const values = Array.from({ length: 300 }, (_, i) => 1 / (i + 3));
    // 300 → 144 + 156; both ≤ 128? no: 144 → 72 + 72, 156 → 72 + 84.
    const block = (from: number, n: number) => numpySum(values.slice(from, from + n));
    expect(numpySum(values)).toBe(block(0, 72) + block(72, 72) + (block(144, 72) + block(216, 84)));
  });
});

describe("pandasMean", () => {
  it("skips missing values and returns null when none remain", () => {
    expect(pandasMean([1, null, 0, undefined, Number.NaN])).toBe(0.5);
    expect(pandasMean([null, undefined])).toBeNull();
  });
});
