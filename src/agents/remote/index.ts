export { remoteAgent } from "./remote-agent.js";
export type { RemoteAgent, RemoteAgentOptions, RemoteAgentSession } from "./remote-agent.js";
export { isRemoteAgentSpec, parseRemoteAgentSpec } from "./remote-agent-spec.js";
export type { RemoteAgentProtocol } from "./remote-agent-spec.js";
export { RemoteAgentError } from "./remote-call-error.js";
export { McpToolServer } from "./mcp-tool-server.js";
export { AgentMessageTooLargeError, DEFAULT_MAX_AGENT_MESSAGE_BYTES } from "./remote-call-error.js";
export type { McpEndpoint, McpEndpointHandlers, McpToolServerOptions } from "./mcp-tool-server.js";
export {
  A2A_MCP_METADATA_KEY,
  A2A_START_METADATA_KEY,
  A2aStartMetadataSchema,
  AgentMessageReplySchema,
  AgentMessageRequestSchema,
  ConversationCreatedSchema,
  ConversationStartSchema,
  HistoryMessageSchema,
  McpAccessSchema,
  remoteAgentProtocolJsonSchema,
} from "./protocol.js";
export type { ConversationStart, HistoryMessage, McpAccess } from "./protocol.js";
