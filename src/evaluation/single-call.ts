import { z } from "zod";
import { ToolRequestorSchema, type ToolRequestor } from "../core/message.js";
import { copyPyFloatMarks, parseJsonKeepingPyFloats } from "../python/py-float.js";
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

const CallLineSchema = z.object({
  requestor: ToolRequestorSchema.default("assistant"),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/** One line of a batch of calls: its result, or why the line is not a call. */
export type CallLineOutcome = SingleCallResult | { line: number; invalid_input: string };

/**
 * Makes the calls of JSON lines `{requestor, name, arguments}` (what `passk call --batch` reads), each
 * in its own fresh world from `newWorld`, or all in one world as one conversation would (`oneWorld`:
 * state, files and unlocked tools carry over). Float marks (`2.0`) are kept as Python wrote them. A
 * line that is not a call gives `invalid_input` and the batch goes on.
 */
export async function* runCallLines(
  text: string,
  newWorld: () => World,
  options: { oneWorld?: boolean } = {},
): AsyncGenerator<CallLineOutcome> {
  const shared = options.oneWorld ? newWorld() : undefined;
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let parsed;
    try {
      const raw = parseJsonKeepingPyFloats(line);
      parsed = CallLineSchema.safeParse(raw);
      if (parsed.success) copyPyFloatMarks(raw, parsed.data);
    } catch (error) {
      yield { line: index + 1, invalid_input: `not JSON: ${(error as Error).message}` };
      continue;
    }
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      yield { line: index + 1, invalid_input: problems };
      continue;
    }
    yield await runSingleCallAsync(shared ?? newWorld(), parsed.data);
  }
}
