import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineDomain } from "./domain.js";
import { defineTool } from "./tool.js";
import { World } from "./world.js";

const ShelfDbSchema = z.object({
  books: z.map(z.string(), z.object({ title: z.string(), loans: z.number() })),
});
type ShelfDb = z.infer<typeof ShelfDbSchema>;

const getBook = defineTool({
  name: "get_book",
  description: "Look a book up.",
  kind: "read",
  parameters: z.object({ id: z.string() }),
  run(db: ShelfDb, { id }) {
    const book = db.books.get(id);
    if (!book) throw new Error(`Book ${id} not found`);
    return book;
  },
});

/** A domain bug: declared read-only, yet it writes. */
const sneakyRead = defineTool({
  name: "sneaky_read",
  description: "Reads, and writes when it should not.",
  kind: "read",
  parameters: z.object({ id: z.string() }),
  run(db: ShelfDb, { id }) {
    db.books.get(id)!.loans += 1;
    return "ok";
  },
});

const lend = defineTool({
  name: "lend",
  description: "Lend a book.",
  kind: "write",
  parameters: z.object({ id: z.string() }),
  run(db: ShelfDb, { id }) {
    const book = db.books.get(id);
    if (!book) throw new Error(`Book ${id} not found`);
    book.loans += 1;
    return book;
  },
});

const shelf = defineDomain<ShelfDb>({
  name: "shelf",
  description: "A bookshelf for world tests.",
  agent: { db: ShelfDbSchema, tools: [getBook, sneakyRead, lend] },
  data: { folder: "shelf", db: "db.json", tasks: "tasks.json", policy: "policy.md" },
});

function newShelf(): World<ShelfDb> {
  return new World(shelf, {
    agent: {
      books: new Map([
        ["b1", { title: "Dune", loans: 0 }],
        ["b2", { title: "Emma", loans: 3 }],
      ]),
    },
    user: undefined,
  });
}

describe("World.callTool", () => {
  // Without a `returns` schema a result prints as τ² prints a plain dict: scalars quoted.
  it("runs a read tool on the state itself: same output, nothing copied, nothing changed", () => {
    const world = newShelf();
    const before = world.state;
    const result = world.callTool({ name: "get_book", arguments: { id: "b2" }, requestor: "assistant" });
    expect(result).toMatchObject({ error: false, content: '{"title": "Emma", "loans": "3"}' });
    expect(world.state).toBe(before);
  });

  it("turns a write from a read tool into an error and keeps the world as it was", () => {
    const world = newShelf();
    const before = world.state;
    const result = world.callTool({ name: "sneaky_read", arguments: { id: "b1" }, requestor: "assistant" });
    expect(result.error).toBe(true);
    expect(result.content).toMatch(/^Error: /);
    expect(world.state).toBe(before);
    expect(world.agentDb.books.get("b1")!.loans).toBe(0);
  });

  it("applies a write tool copy-on-write: the forked world and the old state keep their values", () => {
    const world = newShelf();
    const fork = world.fork();
    const before = world.state;
    const result = world.callTool({ name: "lend", arguments: { id: "b1" }, requestor: "assistant" });
    expect(result).toMatchObject({ error: false, content: '{"title": "Dune", "loans": "1"}' });
    expect(world.agentDb.books.get("b1")!.loans).toBe(1);
    expect(before.agent.books.get("b1")!.loans).toBe(0);
    expect(fork.agentDb.books.get("b1")!.loans).toBe(0);
    // Untouched records stay shared between the worlds.
    expect(world.agentDb.books.get("b2")).toBe(fork.agentDb.books.get("b2"));
  });

  it("keeps a failed write tool's partial changes out of the world", () => {
    const world = newShelf();
    const before = world.state;
    const result = world.callTool({ name: "lend", arguments: { id: "nope" }, requestor: "assistant" });
    expect(result).toMatchObject({ error: true, content: "Error: Book nope not found" });
    expect(world.state).toBe(before);
  });
});
