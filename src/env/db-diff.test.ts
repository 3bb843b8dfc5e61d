import { describe, expect, it } from "vitest";
import { compareDbs, toPlainJson } from "./db-diff.js";

const predicted = {
  users: new Map([
    ["u1", { name: "Ann", tasks: ["t1"] }],
    ["u2", { name: "Bob", tasks: [] }],
  ]),
  tasks: new Map([["t1", { title: "a" }]]),
  device: { battery: 80, apn: { name: "x" } },
};
const gold = {
  users: new Map([["u1", { name: "Ann", tasks: ["t1", "t2"] }]]),
  tasks: new Map([
    ["t1", { title: "a" }],
    ["t2", { title: "b" }],
  ]),
  device: { battery: 80, apn: { name: "y" } },
};

// Hand-derived: u1 lists one task fewer, u2 exists only in the prediction, t2 only in gold; `device`
// is one record (mostly scalars), not a collection.
const EXPECTED = [
  {
    collection: "users",
    id: "u1",
    kind: "changed",
    fields: [{ path: "tasks", predicted: ["t1"], gold: ["t1", "t2"] }],
  },
  { collection: "users", id: "u2", kind: "only_predicted", fields: [] },
  { collection: "tasks", id: "t2", kind: "only_gold", fields: [] },
  {
    collection: "device",
    id: "",
    kind: "changed",
    fields: [{ path: "apn.name", predicted: "x", gold: "y" }],
  },
];

describe("compareDbs", () => {
  it("keys records by id for collections held as Maps", () => {
    expect(compareDbs(predicted, gold)).toEqual(EXPECTED);
  });

  it("keys them the same way for collections held as plain objects (after toPlainJson)", () => {
    expect(compareDbs(toPlainJson(predicted), toPlainJson(gold))).toEqual(EXPECTED);
  });

  it("keys lists of records by their *_id field", () => {
    const p = { lines: [{ line_id: "L1", status: "active" }] };
    const g = { lines: [{ line_id: "L1", status: "suspended" }] };
    expect(compareDbs(p, g)).toEqual([
      {
        collection: "lines",
        id: "L1",
        kind: "changed",
        fields: [{ path: "status", predicted: "active", gold: "suspended" }],
      },
    ]);
  });
});
