import { z } from "zod";

/**
 * The model calls behind a simulation, as `passk run` records them beside its results (never inside
 * them: results stay τ²'s format). Each call says which message it produced (`turn_idx`), what the
 * model was sent — its system prompt and tools (once per simulation, in `prompts`) and its messages
 * (delta-coded against an earlier call of the simulation) — and what came back: the reply, tokens,
 * latency, attempts and the provider errors served before it.
 */

/** A message as a model was sent it (passk's provider-neutral form, `LlmMessage`). */
export const SentMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    toolCalls: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          arguments: z.record(z.string(), z.unknown()).optional(),
          argumentsText: z.string(),
        }),
      )
      .optional(),
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.string(),
    isError: z.boolean().optional(),
  }),
]);
export type SentMessage = z.infer<typeof SentMessageSchema>;

/** A system prompt and the tools offered with it: stored once per simulation, named by index. */
export const ModelCallPromptSchema = z.object({
  system: z.string(),
  tools: z.array(
    z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
  ),
});
export type ModelCallPrompt = z.infer<typeof ModelCallPromptSchema>;

/** A failed attempt the retries served before the next: `status` is the HTTP status when there was one. */
export const ModelCallAttemptErrorSchema = z.object({
  attempt: z.int(),
  status: z.int().nullable(),
  reason: z.string(),
  delay_ms: z.number(),
});

export const ModelCallSchema = z.object({
  /** The index of the message this call produced; null when it produced none (the judge, a failed call). */
  turn_idx: z.int().nullable(),
  /** `agent`, `user` (the simulated customer), `judge` or `reranker`. */
  role: z.string(),
  /** `<provider>:<model>`. */
  model: z.string(),
  /** Index into `prompts`. */
  prompt: z.int(),
  /** The messages sent: the first `keep` messages call `from` was sent, then `added` (`from` null: `added` only). */
  messages: z.object({ from: z.int().nullable(), keep: z.int(), added: z.array(SentMessageSchema) }),
  /** Call settings in effect (temperature, max tokens, seed…). */
  params: z.record(z.string(), z.unknown()),
  reply: z
    .object({
      text: z.string().nullable(),
      tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
      finish_reason: z.string().nullable(),
      response_id: z.string().nullable(),
    })
    .nullable(),
  usage: z
    .object({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      cache_read_tokens: z.number().optional(),
      cache_write_tokens: z.number().optional(),
    })
    .nullable(),
  cost: z.number().nullable(),
  started_at: z.string(),
  latency_ms: z.number(),
  /** Attempts made, the one that answered (or failed for good) included. */
  attempts: z.int(),
  /** What each retried attempt got. */
  errors: z.array(ModelCallAttemptErrorSchema),
  /** Why the call failed for good; null when it answered. */
  error: z.string().nullable(),
  /** Answered from the response cache (`--cache`), not the provider. */
  cached: z.boolean(),
});
export type ModelCall = z.infer<typeof ModelCallSchema>;

export const SimulationModelCallsSchema = z.object({
  version: z.literal(1),
  prompts: z.array(ModelCallPromptSchema),
  calls: z.array(ModelCallSchema),
});
export type SimulationModelCalls = z.infer<typeof SimulationModelCallsSchema>;

/** Where a run's recorded calls go: one record per simulation, by its id. */
export interface ModelCallSink {
  save(runId: string, simulationId: string, calls: SimulationModelCalls): void;
}

/** The whole list of messages call `index` of `record` was sent (its delta resolved). */
export function sentMessages(record: SimulationModelCalls, index: number): SentMessage[] {
  const chain: ModelCall[] = [];
  const seen = new Set<number>();
  for (let at: number | null = index; at !== null;) {
    const call: ModelCall | undefined = record.calls[at];
    // A record that refers forward or in a circle is read as far as it goes.
    if (!call || seen.has(at)) break;
    seen.add(at);
    chain.push(call);
    at = call.messages.from !== null && call.messages.from < at ? call.messages.from : null;
  }
  let messages: SentMessage[] = [];
  for (const call of chain.reverse())
    messages = [...messages.slice(0, call.messages.keep), ...call.messages.added];
  return messages;
}
