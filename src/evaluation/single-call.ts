import type { ToolRequestor } from "../core/message.js";
import type { World } from "../env/world.js";

/** The outcome of one tool call in a fresh world: the fields of τ²'s `fixtures/bad_calls`. */
export interface SingleCallResult {
  output: string;
  error: boolean;
  agent_db_changed: boolean;
  user_db_changed: boolean;
}

/**
 * Make one tool call in `world` (already set up) as the orchestrator would, and report what it
 * returned and which databases it changed.
 */
export function runSingleCall(
  world: World,
  call: { name: string; arguments: Record<string, unknown>; requestor: ToolRequestor },
): SingleCallResult {
  for (const step of world.domain.standaloneSetup ?? []) world.runEnvFunction(step);
  const before = world.hash();
  const result = world.callTool(call);
  const after = world.hash();
  return {
    output: result.content,
    error: result.error,
    agent_db_changed: before.agent !== after.agent,
    user_db_changed: before.user !== after.user,
  };
}
