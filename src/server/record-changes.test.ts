import { describe, expect, it } from "vitest";
import { diffDb } from "../evaluation/db-diff.js";
import { fieldChanges, recordChanges } from "./record-changes.js";

describe("recordChanges", () => {
  it("reports each changed record field by field, for dict, list and plain-field collections", () => {
    const before = {
      users: new Map([["u1", { name: "Ann", address: { city: "Paris", zip: "75001" }, tags: ["a"] }]]),
      lines: [{ line_id: "L1", status: "active" }],
      device: { airplane_mode: true, battery_level: 80 },
    };
    const after = {
      users: new Map([
        ["u1", { name: "Ann", address: { city: "Lyon", zip: "69001" }, tags: ["a", "b"] }],
        ["u2", { name: "Bo", address: { city: "Nice", zip: "06000" }, tags: [] }],
      ]),
      lines: [{ line_id: "L1", status: "suspended" }],
      device: { airplane_mode: false, battery_level: 80 },
    };
    expect(recordChanges(before, diffDb(before, after))).toEqual([
      {
        collection: "users",
        id: "u1",
        kind: "changed",
        fields: [
          { path: "address.city", before: "Paris", after: "Lyon" },
          { path: "address.zip", before: "75001", after: "69001" },
          { path: "tags", before: ["a"], after: ["a", "b"] },
        ],
      },
      {
        collection: "users",
        id: "u2",
        kind: "added",
        fields: [
          { path: "name", before: null, after: "Bo" },
          { path: "address.city", before: null, after: "Nice" },
          { path: "address.zip", before: null, after: "06000" },
          { path: "tags", before: null, after: [] },
        ],
      },
      {
        collection: "lines",
        id: "L1",
        kind: "changed",
        fields: [{ path: "status", before: "active", after: "suspended" }],
      },
      {
        collection: "device",
        id: "airplane_mode",
        kind: "changed",
        fields: [{ path: "(value)", before: true, after: false }],
      },
    ]);
  });

  it("finds no field changes between equal values", () => {
    expect(fieldChanges({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });
});
