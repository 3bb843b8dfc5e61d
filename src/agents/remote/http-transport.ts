import { prettifyError, type z } from "zod";
import { stringifyKeepingPyFloats } from "../../python/py-float.js";
import {
  AgentMessageReplySchema,
  ConversationCreatedSchema,
  type AgentMessageReply,
  type ConversationCreated,
} from "./protocol.js";
import {
  AgentMessageTooDeepError,
  MAX_AGENT_JSON_DEPTH,
  agentAnswerError,
  nestedDeeperThan,
  readTextAtMost,
} from "./remote-call-error.js";
import type { RemoteAgentTransport, RemoteConversationTransport } from "./remote-transport.js";

/** How long the `DELETE` that ends a conversation may take; it is a courtesy, never retried. */
const END_TIMEOUT_MS = 5_000;

/**
 * passk's plain HTTP session protocol, for agents that speak neither A2A nor anything else:
 *
 * - `POST {URL}/conversations` with `{ policy, tools, mcp: { url, token }, history, solo }` → `{ id }`
 * - `POST {URL}/conversations/{id}/messages` with `{ content }` → `{ content }` (the agent calls its
 *   tools through MCP before answering)
 * - `DELETE {URL}/conversations/{id}` when the conversation ends.
 *
 * The bodies are the zod schemas of `protocol.ts`; an answer that does not match (an empty body
 * included) is a malformed reply: the agent's own error, like a 500.
 */
export function httpTransport(
  url: string,
  fetchImpl: typeof fetch,
  maxMessageBytes: number,
): RemoteAgentTransport {
  const base = url.replace(/\/+$/, "");
  // A reply's JSON may escape its text (up to 6 bytes a character for \uXXXX); more than this is never read.
  const maxBodyBytes = 4 * maxMessageBytes + 64 * 1024;
  return {
    async start(context, { signal }) {
      const created: ConversationCreated = await exchange(
        fetchImpl,
        `${base}/conversations`,
        stringifyKeepingPyFloats(context),
        ConversationCreatedSchema,
        signal,
        maxBodyBytes,
      );
      return new HttpConversation(
        fetchImpl,
        `${base}/conversations/${encodeURIComponent(created.id)}`,
        maxBodyBytes,
      );
    },
  };
}

class HttpConversation implements RemoteConversationTransport {
  constructor(
    private readonly fetchImpl: typeof fetch,
    private readonly url: string,
    private readonly maxBodyBytes: number,
  ) {}

  async send(content: string, options: { signal: AbortSignal }): Promise<string> {
    const reply: AgentMessageReply = await exchange(
      this.fetchImpl,
      `${this.url}/messages`,
      JSON.stringify({ content }),
      AgentMessageReplySchema,
      options.signal,
      this.maxBodyBytes,
    );
    return reply.content;
  }

  async end(): Promise<void> {
    try {
      const response = await this.fetchImpl(this.url, {
        method: "DELETE",
        signal: AbortSignal.timeout(END_TIMEOUT_MS),
      });
      await response.body?.cancel();
    } catch {
      // The agent may be gone already; the conversation is over either way.
    }
  }
}

/** POSTs a JSON body and reads the answer with its schema; a mismatch is the agent's malformed reply. */
async function exchange<T extends z.ZodType>(
  fetchImpl: typeof fetch,
  url: string,
  body: string,
  schema: T,
  signal: AbortSignal,
  maxBodyBytes: number,
): Promise<z.output<T>> {
  const response = await fetchImpl(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body,
    signal,
  });
  const where = `POST ${new URL(url).pathname}`;
  const text = await readTextAtMost(response, maxBodyBytes, `an answer to ${where} (its JSON)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw agentAnswerError(
      `${where} answered something that is not JSON: ${JSON.stringify(text.slice(0, 120))}`,
    );
  }
  if (nestedDeeperThan(value, MAX_AGENT_JSON_DEPTH))
    throw new AgentMessageTooDeepError(`an answer to ${where} (its JSON)`);
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw agentAnswerError(
      `${where} answered JSON of the wrong shape (${prettifyError(parsed.error).replace(/\n/g, " ")})`,
    );
  return parsed.data;
}
