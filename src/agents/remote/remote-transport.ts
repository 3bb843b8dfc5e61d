import type { ConversationStart } from "./protocol.js";

/**
 * How passk talks to a remote agent (A2A or the plain HTTP protocol). Failures are
 * {@link RemoteCallError}s saying whether trying again may help; the conversation does the retrying.
 */
export interface RemoteAgentTransport {
  /** Starts a conversation: the policy, the tools and where to call them, and the history so far. */
  start(context: ConversationStart, options: { signal: AbortSignal }): Promise<RemoteConversationTransport>;
}

/** One conversation with a remote agent. */
export interface RemoteConversationTransport {
  /**
   * Sends the customer's message (in solo mode: the ticket) and resolves with the agent's reply. The
   * agent calls its tools over MCP meanwhile. `onActivity` is called whenever the agent shows it is
   * working (a streamed event), which keeps the turn's inactivity timeout from firing.
   */
  send(content: string, options: { signal: AbortSignal; onActivity: () => void }): Promise<string>;
  /** Tells the agent the conversation is over (best effort: it never throws). */
  end(): Promise<void>;
}
