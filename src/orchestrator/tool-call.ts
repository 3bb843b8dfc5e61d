import { malformedArgumentsError, type ToolCall } from "../core/message.js";
import type { World } from "../env/world.js";

/**
 * Execute one tool call; a call whose arguments could not be parsed is answered with an error. A read
 * tool that answers asynchronously (a search behind an API) gives a Promise; every other call answers
 * at once.
 */
export function executeToolCall(
  world: World,
  call: ToolCall,
): { content: string; error: boolean } | Promise<{ content: string; error: boolean }> {
  const malformed = malformedArgumentsError(call);
  if (malformed) return { content: `Error: ${malformed}`, error: true };
  return world.callTool(
    { name: call.name, arguments: call.arguments, requestor: call.requestor },
    { allowAsync: true },
  );
}
