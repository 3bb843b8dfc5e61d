import type { LlmToolSpec } from "../core/llm.js";
import type { z } from "zod";
import type { MessageSchema } from "../core/message.js";
import type { ResultsInput } from "./tau2/results.js";

/** One training example in the OpenAI chat format: the conversation as the agent lived it, and its tools. */
export interface SftExample {
  messages: SftMessage[];
  tools?: { type: "function"; function: LlmToolSpec }[];
  /** Where it came from, for tracing an example back (trainers ignore unknown keys). */
  metadata: { domain: string; task_id: string; trial: number | null; simulation_id: string; reward: number };
}

export type SftMessage =
  | { role: "system" | "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

export interface SftOptions {
  /** The task ids of each named split of the run's domain (`train`, `test`…), when it has splits. */
  splits?: Readonly<Record<string, readonly string[]>>;
  /** Only tasks of this split. */
  split?: string;
  /** Include tasks of the `test` split (left out by default, so nobody trains on it by accident). */
  includeTestSplit?: boolean;
  /** The agent's tools, by task id (what it was offered in that task's world). */
  toolsOf?: (taskId: string) => readonly LlmToolSpec[];
}

export interface SftExport {
  examples: SftExample[];
  /** Conversations graded 1.0 (the only ones exported). */
  passing: number;
  /** Passing conversations left out because their task is in the test split. */
  leftOutTestSplit: number;
  /** Passing conversations left out because their task is not in `split`. */
  leftOutOtherSplits: number;
}

/** The agent's side of a τ² message: what the agent saw and said (not the customer's own tool use). */
function asChat(message: z.input<typeof MessageSchema>): SftMessage | undefined {
  if (message.role === "assistant") {
    const calls = message.tool_calls ?? [];
    return calls.length > 0
      ? {
          role: "assistant",
          content: message.content ?? null,
          tool_calls: calls.map((call) => ({
            id: call.id ?? "",
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        }
      : { role: "assistant", content: message.content ?? "" };
  }
  if (message.role === "user") {
    // The customer's tool calls on their own device are not shown to the agent; their words are.
    return message.content ? { role: "user", content: message.content } : undefined;
  }
  if (message.role === "tool")
    return (message.requestor ?? "assistant") === "assistant"
      ? { role: "tool", tool_call_id: message.id, content: message.content ?? "" }
      : undefined;
  return undefined;
}

/**
 * A run's passing conversations (reward 1.0) as chat-format training data: a system message with the
 * policy the agent was given, then the conversation as the agent saw it, with its tool calls in the
 * OpenAI schema. Tasks of the `test` split are left out unless `includeTestSplit`.
 */
export function sftExport(results: ResultsInput, options: SftOptions = {}): SftExport {
  const environment = (results.info.environment_info ?? {}) as { domain_name?: unknown; policy?: unknown };
  const domain = typeof environment.domain_name === "string" ? environment.domain_name : "unknown";
  const policy = typeof environment.policy === "string" ? environment.policy : undefined;
  const testIds = new Set(options.splits?.test ?? []);
  const splitIds = options.split !== undefined ? new Set(options.splits?.[options.split] ?? []) : undefined;
  const examples: SftExample[] = [];
  let passing = 0;
  let leftOutTestSplit = 0;
  let leftOutOtherSplits = 0;
  for (const simulation of results.simulations) {
    const reward = simulation.reward_info?.reward;
    if (reward !== 1) continue;
    passing++;
    if (splitIds && !splitIds.has(simulation.task_id)) {
      leftOutOtherSplits++;
      continue;
    }
    if (!options.includeTestSplit && testIds.has(simulation.task_id)) {
      leftOutTestSplit++;
      continue;
    }
    const messages = simulation.messages.flatMap((m) => asChat(m) ?? []);
    const tools = options.toolsOf?.(simulation.task_id);
    examples.push({
      messages: policy !== undefined ? [{ role: "system", content: policy }, ...messages] : messages,
      ...(tools ? { tools: tools.map((spec) => ({ type: "function" as const, function: spec })) } : {}),
      metadata: {
        domain,
        task_id: simulation.task_id,
        trial: simulation.trial ?? null,
        simulation_id: simulation.id,
        reward,
      },
    });
  }
  return { examples, passing, leftOutTestSplit, leftOutOtherSplits };
}
