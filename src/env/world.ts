import { createDraft, enableMapSet, finishDraft, freeze, isDraft, current } from "immer";
import { ConfigError, PasskError } from "../core/errors.js";
import { InfrastructureError } from "../core/llm.js";
import type { ToolRequestor } from "../core/message.js";
import type { EnvAssertion, EnvFunctionCall, Task } from "../core/task.js";
import { dbHash } from "./db-hash.js";
import type { Domain, WorldContext, WorldState } from "./domain.js";
import { EMPTY_SESSION, SessionDraft, type SessionState } from "./session.js";
import { copyPyFloatMarks } from "../python/py-float.js";
import { PyException } from "../python/py-exception.js";
import { pyShapeOf, ANY_SHAPE, type PyShape } from "../python/py-shape.js";
import { sameCanonical, toPyJson } from "../python/py-json.js";
import type { Tool, ToolContext, Toolkit } from "./tool.js";
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
  /**
   * The task the world is built for (tools may read it: see `ToolContext`). The evaluator passes the
   * task it grades, so its worlds see what the conversation's world saw.
   */
  task?: Task | undefined;
  /** The domain configuration and what the domain built for it (set by `DomainData.newWorld`). */
  config?: string | undefined;
  services?: unknown;
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
  /**
   * The call fails but what the tool changed before stays (`keepChanges`): the reference's tools are
   * Python, which does not roll a database back when a tool raises halfway.
   */
  readonly keepsChanges: boolean;

  constructor(message: string, pyType: string = "ValueError", options: { keepChanges?: boolean } = {}) {
    super(message, pyType);
    this.name = "ToolError";
    this.keepsChanges = options.keepChanges ?? false;
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
  /** What the world is built for: task, configuration and its services (see `WorldContext`). */
  readonly context: WorldContext;
  #state: WorldState<ADB, UDB>;
  /**
   * τ² quirk kept for hash fidelity: after initialization data is merged into the agent DB, the
   * reference's user toolkit points at the agent DB object (so both hashes are the agent DB's). Domains
   * with one shared database (`sharedDb`) are like this from the start.
   */
  #userIsAgent = false;
  #tools: WorldTools;

  constructor(domain: Domain<ADB, UDB>, state: WorldState<ADB, UDB>, options: WorldOptions = {}) {
    this.domain = domain;
    this.validation = options.validation ?? "strict";
    this.solo = options.solo ?? false;
    this.context = Object.freeze({
      ...(options.task !== undefined ? { task: options.task } : {}),
      ...(options.config !== undefined ? { config: options.config } : {}),
      ...(options.services !== undefined ? { services: options.services } : {}),
    });
    this.#state = frozenState(state);
    this.#userIsAgent = domain.sharedDb === true;
    this.#tools = worldTools(domain as unknown as Domain<unknown, unknown>, this.context);
  }

  get state(): WorldState<ADB, UDB> {
    return this.#state;
  }

  /** The task the world was built for, if any. */
  get task(): Task | undefined {
    return this.context.task;
  }

  /** The domain configuration the world runs under, if the domain has configurations. */
  get config(): string | undefined {
    return this.context.config;
  }

  /** The session state (`ToolContext.session`): never part of a DB hash. */
  get session(): SessionState {
    return this.#state.session ?? EMPTY_SESSION;
  }

  /**
   * The tools one side is offered in this world, in the order its model sees them (`Domain.toolsFor`,
   * else the toolkit's tools); empty for a side without tools.
   */
  offeredTools(side: "agent" | "user"): readonly Tool<unknown>[] {
    return side === "agent" ? this.#tools.agentOffered : (this.#tools.userOffered ?? []);
  }

  /** The tool a call by this name runs, on either side (agent's first); undefined when none has it. */
  findTool(name: string): Tool<unknown> | undefined {
    return this.#tools.agent(name) ?? this.#tools.user?.(name);
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
  fork(options: Pick<WorldOptions, "validation" | "solo"> = {}): World<ADB, UDB> {
    const world = new World(this.domain, this.#state, {
      validation: options.validation ?? this.validation,
      solo: options.solo ?? this.solo,
      task: this.context.task,
      config: this.context.config,
      services: this.context.services,
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
   *
   * A read tool may answer asynchronously (a search behind an API): with `allowAsync` the result is then
   * a Promise (every other call still answers synchronously); without it such a tool is a PasskError —
   * evaluation and replay never run read tools.
   */
  callTool(request: ToolCallRequest, options?: { sync?: boolean }): ToolCallResult;
  callTool(
    request: ToolCallRequest,
    options: { sync?: boolean; allowAsync: true },
  ): ToolCallResult | Promise<ToolCallResult>;
  callTool(
    request: ToolCallRequest,
    options: { sync?: boolean; allowAsync?: boolean } = {},
  ): ToolCallResult | Promise<ToolCallResult> {
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
      const problem = lenientArgumentError(tool, request.arguments, tool.className ?? toolkit.className);
      if (problem) return { content: errorContent(problem), error: true, tool, errorType: "TypeError" };
      args = structuredClone(request.arguments);
    }
    // Numbers written as floats (`2.0`) stay floats for tools that print their arguments.
    copyPyFloatMarks(request.arguments, args);
    const session = new SessionDraft(this.session);
    const context = this.#toolContext(session);
    const failed = (error: unknown): ToolCallResult => {
      // Not the model's doing: a tool without its service (a misconfigured search, ConfigError) or whose
      // service failed past its retries (InfrastructureError) ends the conversation as the harness's fault.
      if (
        error instanceof AsyncToolError ||
        ConfigError.isInstance(error) ||
        InfrastructureError.isInstance(error)
      )
        throw error;
      return {
        content: errorContent(errorText(error)),
        error: true,
        tool,
        errorType: error instanceof PyException ? error.pyType : "ValueError",
      };
    };
    try {
      // A read-only tool runs on the frozen state itself: a draft would copy every collection it looks
      // into (immer copies a Map or object on the first read of a record through it).
      if (tool.kind === "read" && !tool.mutatesState) {
        const db = side === "agent" ? this.agentDb : this.userDb;
        const result = tool.run(db, args, context);
        const finish = (value: unknown): ToolCallResult => {
          const content = toolOutputText(value, tool.returnShape);
          this.#commitSession(session);
          if (options.sync !== false) this.sync();
          return { content, error: false, tool };
        };
        if (!isPromiseLike(result)) return finish(result);
        if (!options.allowAsync) throw new AsyncToolError(tool.name);
        return Promise.resolve(result).then(finish).catch(failed);
      }
      const outcome = this.#mutate((draft): { content: string } | { failure: ToolError } => {
        let result: unknown;
        try {
          result = tool.run(side === "agent" ? draft.agent : draft.user, args, context);
        } catch (error) {
          if (!(error instanceof ToolError && error.keepsChanges)) throw error;
          if (options.sync !== false) this.domain.sync?.(draft);
          return { failure: error };
        }
        if (isPromiseLike(result)) throw new AsyncToolError(tool.name, "write");
        if (options.sync !== false) this.domain.sync?.(draft);
        return { content: toolOutputText(result, tool.returnShape) };
      });
      this.#commitSession(session);
      if ("failure" in outcome) return failed(outcome.failure);
      return { content: outcome.content, error: false, tool };
    } catch (error) {
      return failed(error);
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
    const tool = (call.env_type === "user" ? this.#tools.user : this.#tools.agent)?.(call.func_name);
    if (!fn && !tool) {
      const known = [...Object.keys(toolkit.functions ?? {}), ...toolkit.tools.map((t) => t.name)];
      throw new PasskError(
        "unknown_env_function",
        `${call.env_type} function "${call.func_name}" does not exist in domain ${this.domain.name} (known: ${known.join(", ")})`,
      );
    }
    let result: unknown;
    const session = new SessionDraft(this.session);
    const context = this.#toolContext(session);
    const content = this.#mutate((draft) => {
      const db = call.env_type === "user" ? draft.user : draft.agent;
      const args = structuredClone(call.arguments);
      copyPyFloatMarks(call.arguments, args);
      result = fn
        ? typeof fn === "function"
          ? fn(db, args, context)
          : fn.run(db, args, context)
        : tool!.run(db, args, context);
      if (isPromiseLike(result)) throw new AsyncToolError(call.func_name, "function");
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
    this.#commitSession(session);
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
    this.#state = frozenState({ ...state, session: state.session ?? this.#state.session });
    this.#userIsAgent = this.domain.sharedDb === true || (options.userIsAgent ?? this.#userIsAgent);
  }

  /** Whether a tool of this name exists in either toolkit (τ² `_has_tool`). */
  hasTool(name: string): boolean {
    return this.findTool(name) !== undefined;
  }

  /** Whether replay should re-execute this tool (unknown tools are assumed to mutate, as in τ²). */
  toolMutatesState(name: string): boolean {
    const tool = this.findTool(name);
    return tool ? tool.mutatesState : true;
  }

  #toolContext(session: SessionDraft): ToolContext {
    return {
      task: this.context.task,
      config: this.context.config,
      services: this.context.services,
      session,
    };
  }

  #commitSession(session: SessionDraft): void {
    const next = session.result();
    if (next !== this.session) this.#state = { ...this.#state, session: next };
  }

  #findTool(request: ToolCallRequest): { tool: Tool<unknown>; side: "agent" | "user" } | { error: string } {
    const userTools = this.#tools.user;
    if (request.requestor === "user") {
      if (this.solo) return { error: "User tool calls are not allowed in solo mode" };
      if (!userTools) return { error: "User tools not available" };
      const tool = userTools(request.name);
      return tool ? { tool, side: "user" } : { error: `Tool '${request.name}' not found.` };
    }
    if (this.solo && userTools) {
      const tool = userTools(request.name);
      if (tool) return { tool, side: "user" };
    }
    const tool = this.#tools.agent(request.name);
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
    if (next.agent !== this.#state.agent || next.user !== this.#state.user)
      this.#state = { ...next, ...(this.#state.session ? { session: this.#state.session } : {}) };
    return value;
  }
}

/** A tool of the requestor's side by name, or undefined. */
type ToolLookup = (name: string) => Tool<unknown> | undefined;

/** The tools of a world: those each side is offered, and what a call by name finds. */
interface WorldTools {
  agentOffered: readonly Tool<unknown>[];
  userOffered: readonly Tool<unknown>[] | undefined;
  agent: ToolLookup;
  user: ToolLookup | undefined;
}

const plainTools = new WeakMap<object, WorldTools>();
/** Per-world tools by domain, task (or none) and configuration: forks and the evaluator's worlds share them. */
const contextTools = new WeakMap<object, WeakMap<object, Map<string, WorldTools>>>();
const NO_TASK = {};

/**
 * What a world of `domain` built for `context` offers and finds. Domains without per-world tool lists
 * or unlisted tools (all but banking_knowledge) share one answer: their toolkits' lists, searched as
 * before. A domain's `toolsFor` may depend on the task and the configuration only.
 */
function worldTools(domain: Domain<unknown, unknown>, context: WorldContext): WorldTools {
  if (!domain.toolsFor && !domain.agent.unlisted && !domain.user?.unlisted)
    return buildWorldTools(domain, context);
  let byTask = contextTools.get(domain);
  if (!byTask) contextTools.set(domain, (byTask = new WeakMap()));
  let byConfig = byTask.get(context.task ?? NO_TASK);
  if (!byConfig) byTask.set(context.task ?? NO_TASK, (byConfig = new Map()));
  let tools = byConfig.get(context.config ?? "");
  if (!tools) byConfig.set(context.config ?? "", (tools = buildWorldTools(domain, context)));
  return tools;
}

function buildWorldTools(domain: Domain<unknown, unknown>, context: WorldContext): WorldTools {
  const { agent, user } = domain;
  const simple = !domain.toolsFor && !agent.unlisted && !user?.unlisted;
  if (simple) {
    let known = plainTools.get(domain);
    if (!known) {
      known = {
        agentOffered: agent.tools,
        userOffered: user?.tools,
        agent: (name) => agent.tools.find((t) => t.name === name),
        user: user ? (name) => user.tools.find((t) => t.name === name) : undefined,
      };
      plainTools.set(domain, known);
    }
    return known;
  }
  const offered = (side: "agent" | "user", toolkit: Toolkit<unknown>) =>
    (domain.toolsFor?.(side, context) ?? toolkit.tools) as readonly Tool<unknown>[];
  const lookup = (listed: readonly Tool<unknown>[], toolkit: Toolkit<unknown>): ToolLookup => {
    const byName = new Map<string, Tool<unknown>>();
    for (const tool of [...listed, ...toolkit.tools, ...(toolkit.unlisted ?? [])])
      if (!byName.has(tool.name)) byName.set(tool.name, tool);
    return (name) => byName.get(name);
  };
  const agentOffered = offered("agent", agent);
  const userOffered = user ? offered("user", user) : undefined;
  return {
    agentOffered,
    userOffered,
    agent: lookup(agentOffered, agent),
    user: user && userOffered ? lookup(userOffered, user) : undefined,
  };
}

/** A tool answered asynchronously where the caller needs the answer now. */
class AsyncToolError extends PasskError {
  constructor(name: string, what: "read" | "write" | "function" = "read") {
    super(
      "async_tool",
      what === "read"
        ? `tool ${name} answers asynchronously; call it with callTool(…, { allowAsync: true }) and await the result`
        : `${what === "write" ? "tool" : "function"} ${name} returned a Promise: only read tools may answer asynchronously`,
    );
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** A state deeply frozen: worlds share it, and writes go through drafts only. */
function frozenState<ADB, UDB>(state: WorldState<ADB, UDB>): WorldState<ADB, UDB> {
  return {
    agent: freeze(state.agent, true),
    user: state.user === undefined ? undefined : freeze(state.user, true),
    ...(state.session !== undefined && state.session.size > 0 ? { session: state.session } : {}),
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
