import type { Agent, AgentSession, AgentView } from "../../core/agent.js";
import { DEFAULT_RETRY_OPTIONS, resolveRetryOptions, type RetryOptions } from "../../llm/retry.js";
import { a2aTransport } from "./a2a-transport.js";
import { httpTransport } from "./http-transport.js";
import { McpToolServer } from "./mcp-tool-server.js";
import { DEFAULT_MAX_AGENT_MESSAGE_BYTES, remoteAgentFetch } from "./remote-call-error.js";
import { parseRemoteAgentSpec, readRemoteAgentEnv } from "./remote-agent-spec.js";
import { RemoteConversation, type SharedSettings } from "./remote-conversation.js";

export interface RemoteAgentOptions {
  /** Where `PASSK_MCP_*` and `PASSK_REMOTE_AGENT_TOKEN` are read. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * How long the agent may show no sign of life within a turn (no MCP request, no streamed event, no
   * answer), in milliseconds; past it the attempt is abandoned. Default 120 s (`--timeout`).
   */
  timeoutMs?: number;
  /** The retry policy of model calls (`--max-retries`), reused for the agent's infrastructure faults. */
  retry?: Partial<RetryOptions>;
  /** The server of the agent's MCP endpoints; default: one per agent, configured from `env`. */
  mcpServer?: McpToolServer;
  /**
   * The largest message the agent may send — a reply's text, a tool call's arguments as JSON — in
   * bytes; a larger one ends the conversation as the agent's error. Default 256 KiB
   * (`--max-agent-message-bytes`).
   */
  maxMessageBytes?: number;
}

/** A remote agent's conversation: also ends on request, releasing its MCP endpoint and telling the agent. */
export interface RemoteAgentSession extends AgentSession {
  /** Ends the conversation now (idempotent): its MCP endpoint answers 401 from then on. */
  end(): Promise<void>;
}

/** A remote agent: its sessions can also be ended on request. */
export interface RemoteAgent extends Agent {
  start(init: AgentView): Promise<RemoteAgentSession>;
}

/** Conversations passk stopped referring to without ending them: ended when collected. */
const abandoned = new FinalizationRegistry<RemoteConversation>((conversation) => void conversation.end());

/**
 * A team's agent running outside passk, in any language or framework, tested as it runs in production:
 * passk drives it over A2A (`a2a:URL`) or a plain HTTP session protocol (`http:URL`) and serves it the
 * world's tools over MCP, one endpoint and token per conversation.
 *
 * The agent's MCP calls are put into the trajectory one by one, in the order they arrive: each becomes
 * an assistant message with that one tool call, which the orchestrator executes against the world as
 * any model's; the result goes back as the MCP answer. The agent's reply becomes the assistant's text
 * message. So grading, replay and the explorer see an ordinary trajectory.
 *
 * @example
 * const agent = remoteAgent("a2a:http://127.0.0.1:9999");
 * await runSimulation({ ...setup, agent });
 */
export function remoteAgent(spec: string, options: RemoteAgentOptions = {}): RemoteAgent {
  const { protocol, url } = parseRemoteAgentSpec(spec);
  const env = readRemoteAgentEnv(options.env ?? process.env);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const fetchImpl = remoteAgentFetch({
    ...(env.PASSK_REMOTE_AGENT_TOKEN !== undefined ? { authToken: env.PASSK_REMOTE_AGENT_TOKEN } : {}),
    defaultTimeoutMs: timeoutMs,
    origin: new URL(url).origin,
  });
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_AGENT_MESSAGE_BYTES;
  const transport =
    protocol === "a2a"
      ? a2aTransport(url, fetchImpl, maxMessageBytes)
      : httpTransport(url, fetchImpl, maxMessageBytes);
  const mcpServer =
    options.mcpServer ??
    new McpToolServer({
      ...(env.PASSK_MCP_HOST !== undefined ? { host: env.PASSK_MCP_HOST } : {}),
      ...(env.PASSK_MCP_PORT !== undefined ? { port: env.PASSK_MCP_PORT } : {}),
      ...(env.PASSK_MCP_PUBLIC_URL !== undefined ? { publicUrl: env.PASSK_MCP_PUBLIC_URL } : {}),
    });
  const shared: SharedSettings = {
    spec,
    transport,
    mcpServer,
    timeoutMs,
    retry: resolveRetryOptions({ ...DEFAULT_RETRY_OPTIONS, ...options.retry }),
    secrets: env.PASSK_REMOTE_AGENT_TOKEN !== undefined ? [env.PASSK_REMOTE_AGENT_TOKEN] : [],
    maxMessageBytes,
  };
  return {
    name: protocol === "a2a" ? "a2a_agent" : "http_agent",
    model: spec,
    async start(init: AgentView): Promise<RemoteAgentSession> {
      const conversation = new RemoteConversation(shared, init);
      await conversation.open();
      // The session holds the conversation, never the other way round: once the orchestrator lets go of
      // a session it did not end, the conversation is ended when the session is collected.
      const session: RemoteAgentSession = {
        respond: (incoming) => conversation.respond(incoming),
        end: () => conversation.end(),
      };
      abandoned.register(session, conversation, session);
      return session;
    },
  };
}
