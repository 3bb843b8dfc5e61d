import { createDraft, enableMapSet, finishDraft, freeze, isDraft, current } from "immer";
import { PasskError } from "../core/errors.js";
import type { ToolRequestor } from "../core/message.js";
import type { EnvAssertion, EnvFunctionCall } from "../core/task.js";
import { dbHash } from "./db-hash.js";
import type { Domain, WorldState } from "./domain.js";
import { copyPyFloatMarks } from "../python/py-float.js";
import { PyException } from "../python/py-exception.js";
import { pyShapeOf, ANY_SHAPE, type PyShape } from "../python/py-shape.js";
import { sameCanonical, toPyJson } from "../python/py-json.js";
import type { Tool, Toolkit } from "./tool.js";
import { validateToolArguments, lenientArgumentError } from "./tool-arguments.js";

enableMapSet();

/**
 * How tool arguments from a model are checked.
 * - `strict` (default): against the tool's schema before it runs; an invalid call is an error naming
 *   the tool, the argument and the expected type, and never changes the world.
 * - `lenient`: as τ²-bench does (only missing/unexpected argument names are rejected, types are not
 *   checked), so re-scoring trajectories recorded with the reference reproduces their grades.
 */
export type ArgumentValidation = "strict" | "lenient";

export interface WorldOptions {
  validation?: ArgumentValidation;
  /** Solo mode: the agent works alone and may call the user's tools; the user may not call any. */
  solo?: boolean;
}

export interface ToolCallRequest {
  name: string;
  arguments: Record<string, unknown>;
  requestor: ToolRequestor;
}

/** What a tool call gives back: the tool message text as τ² writes it, and whether it failed. */
export interface ToolCallResult {
  content: string;
  error: boolean;
  /** The tool that ran, when one was found. */
  tool?: Tool<unknown>;
  /** For errors: the Python exception type the reference would have raised (`ValueError`, `KeyError`…). */
  errorType?: string;
}

export interface DbHashes {
  agent: string;
  user: string | null;
}

/**
 * An error a tool throws on purpose. `pyType` is the exception class the reference raises in the same
 * situation (τ² records it in some diagnostics); plain `Error`s count as `ValueError`. A `PyException`
 * raised by the Python-exact helpers (`src/python/`) counts the same way.
 */
export class ToolError extends PyException {
  constructor(message: string, pyType: string = "ValueError") {
    super(message, pyType);
    this.name = "ToolError";
  }
}

/**
 * One live world: a domain's databases as one conversation sees them. The state is immutable and
 * structurally shared: a new world costs a pointer, and a write copies only the path it touches
 * (immer drafts), so thousands of worlds can share one multi-megabyte base DB.
 * Everything here is synchronous and deterministic.
 */
export class World<ADB = unknown, UDB = unknown> {
  readonly domain: Domain<ADB, UDB>;
  readonly validation: ArgumentValidation;
  readonly solo: boolean;
  #state: WorldState<ADB, UDB>;
  /**
   * τ² quirk kept for hash fidelity: after initialization data is merged into the agent DB, the
   * reference's user toolkit points at the agent DB object (so both hashes are the agent DB's).
   */
  #userIsAgent = false;

  constructor(domain: Domain<ADB, UDB>, state: WorldState<ADB, UDB>, options: WorldOptions = {}) {
    this.domain = domain;
    this.validation = options.validation ?? "strict";
    this.solo = options.solo ?? false;
    this.#state = frozenState(state);
  }

  get state(): WorldState<ADB, UDB> {
    return this.#state;
  }

  get agentDb(): ADB {
    return this.#state.agent;
  }

  get userDb(): UDB | undefined {
    return this.#userIsAgent ? (this.#state.agent as unknown as UDB) : this.#state.user;
  }

  /** Whether the user DB is the agent DB (the reference's aliasing after initialization data). */
  get userIsAgent(): boolean {
    return this.#userIsAgent;
  }

  /** A new world starting from this one's current state (O(1)). */
  fork(options: WorldOptions = {}): World<ADB, UDB> {
    const world = new World(this.domain, this.#state, {
      validation: options.validation ?? this.validation,
      solo: options.solo ?? this.solo,
    });
    world.#userIsAgent = this.#userIsAgent;
    return world;
  }

  /** τ²'s `get_db_hash()` / `get_user_db_hash()`. */
  hash(): DbHashes {
    const agent = dbHash(this.#state.agent as object, shapeOfToolkit(this.domain.agent));
    let user: string | null = null;
    if (this.#userIsAgent) user = agent;
    else if (this.domain.user && this.#state.user !== undefined)
      user = dbHash(this.#state.user as object, shapeOfToolkit(this.domain.user));
    return { agent, user };
  }

  /**
   * Whether this world's databases equal another's, as equal τ² DB hashes would say — computed without
   * hashing (shared records are equal by identity), which makes evaluation cheap.
   */
  sameDbsAs(other: World<ADB, UDB>): { agent: boolean; user: boolean } {
    const agent = sameCanonical(this.agentDb, other.agentDb, shapeOfToolkit(this.domain.agent));
    let user: boolean;
    if (!this.domain.user) user = true;
    else if (this.#userIsAgent !== other.#userIsAgent) user = this.hash().user === other.hash().user;
    else if (this.#userIsAgent) user = agent;
    else user = sameCanonical(this.userDb, other.userDb, shapeOfToolkit(this.domain.user));
    return { agent, user };
  }

  /**
   * Run a tool call as the orchestrator does (τ² `get_response`): find the tool in the requestor's
   * toolkit, check the arguments, run it, then (unless `sync: false`) reconcile the two databases.
   * Any failure becomes `{ error: true, content: "Error: …" }` and leaves the world unchanged.
   */
  callTool(request: ToolCallRequest, options: { sync?: boolean } = {}): ToolCallResult {
    const found = this.#findTool(request);
    if ("error" in found) return { content: errorContent(found.error), error: true, errorType: "ValueError" };
    const { tool, side } = found;
    const toolkit = (side === "agent" ? this.domain.agent : this.domain.user) as Toolkit<unknown>;
    let args: Record<string, unknown>;
    if (this.validation === "strict") {
      const checked = validateToolArguments(tool, request.arguments);
      if (!checked.ok)
        return { content: errorContent(checked.message), error: true, tool, errorType: "TypeError" };
      args = checked.args;
    } else {
      const problem = lenientArgumentError(tool, request.arguments, toolkit.className);
      if (problem) return { content: errorContent(problem), error: true, tool, errorType: "TypeError" };
      args = structuredClone(request.arguments);
    }
    // Numbers written as floats (`2.0`) stay floats for tools that print their arguments.
    copyPyFloatMarks(request.arguments, args);
    try {
      // A read-only tool runs on the frozen state itself: a draft would copy every collection it looks
      // into (immer copies a Map or object on the first read of a record through it).
      if (tool.kind === "read" && !tool.mutatesState) {
        const db = side === "agent" ? this.agentDb : this.userDb;
        const content = toolOutputText(tool.run(db, args), tool.returnShape);
        if (options.sync !== false) this.sync();
        return { content, error: false, tool };
      }
      const content = this.#mutate((draft) => {
        const result = tool.run(side === "agent" ? draft.agent : draft.user, args);
        if (options.sync !== false) this.domain.sync?.(draft);
        return toolOutputText(result, tool.returnShape);
      });
      return { content, error: false, tool };
    } catch (error) {
      return {
        content: errorContent(errorText(error)),
        error: true,
        tool,
        errorType: error instanceof PyException ? error.pyType : "ValueError",
      };
    }
  }

  /** Reconcile agent and user databases (τ² `sync_tools`); a no-op for single-control domains. */
  sync(): void {
    const sync = this.domain.sync;
    if (!sync) return;
    this.#mutate((draft) => sync(draft));
  }

  /**
   * Run a function of the agent or user toolkit by name (initialization actions, assertions), then
   * sync. Unlike tool calls, errors propagate: a task whose initialization fails is a broken task.
   */
  runEnvFunction(call: Pick<EnvFunctionCall, "env_type" | "func_name" | "arguments">): {
    result: unknown;
    content: string;
  } {
    const toolkit = (call.env_type === "user" ? this.domain.user : this.domain.agent) as
      Toolkit<unknown> | undefined;
    if (!toolkit) {
      throw new PasskError(
        "unknown_env_function",
        `domain ${this.domain.name} has no user toolkit, so ${call.env_type} function "${call.func_name}" cannot run`,
      );
    }
    const fn = toolkit.functions?.[call.func_name];
    const tool = toolkit.tools.find((t) => t.name === call.func_name);
    if (!fn && !tool) {
      const known = [...Object.keys(toolkit.functions ?? {}), ...toolkit.tools.map((t) => t.name)];
      throw new PasskError(
        "unknown_env_function",
        `${call.env_type} function "${call.func_name}" does not exist in domain ${this.domain.name} (known: ${known.join(", ")})`,
      );
    }
    let result: unknown;
    const content = this.#mutate((draft) => {
      const db = call.env_type === "user" ? draft.user : draft.agent;
      const args = structuredClone(call.arguments);
      copyPyFloatMarks(call.arguments, args);
      result = fn ? (typeof fn === "function" ? fn(db, args) : fn.run(db, args)) : tool!.run(db, args);
      this.domain.sync?.(draft);
      const shape = fn
        ? typeof fn === "function"
          ? ANY_SHAPE
          : fn.returns
            ? pyShapeOf(fn.returns)
            : ANY_SHAPE
        : tool!.returnShape;
      const text = toolOutputText(result, shape);
      result = isDraft(result) ? current(result) : result;
      return text;
    });
    return { result, content };
  }

  /** Evaluate an env assertion on this world (τ² `run_env_assertion`): true when it holds. */
  checkAssertion(
    assertion: Pick<EnvAssertion, "env_type" | "func_name" | "arguments" | "assert_value">,
  ): boolean {
    const { result } = this.runEnvFunction(assertion);
    if (typeof result !== "boolean") {
      throw new PasskError(
        "assertion_not_boolean",
        `env assertion ${assertion.func_name} returned ${typeof result} instead of a boolean`,
      );
    }
    return result === assertion.assert_value;
  }

  /**
   * Replace the databases wholesale (initialization data); the new state must already be validated.
   * `userIsAgent` reproduces the reference's aliasing of the user DB to the agent DB.
   */
  replaceState(state: WorldState<ADB, UDB>, options: { userIsAgent?: boolean } = {}): void {
    this.#state = frozenState(state);
    this.#userIsAgent = options.userIsAgent ?? this.#userIsAgent;
  }

  /** Whether a tool of this name exists in either toolkit (τ² `_has_tool`). */
  hasTool(name: string): boolean {
    return (
      this.domain.agent.tools.some((t) => t.name === name) ||
      (this.domain.user?.tools.some((t) => t.name === name) ?? false)
    );
  }

  /** Whether replay should re-execute this tool (unknown tools are assumed to mutate, as in τ²). */
  toolMutatesState(name: string): boolean {
    const tool =
      this.domain.agent.tools.find((t) => t.name === name) ??
      this.domain.user?.tools.find((t) => t.name === name);
    return tool ? tool.mutatesState : true;
  }

  #findTool(request: ToolCallRequest): { tool: Tool<unknown>; side: "agent" | "user" } | { error: string } {
    const agentTools = this.domain.agent.tools as readonly Tool<unknown>[];
    const userTools = this.domain.user?.tools as readonly Tool<unknown>[] | undefined;
    if (request.requestor === "user") {
      if (this.solo) return { error: "User tool calls are not allowed in solo mode" };
      if (!userTools) return { error: "User tools not available" };
      const tool = userTools.find((t) => t.name === request.name);
      return tool ? { tool, side: "user" } : { error: `Tool '${request.name}' not found.` };
    }
    if (this.solo && userTools) {
      const tool = userTools.find((t) => t.name === request.name);
      if (tool) return { tool, side: "user" };
    }
    const tool = agentTools.find((t) => t.name === request.name);
    return tool ? { tool, side: "agent" } : { error: `Tool '${request.name}' not found.` };
  }

  /** Apply `change` to a copy-on-write draft; keep the result only if it returns without throwing. */
  #mutate<T>(change: (draft: { agent: ADB; user: UDB | undefined }) => T): T {
    const draft = createDraft({ agent: this.#state.agent, user: this.#state.user }) as {
      agent: ADB;
      user: UDB | undefined;
    };
    const aliased = this.#userIsAgent;
    const view = aliased
      ? {
          get agent() {
            return draft.agent;
          },
          get user() {
            return draft.agent as unknown as UDB;
          },
        }
      : draft;
    const value = change(view);
    const next = finishDraft(draft) as { agent: ADB; user: UDB | undefined };
    if (next.agent !== this.#state.agent || next.user !== this.#state.user) this.#state = next;
    return value;
  }
}

/** A state deeply frozen: worlds share it, and writes go through drafts only. */
function frozenState<ADB, UDB>(state: WorldState<ADB, UDB>): WorldState<ADB, UDB> {
  return {
    agent: freeze(state.agent, true),
    user: state.user === undefined ? undefined : freeze(state.user, true),
  };
}

const toolkitShapes = new WeakMap<object, PyShape>();
function shapeOfToolkit(toolkit: Toolkit<unknown>): PyShape {
  let shape = toolkitShapes.get(toolkit);
  if (!shape) {
    shape = pyShapeOf(toolkit.db);
    toolkitShapes.set(toolkit, shape);
  }
  return shape;
}

/** τ² `to_json_str`: strings as they are, everything else as Python JSON (tool mode). */
export function toolOutputText(result: unknown, shape: PyShape): string {
  if (typeof result === "string") return result;
  return toPyJson(result, shape, { mode: "tool" });
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Longest error text a tool call answers with; the rest is cut, and the cut said. */
export const MAX_TOOL_ERROR_CHARS = 8192;

/**
 * `Error: <message>` as τ² writes it — cut past {@link MAX_TOOL_ERROR_CHARS}: an error that echoes a
 * huge argument (a 10 MB "reservation id") would otherwise go back to the model, into the trajectory and
 * the store whole. Errors of real calls are far shorter, so their text is the reference's exactly.
 */
function errorContent(message: string): string {
  const text = `Error: ${message}`;
  if (text.length <= MAX_TOOL_ERROR_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_ERROR_CHARS)}… (${text.length - MAX_TOOL_ERROR_CHARS} more characters cut)`;
}
