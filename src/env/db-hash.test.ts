import { createHash } from "node:crypto";
import { freeze } from "immer";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { canonicalDbText, dbHash } from "./db-hash.js";
import { pyShapeOf } from "./py-shape.js";
import { pyDict } from "./schema-helpers.js";

const shape = pyShapeOf(
  z.object({ users: pyDict(z.object({ name: z.string(), balance: z.number() })), version: z.int() }),
);
const db = (balance: number) =>
  freeze(
    {
      version: 1,
      users: new Map([
        ["u2", { name: "Bo", balance }],
        ["u1", { name: "Al", balance: 1 }],
      ]),
    },
    true,
  );
/** The oracle: sha256 of the whole canonical text, computed directly. */
const sha256 = (value: object) => createHash("sha256").update(canonicalDbText(value, shape)).digest("hex");

describe("dbHash", () => {
  it("is sha256 of the canonical text, also for a copy with the same content as the last database hashed", () => {
    const first = db(2.5);
    expect(dbHash(first, shape)).toBe(sha256(first));
    const copy = db(2.5);
    expect(copy).not.toBe(first);
    expect(dbHash(copy, shape)).toBe(sha256(first));
    const changed = db(3);
    expect(dbHash(changed, shape)).toBe(sha256(changed));
    expect(dbHash(changed, shape)).not.toBe(dbHash(first, shape));
  });

  it("hashes an unfrozen database afresh every time", () => {
    const open = { version: 1, users: new Map([["u1", { name: "Al", balance: 1 }]]) };
    const before = dbHash(open, shape);
    open.version = 2;
    expect(dbHash(open, shape)).not.toBe(before);
    expect(dbHash(open, shape)).toBe(sha256(open));
  });
});
