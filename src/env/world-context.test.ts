import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Task } from "../core/task.js";
import { defineDomain } from "./domain.js";
import { sessionSlot } from "./session.js";
import { defineTool } from "./tool.js";
import { ToolError, World } from "./world.js";

// The per-world parts of the env API: the context tools read (task, configuration services, session),
// per-world tool lists, unlisted tools, a database shared by both sides, asynchronous read tools and
// failures that keep what the tool changed.

const CounterDbSchema = z.object({ counts: z.map(z.string(), z.int()) });
type CounterDb = z.infer<typeof CounterDbSchema>;

const opened = sessionSlot<readonly string[]>("test.opened", []);

const open = defineTool({
  name: "open",
  description: "Open a counter for this conversation (session state only).",
  kind: "generic",
  mutatesState: true,
  parameters: z.object({ name: z.string() }),
  run(_db: CounterDb, { name }, context) {
    context.session.set(opened, [...context.session.get(opened), name]);
    return `opened ${name}`;
  },
});

const bump = defineTool({
  name: "bump",
  description: "Add one to an opened counter; fails after writing when asked to.",
  kind: "write",
  parameters: z.object({ name: z.string(), failAfter: z.boolean().default(false) }),
  run(db: CounterDb, { name, failAfter }, context) {
    if (!context.session.get(opened).includes(name)) return `counter ${name} is not open`;
    db.counts.set(name, (db.counts.get(name) ?? 0) + 1);
    if (failAfter) throw new ToolError("failed after writing", "ValueError", { keepChanges: true });
    return `bumped ${name}`;
  },
});

const whoAmI = defineTool({
  name: "who_am_i",
  description: "The task and configuration of the world.",
  kind: "read",
  parameters: z.object({}),
  run(_db: CounterDb, _args, context) {
    return `${context.task?.id ?? "-"} ${context.config ?? "-"} ${String(context.services)}`;
  },
});

const slowRead = defineTool({
  name: "slow_read",
  description: "Answers asynchronously, as a search behind an API does.",
  kind: "read",
  parameters: z.object({}),
  run: async (db: CounterDb) => `counts: ${db.counts.size}`,
});

const hidden = defineTool({
  name: "hidden",
  description: "Callable by name, never listed.",
  kind: "read",
  parameters: z.object({}),
  run: () => "found me",
});

const userPeek = defineTool({
  name: "peek",
  description: "The user's view of the same database.",
  kind: "read",
  parameters: z.object({}),
  run: (db: CounterDb) => [...db.counts.keys()].join(","),
});

const counters = defineDomain<CounterDb, CounterDb>({
  name: "counters",
  description: "Counters for env tests.",
  agent: { db: CounterDbSchema, tools: [open, bump, whoAmI, slowRead], unlisted: [hidden] },
  user: { db: CounterDbSchema, tools: [userPeek] },
  sharedDb: true,
  toolsFor: (side, context) =>
    side === "agent" && context.config === "small"
      ? [open, bump]
      : side === "agent"
        ? [open, bump, whoAmI, slowRead]
        : [userPeek],
  data: { folder: "counters", db: "db.json", tasks: "tasks.json", policy: "policy.md" },
});

const task = { id: "t1" } as Task;
const newWorld = (options: { config?: string } = {}) =>
  new World(
    counters,
    { agent: { counts: new Map([["a", 0]]) }, user: undefined },
    { task, services: "svc", ...options },
  );
const call = (world: World, name: string, args: Record<string, unknown> = {}) =>
  world.callTool({ name, arguments: args, requestor: "assistant" });

describe("the world's context", () => {
  it("tools read the task, the configuration and its services; forks keep them", () => {
    const world = newWorld({ config: "full" });
    expect(call(world, "who_am_i").content).toBe("t1 full svc");
    expect(call(world.fork(), "who_am_i").content).toBe("t1 full svc");
  });

  it("session state: kept across calls, copied by fork, never in the DB hash", () => {
    const world = newWorld();
    const before = world.hash();
    expect(call(world, "bump", { name: "a" }).content).toBe("counter a is not open");
    call(world, "open", { name: "a" });
    expect(world.hash()).toEqual(before);
    const fork = world.fork();
    expect(call(fork, "bump", { name: "a" }).content).toBe("bumped a");
    expect(call(newWorld(), "bump", { name: "a" }).content).toBe("counter a is not open");
  });

  it("a failure that keeps its changes: error, yet the write stays (Python does not roll back)", () => {
    const world = newWorld();
    call(world, "open", { name: "a" });
    const result = call(world, "bump", { name: "a", failAfter: true });
    expect(result).toMatchObject({ content: "Error: failed after writing", error: true });
    expect(world.agentDb.counts.get("a")).toBe(1);
  });

  it("per-world tool lists; every toolkit tool and unlisted tools stay callable by name", () => {
    const small = newWorld({ config: "small" });
    expect(small.offeredTools("agent").map((t) => t.name)).toEqual(["open", "bump"]);
    expect(call(small, "who_am_i").content).toBe("t1 small svc");
    expect(call(small, "hidden").content).toBe("found me");
    expect(small.hasTool("hidden")).toBe(true);
    expect(small.toolMutatesState("hidden")).toBe(false);
  });

  it("a shared database: the user's tools see the agent's writes; both hashes are the agent's", () => {
    const world = newWorld();
    call(world, "open", { name: "b" });
    call(world, "bump", { name: "b" });
    expect(world.callTool({ name: "peek", arguments: {}, requestor: "user" }).content).toBe("a,b");
    const hash = world.hash();
    expect(hash.user).toBe(hash.agent);
    expect(world.userIsAgent).toBe(true);
  });

  it("asynchronous read tools answer through allowAsync; a synchronous caller gets a PasskError", async () => {
    const world = newWorld();
    const answer = world.callTool(
      { name: "slow_read", arguments: {}, requestor: "assistant" },
      { allowAsync: true },
    );
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toMatchObject({ content: "counts: 1", error: false });
    expect(() => call(world, "slow_read")).toThrow(/answers asynchronously/);
    // Synchronous tools answer at once, with or without allowAsync.
    expect(
      world.callTool(
        { name: "open", arguments: { name: "x" }, requestor: "assistant" },
        { allowAsync: true },
      ),
    ).not.toBeInstanceOf(Promise);
  });
});
