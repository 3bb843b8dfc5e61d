import type { z } from "zod";
import type { Task } from "../core/task.js";
import { pyShapeOf, ANY_SHAPE, type PyShape } from "../python/py-shape.js";
import type { DbChanges } from "./db-changes.js";
import type { Session } from "./session.js";

/**
 * What a tool does, as τ²-bench classifies it. `write` tools change the world; only tools that
 * mutate state are re-executed when the evaluator replays a trajectory.
 */
export type ToolKind = "read" | "write" | "think" | "generic";

/**
 * What a tool can read besides its database and arguments: the world it runs in. Every call gets it;
 * tools that need none of it ignore the third argument.
 */
export interface ToolContext {
  /** The task the world was built for; undefined outside any task (`passk call`). */
  readonly task: Task | undefined;
  /** The domain configuration the world runs under (banking_knowledge: its retrieval config). */
  readonly config: string | undefined;
  /**
   * What the domain built for that configuration (`DomainConfigs.services`: a knowledge base, search
   * backends); undefined for domains without configurations.
   */
  readonly services: unknown;
  /**
   * The world's session state: what a conversation has done that is not in the databases (banking_knowledge:
   * the tools the agent unlocked). Copied with the world, never part of a DB hash; a failed call changes
   * nothing.
   */
  readonly session: Session;
}

/** Parameters of a tool: a zod object whose JSON Schema is what the model sees. */
export type ToolParameters = z.ZodObject<z.ZodRawShape>;

export interface ToolSpec<DB, P extends ToolParameters> {
  /** The name the model calls. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  parameters: P;
  kind: ToolKind;
  /** Whether replay re-executes it. Defaults to `kind === "write"`. */
  mutatesState?: boolean;
  /**
   * Schema of the return value when it is a pydantic-like model (or a list of them) in the reference,
   * so that floats, datetimes and field order serialise exactly. Omit for strings and plain values.
   */
  returns?: z.ZodType;
  /**
   * The reference's Python class defining the tool, when it is not the toolkit's (`className`): only for
   * its lenient-mode error texts (`KBSearchMixin.KB_search() missing 1 required positional argument…`).
   */
  className?: string;
  /**
   * Runs the tool. `db` is a copy-on-write draft of this toolkit's database: mutate it freely; if the
   * tool throws, nothing it changed is kept and the caller gets `Error: <message>`. A `read` tool that
   * does not mutate state, called as a tool, gets the frozen database itself (cheaper); a write to it
   * throws. Called from a task's initialization actions or assertions, it gets a draft like the rest.
   * `context` is the world the call runs in (its task, configuration services and session).
   *
   * A `read` tool that does not mutate state may answer asynchronously (return a Promise: a search
   * backend behind an API); callers that can wait ask for it (`World.callTool(…, { allowAsync: true })`).
   */
  run: (db: DB, args: z.output<P>, context: ToolContext) => unknown;
}

/** A tool as passk holds it: a plain value. */
export interface Tool<DB = unknown> {
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolParameters;
  readonly kind: ToolKind;
  readonly mutatesState: boolean;
  readonly returnShape: PyShape;
  /** Parameter names in declaration order, and which of them must be given. */
  readonly parameterNames: readonly string[];
  readonly requiredParameters: readonly string[];
  /** The reference's class defining it, when not the toolkit's (lenient error texts). */
  readonly className?: string;
  // Method syntax keeps Tool<DB> assignable to Tool<unknown> (parameters are bivariant).
  run(db: DB, args: Record<string, unknown>, context: ToolContext): unknown;
}

/**
 * Define a tool for a domain.
 *
 * @example
 * const getUser = defineTool({
 *   name: "get_user", description: "Look up a user by id.", kind: "read",
 *   parameters: z.object({ user_id: z.string().describe("The user's id, such as 'user_1'.") }),
 *   run(db: ShopDb, { user_id }) {
 *     const user = db.users.get(user_id);
 *     if (!user) throw new Error(`User ${user_id} not found`);
 *     return user;
 *   },
 * });
 */
export function defineTool<DB, P extends ToolParameters>(spec: ToolSpec<DB, P>): Tool<DB> {
  const parameterNames = Object.keys(spec.parameters.shape);
  const requiredParameters = parameterNames.filter(
    (name) => !(spec.parameters.shape[name] as z.ZodType).safeParse(undefined).success,
  );
  return Object.freeze({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    kind: spec.kind,
    mutatesState: spec.mutatesState ?? spec.kind === "write",
    returnShape: spec.returns ? pyShapeOf(spec.returns) : ANY_SHAPE,
    parameterNames,
    requiredParameters,
    ...(spec.className !== undefined ? { className: spec.className } : {}),
    run: spec.run as unknown as (db: DB, args: Record<string, unknown>, context: ToolContext) => unknown,
  });
}

/** A non-tool function of a toolkit: initialization helpers and env assertions call these. */
export type EnvFunction<DB> =
  | { bivarianceHack(db: DB, args: Record<string, unknown>, context: ToolContext): unknown }["bivarianceHack"]
  | {
      run(db: DB, args: Record<string, unknown>, context: ToolContext): unknown;
      /** Schema of a model-like return value, as for tools (see `ToolSpec.returns`). */
      returns?: z.ZodType;
    };

/** The tools one side (agent or user) can use, over that side's database. */
export interface Toolkit<DB> {
  /** zod schema of the database (a model: `z.object`). */
  readonly db: z.ZodType<DB>;
  readonly tools: readonly Tool<DB>[];
  /**
   * Tools a caller may call by name that are never listed to a model (τ²'s `@is_discoverable_tool`
   * methods, which its `use_tool` accepts by name). Listed tools come first when names clash.
   */
  readonly unlisted?: readonly Tool<DB>[];
  /**
   * What changed between two states of this database, for gold-replay records and world-change events,
   * when the generic record-level diff does not fit its shape (banking_knowledge's `{data, notes}` tables).
   */
  diff?(before: DB, after: DB): DbChanges;
  /** Functions reachable from task initialization actions and env assertions, by name. */
  readonly functions?: Readonly<Record<string, EnvFunction<DB>>>;
  /**
   * The reference's Python class name (e.g. `AirlineTools`), used only to reproduce its error texts for
   * missing or unexpected arguments in lenient mode.
   */
  readonly className?: string;
}
