import { describe, expect, it } from "vitest";
import { diffDb } from "../env/db-diff.js";
import { currentRecords, fieldChanges, recordChanges, recordsNamedBy } from "./record-changes.js";

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

describe("the records a call names, and the records a change leaves", () => {
  const db = {
    reservations: new Map([
      ["ABC123", { reservation_id: "ABC123", status: null, cabin: "economy" }],
      ["XYZ999", { reservation_id: "XYZ999", status: null, cabin: "business" }],
    ]),
    users: { ann_1: { name: "Ann", reservations: ["ABC123"] } },
    device: { airplane_mode: true, battery_level: 80 },
  };

  it("finds each string argument that is a record's id, in every collection, as plain JSON", () => {
    expect(
      recordsNamedBy(db, { reservation_id: "ABC123", user_id: "ann_1", cabin: "economy", n: 2 }),
    ).toEqual([
      {
        collection: "reservations",
        id: "ABC123",
        record: { reservation_id: "ABC123", status: null, cabin: "economy" },
      },
      { collection: "users", id: "ann_1", record: { name: "Ann", reservations: ["ABC123"] } },
    ]);
    // Not an id, a plain record's key, or no database: nothing.
    expect(recordsNamedBy(db, { reservation_id: "NOPE00", key: "airplane_mode" })).toEqual([]);
    expect(recordsNamedBy(undefined, { reservation_id: "ABC123" })).toEqual([]);
  });

  it("gives each changed or added record whole, and nothing for plain fields", () => {
    const after = {
      ...db,
      reservations: new Map([
        ["ABC123", { reservation_id: "ABC123", status: "cancelled", cabin: "economy" }],
        ["XYZ999", { reservation_id: "XYZ999", status: null, cabin: "business" }],
        ["NEW111", { reservation_id: "NEW111", status: null, cabin: "economy" }],
      ]),
      device: { airplane_mode: false, battery_level: 80 },
    };
    expect(currentRecords(diffDb(db, after))).toEqual([
      {
        collection: "reservations",
        id: "ABC123",
        record: { reservation_id: "ABC123", status: "cancelled", cabin: "economy" },
      },
      {
        collection: "reservations",
        id: "NEW111",
        record: { reservation_id: "NEW111", status: null, cabin: "economy" },
      },
    ]);
  });
});
