import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleTasks } from "./sample-tasks.js";

describe("sampleTasks", () => {
  it("is a subset of the requested size, in list order, the same for the same seed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.nat(), fc.nat(), (length, sizeSeed, seed) => {
        const items = Array.from({ length }, (_, i) => `t${i}`);
        const size = length === 0 ? 0 : sizeSeed % (length + 1);
        const sample = sampleTasks(items, size, seed);
        expect(sample).toHaveLength(size);
        const positions = sample.map((s) => items.indexOf(s));
        expect(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!))).toBe(true);
        expect(sampleTasks(items, size, seed)).toEqual(sample);
      }),
    );
  });

  it("depends on the seed", () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    expect(sampleTasks(items, 10, 1)).not.toEqual(sampleTasks(items, 10, 2));
    expect(sampleTasks(items, 100, 9)).toEqual(items);
  });

  it("refuses more than the list has", () => {
    expect(() => sampleTasks([1, 2], 3, 0)).toThrow("--sample 3 asks for more tasks than the set has (2)");
  });
});
