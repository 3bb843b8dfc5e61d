import { z } from "zod";

/** Who asked for a tool call: the agent ("assistant") or the simulated customer ("user"). */
export const ToolRequestorSchema = z.enum(["user", "assistant"]);
export type ToolRequestor = z.infer<typeof ToolRequestorSchema>;

export const ToolCallSchema = z.looseObject({
  id: z.string().default(""),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  requestor: ToolRequestorSchema.default("assistant"),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/**
 * Token usage as τ²-bench records it on a message. passk adds the prompt tokens read from and written to
 * the provider's prompt cache (part of `prompt_tokens`), when the provider reported any.
 */
export const UsageSchema = z.looseObject({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  cache_read_tokens: z.number().optional(),
  cache_write_tokens: z.number().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

const messageMeta = {
  turn_idx: z.number().int().nullable().optional(),
  timestamp: z.string().nullable().optional(),
};

export const SystemMessageSchema = z.looseObject({
  role: z.literal("system"),
  content: z.string().nullable().optional(),
  ...messageMeta,
});

const participantFields = {
  content: z.string().nullable().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  cost: z.number().nullable().optional(),
  usage: UsageSchema.nullable().optional(),
  raw_data: z.record(z.string(), z.unknown()).nullable().optional(),
  ...messageMeta,
};

export const AssistantMessageSchema = z.looseObject({ role: z.literal("assistant"), ...participantFields });
export const UserMessageSchema = z.looseObject({ role: z.literal("user"), ...participantFields });

export const ToolMessageSchema = z.looseObject({
  id: z.string(),
  role: z.literal("tool"),
  content: z.string().nullable().optional(),
  requestor: ToolRequestorSchema.default("assistant"),
  error: z.boolean().default(false),
  ...messageMeta,
});

export const MessageSchema = z.discriminatedUnion("role", [
  SystemMessageSchema,
  AssistantMessageSchema,
  UserMessageSchema,
  ToolMessageSchema,
]);

export type SystemMessage = z.infer<typeof SystemMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type ParticipantMessage = AssistantMessage | UserMessage;

/** A participant message that carries tool calls (τ² treats `tool_calls: []` as none). */
export function hasToolCalls(message: Message): message is ParticipantMessage & { tool_calls: ToolCall[] } {
  return (message.role === "assistant" || message.role === "user") && Array.isArray(message.tool_calls);
}

/**
 * A tool call whose arguments the model wrote as something other than a JSON object keeps that text in
 * `raw_arguments` (and `arguments: {}`). Such a call never reaches a tool: the caller gets this error,
 * and evaluation replay skips it, as it changed nothing.
 */
export function malformedArgumentsError(call: ToolCall): string | undefined {
  const raw = (call as { raw_arguments?: unknown }).raw_arguments;
  if (typeof raw !== "string") return undefined;
  const shown = raw.length > 300 ? `${raw.slice(0, 300)}…` : raw;
  return `the arguments of tool call '${call.name}' are not a valid JSON object: ${shown}. Call the tool again with a JSON object of arguments.`;
}
