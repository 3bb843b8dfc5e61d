import fc from "fast-check";
import { createDraft, current, enableMapSet, finishDraft, freeze } from "immer";
import { describe, expect, it } from "vitest";
import { snapshotOf } from "./draft-snapshot.js";

enableMapSet();

interface Item {
  id: string;
  n: number;
  tags: string[];
  nested: { x: number };
}
interface Db {
  items: Item[];
  meta: Record<string, unknown>;
}

function baseDb(): Db {
  return freeze(
    {
      items: Array.from({ length: 4 }, (_, i) => ({ id: `i${i}`, n: i, tags: [`t${i}`], nested: { x: i } })),
      meta: { a: 1, b: { c: [1, 2] } },
    },
    true,
  );
}

/** Edits a tool could make to a draft, including moving drafts into new objects. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant("set"), i: fc.nat(3), n: fc.integer() }),
  fc.record({ kind: fc.constant("tag"), i: fc.nat(3), tag: fc.string() }),
  fc.record({ kind: fc.constant("nested"), i: fc.nat(3), n: fc.integer() }),
  fc.record({ kind: fc.constant("push"), n: fc.integer() }),
  fc.record({ kind: fc.constant("remove"), i: fc.nat(3) }),
  fc.record({ kind: fc.constant("delete"), key: fc.constantFrom("a", "b") }),
  fc.record({
    kind: fc.constant("reference"),
    i: fc.nat(3),
    // Assigning to `__proto__` asks for a new prototype, which immer refuses on a draft: not an edit.
    key: fc.string({ minLength: 1 }).filter((key) => key !== "__proto__"),
  }),
  fc.record({ kind: fc.constant("read"), i: fc.nat(3) }),
);
type Edit = typeof edit extends fc.Arbitrary<infer E> ? E : never;

function apply(draft: Db, change: Edit): void {
  const item = draft.items[(change as { i?: number }).i ?? 0];
  switch (change.kind) {
    case "set":
      if (item) item.n = change.n;
      break;
    case "tag":
      item?.tags.push(change.tag);
      break;
    case "nested":
      if (item) item.nested = { x: change.n };
      break;
    case "push":
      draft.items.push({ id: `new${change.n}`, n: change.n, tags: [], nested: { x: 0 } });
      break;
    case "remove":
      draft.items.splice(change.i, 1);
      break;
    case "delete":
      delete draft.meta[change.key];
      break;
    case "reference":
      // A new, unfrozen object holding a draft: `current` copies into it.
      if (item) draft.meta[change.key] = { holder: item, list: [item?.nested] };
      break;
    case "read":
      void item?.tags.length;
      break;
  }
}

describe("snapshotOf", () => {
  it("equals immer's current() after any edits, sharing the same unchanged parts", () => {
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 8 }), (edits) => {
        const base = baseDb();
        const draft = createDraft(base);
        for (const change of edits) apply(draft, change);
        const snapshot = snapshotOf(draft);
        const expected = current(draft);
        expect(snapshot).toEqual(expected);
        expect(snapshot.items === base.items).toBe(expected.items === base.items);
        expect(snapshot.meta === base.meta).toBe(expected.meta === base.meta);
        for (const original of base.items) {
          expect(snapshot.items.includes(original)).toBe(expected.items.includes(original));
        }
        finishDraft(draft);
      }),
    );
  });

  it("returns the base itself for an unchanged draft and a plain value as it is", () => {
    const base = baseDb();
    const draft = createDraft(base);
    void draft.items[0]!.tags[0];
    expect(snapshotOf(draft)).toBe(base);
    expect(snapshotOf(base)).toBe(base);
  });

  it("reads immer's own copies (the draft state still has the fields it reads)", () => {
    const draft = createDraft(baseDb());
    draft.items[1]!.n = 99;
    const state = (draft as unknown as Record<symbol, Record<string, unknown>>)[Symbol.for("immer-state")]!;
    expect(state).toMatchObject({ type_: 0, modified_: true });
    expect("base_" in state && "copy_" in state).toBe(true);
    expect(snapshotOf(draft).items[1]!.n).toBe(99);
  });

  it("leaves Maps to current()", () => {
    const base = freeze({ dict: new Map([["k", { v: 1 }]]) }, true);
    const draft = createDraft(base);
    draft.dict.get("k")!.v = 2;
    const snapshot = snapshotOf(draft);
    expect(snapshot).toEqual(current(draft));
    expect(snapshot.dict.get("k")).toEqual({ v: 2 });
  });
});
