import { describe, expect, it } from "vitest";
import { enumerateCombinations } from "./enumerate-combinations.js";

describe("enumerateCombinations", () => {
  it("counts like an odometer (first set slowest, nothing last), sorts names, then sizes", () => {
    // Odometer: (a,c) (a,b) (a,-) (-,c) (-,b) (-,-); the empty one is dropped; stable sort by size.
    expect(enumerateCombinations([["a"], ["c", "b"]], 0)).toEqual([
      ["a"],
      ["c"],
      ["b"],
      ["a", "c"],
      ["a", "b"],
    ]);
  });

  it("keeps only combinations that use a set at requiredFrom or later", () => {
    expect(enumerateCombinations([["x"], ["y"], ["z"]], 1)).toEqual([
      ["y"],
      ["z"],
      ["x", "y"],
      ["x", "z"],
      ["y", "z"],
      ["x", "y", "z"],
    ]);
    expect(enumerateCombinations([["x"], ["y"]], 2)).toEqual([]);
  });

  it("orders names by code units: '_' before letters, a name before its extensions", () => {
    expect(
      enumerateCombinations([["data_x"], ["data_usage_exceeded_no_refuel"], ["data_usage_exceeded"]], 0).at(
        -1,
      ),
    ).toEqual(["data_usage_exceeded", "data_usage_exceeded_no_refuel", "data_x"]);
  });

  it("gives the product of (members + 1) minus the dropped ones", () => {
    const sets = [["a1", "a2"], ["b1", "b2", "b3"], ["c1"]];
    // 3 * 4 * 2 = 24 in all; requiredFrom 1 drops the 3 that use neither b nor c.
    const combinations = enumerateCombinations(sets, 1);
    expect(combinations).toHaveLength(21);
    expect(new Set(combinations.map((c) => c.join("|"))).size).toBe(21);
  });
});
