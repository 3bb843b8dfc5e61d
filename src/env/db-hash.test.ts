import { createHash } from "node:crypto";
import { freeze } from "immer";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { canonicalDbText, dbHash } from "./db-hash.js";
import { pyShapeOf } from "../python/py-shape.js";
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

  it("resumes from the first database's text up to the first change, wherever the change is", () => {
    const bigShape = pyShapeOf(
      z.object({ users: pyDict(z.object({ name: z.string(), balance: z.number() })) }),
    );
    const users = Array.from(
      { length: 3000 },
      (_, i) => [`u${String(i).padStart(4, "0")}`, { name: `User ${i}`, balance: i / 4 }] as const,
    );
    const big = (edit: (entries: Array<readonly [string, { name: string; balance: number }]>) => void) => {
      const entries = [...users];
      edit(entries);
      return freeze({ users: new Map(entries) }, true);
    };
    const oracle = (value: object) =>
      createHash("sha256").update(canonicalDbText(value, bigShape)).digest("hex");
    const pristine = big(() => {});
    expect(dbHash(pristine, bigShape)).toBe(oracle(pristine));
    const variants = [
      big((e) => (e[0] = ["u0000", { name: "First", balance: 1 }])),
      big((e) => (e[1500] = ["u1500", { name: "Middle", balance: 2.5 }])),
      big((e) => (e[2999] = ["u2999", { name: "Last", balance: 3 }])),
      big((e) => e.push(["u9999", { name: "New", balance: 0 }])),
      big((e) => e.splice(2000, 1)),
      big(() => {}),
    ];
    for (const variant of variants) expect(dbHash(variant, bigShape)).toBe(oracle(variant));
  });

  it("hashes an unfrozen database afresh every time", () => {
    const open = { version: 1, users: new Map([["u1", { name: "Al", balance: 1 }]]) };
    const before = dbHash(open, shape);
    open.version = 2;
    expect(dbHash(open, shape)).not.toBe(before);
    expect(dbHash(open, shape)).toBe(sha256(open));
  });
});
