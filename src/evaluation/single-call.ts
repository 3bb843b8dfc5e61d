import type { ToolRequestor } from "../core/message.js";
import type { ToolCallResult, World } from "../env/world.js";

/** The outcome of one tool call in a fresh world: the fields of τ²'s `fixtures/bad_calls`. */
export interface SingleCallResult {
  output: string;
  error: boolean;
  agent_db_changed: boolean;
  user_db_changed: boolean;
}

type Call = { name: string; arguments: Record<string, unknown>; requestor: ToolRequestor };

/**
 * Make one tool call in `world` (already set up) as the orchestrator would, and report what it
 * returned and which databases it changed. For tools that may answer asynchronously (a search behind
 * an API) use {@link runSingleCallAsync}.
 */
export function runSingleCall(world: World, call: Call): SingleCallResult {
  const before = prepare(world);
  return outcome(world, before, world.callTool(call));
}

/** {@link runSingleCall} for any tool, waiting for one that answers asynchronously. */
export async function runSingleCallAsync(world: World, call: Call): Promise<SingleCallResult> {
  const before = prepare(world);
  return outcome(world, before, await world.callTool(call, { allowAsync: true }));
}

function prepare(world: World): ReturnType<World["hash"]> {
  for (const step of world.domain.standaloneSetup ?? []) world.runEnvFunction(step);
  return world.hash();
}

function outcome(world: World, before: ReturnType<World["hash"]>, result: ToolCallResult): SingleCallResult {
  const after = world.hash();
  return {
    output: result.content,
    error: result.error,
    agent_db_changed: before.agent !== after.agent,
    user_db_changed: before.user !== after.user,
  };
}
