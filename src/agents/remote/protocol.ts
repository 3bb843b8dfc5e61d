import { z } from "zod";

/**
 * The wire contract between passk and a team's own agent running outside passk (`--agent-llm a2a:URL`
 * or `http:URL`): how the agent learns where its tools are, and — for the plain HTTP protocol — the
 * request and response bodies. Each body is parsed here, once, where it crosses the boundary.
 */

/** Where the agent calls its tools: a per-conversation MCP server (Streamable HTTP) and its bearer token. */
export const McpAccessSchema = z
  .object({
    url: z.url().describe("The conversation's MCP endpoint (Streamable HTTP). POST JSON-RPC to it."),
    token: z
      .string()
      .min(32)
      .describe(
        "Send `Authorization: Bearer <token>` with every MCP request. It reaches this conversation's tools only and dies with the conversation.",
      ),
  })
  .describe("The conversation's tools, served over MCP.");
export type McpAccess = z.infer<typeof McpAccessSchema>;

/** A tool as the agent's model sees it (the same texts are served by the MCP endpoint's `tools/list`). */
export const RemoteToolSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).describe("JSON Schema of the tool's arguments"),
});

const HistoryToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

/** One earlier message of the conversation (the greeting, or a task's recorded history). */
export const HistoryMessageSchema = z.discriminatedUnion("role", [
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(HistoryToolCallSchema).optional(),
  }),
  z.object({ role: z.literal("user"), content: z.string().nullable() }),
  z.object({ role: z.literal("tool"), id: z.string(), content: z.string().nullable(), error: z.boolean() }),
]);
export type HistoryMessage = z.infer<typeof HistoryMessageSchema>;

const conversationContext = {
  policy: z.string().describe("The policy the agent must follow (the domain's policy)."),
  history: z
    .array(HistoryMessageSchema)
    .describe(
      "What the conversation holds before the first message passk sends: usually the greeting passk said in the agent's name.",
    ),
  solo: z
    .boolean()
    .describe(
      "Solo mode: no customer. The first message is the ticket; reply with ###STOP### when it is solved.",
    ),
};

/** `POST {URL}/conversations`: a conversation starts. */
export const ConversationStartSchema = z
  .object({
    ...conversationContext,
    tools: z
      .array(RemoteToolSpecSchema)
      .describe("The tools, exactly as the MCP endpoint lists them (informative: call them through MCP)."),
    mcp: McpAccessSchema,
  })
  .describe("POST {URL}/conversations — request body");
export type ConversationStart = z.infer<typeof ConversationStartSchema>;

/** The answer to `POST {URL}/conversations`. */
export const ConversationCreatedSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .max(200)
      .describe("The agent's id for the conversation; passk puts it in the URLs that follow."),
  })
  .describe("POST {URL}/conversations — response body (2xx)");
export type ConversationCreated = z.infer<typeof ConversationCreatedSchema>;

/** `POST {URL}/conversations/{id}/messages`: the customer's next message. */
export const AgentMessageRequestSchema = z
  .object({ content: z.string().describe("What the customer said (in solo mode: the ticket).") })
  .describe("POST {URL}/conversations/{id}/messages — request body");

/** The agent's reply; it calls its tools through MCP before answering. */
export const AgentMessageReplySchema = z
  .object({
    content: z
      .string()
      .describe("The agent's reply to the customer. Call tools through MCP before answering, not here."),
  })
  .describe("POST {URL}/conversations/{id}/messages — response body (2xx)");
export type AgentMessageReply = z.infer<typeof AgentMessageReplySchema>;

/** A2A message metadata key carrying {@link McpAccess}, on every message passk sends. */
export const A2A_MCP_METADATA_KEY = "passk/mcp";
/** A2A message metadata key carrying {@link A2aStartMetadata}, on the first message of a conversation. */
export const A2A_START_METADATA_KEY = "passk/start";

/**
 * A2A message metadata key of the message that ends a conversation (A2A has no "conversation over"
 * call): the last message passk sends in a context, after which it sends nothing more there.
 */
export const A2A_END_METADATA_KEY = "passk/end";
/** The text of that last message, for agents that read only text. */
export const A2A_END_TEXT = "(passk: the conversation is over; nothing more will be sent in this context)";

/** What the last A2A message of a conversation carries under `passk/end`. */
export const A2aEndMetadataSchema = z
  .object({})
  .describe(
    `A2A message metadata "${A2A_END_METADATA_KEY}" — on the message that ends a conversation: release the context; your answer (any message) is not read`,
  );

/** What the first A2A message of a conversation carries under `passk/start`. */
export const A2aStartMetadataSchema = z
  .object(conversationContext)
  .describe(`A2A message metadata "${A2A_START_METADATA_KEY}" — on the first message of a conversation`);
export type A2aStartMetadata = z.infer<typeof A2aStartMetadataSchema>;

/**
 * The JSON Schema of every body above, one `$defs` entry each — the document
 * `examples/agents/remote-agent-protocol.schema.json` holds (a test keeps the two equal).
 */
export function remoteAgentProtocolJsonSchema(): Record<string, unknown> {
  const defs: Record<string, z.ZodType> = {
    ConversationStart: ConversationStartSchema,
    ConversationCreated: ConversationCreatedSchema,
    AgentMessageRequest: AgentMessageRequestSchema,
    AgentMessageReply: AgentMessageReplySchema,
    A2aMcpMetadata: McpAccessSchema.describe(
      `A2A message metadata "${A2A_MCP_METADATA_KEY}" — on every message passk sends`,
    ),
    A2aStartMetadata: A2aStartMetadataSchema,
    A2aEndMetadata: A2aEndMetadataSchema,
  };
  const $defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(defs)) {
    const { $schema: _schema, ...body } = z.toJSONSchema(schema, { io: "input" });
    $defs[name] = body;
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "passk remote agent protocol",
    description:
      "Bodies of passk's plain HTTP agent protocol (--agent-llm http:URL) and the metadata of its A2A messages (--agent-llm a2a:URL). DELETE {URL}/conversations/{id} ends a conversation (no body).",
    $defs,
  };
}
