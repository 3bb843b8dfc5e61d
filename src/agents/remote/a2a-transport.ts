import { randomUUID } from "node:crypto";
import {
  SendMessageRequest,
  TaskState,
  type Message as A2aMessage,
  type Part,
  type StreamResponse,
} from "@a2a-js/sdk";
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from "@a2a-js/sdk/client";
import { A2AError } from "@a2a-js/sdk/errors";
import { ConfigError } from "../../core/errors.js";
import {
  A2A_END_METADATA_KEY,
  A2A_END_TEXT,
  A2A_MCP_METADATA_KEY,
  A2A_START_METADATA_KEY,
  type ConversationStart,
} from "./protocol.js";
import { ResponseTooLargeError } from "../../llm/http-fetch.js";
import {
  AgentMessageTooDeepError,
  AgentMessageTooLargeError,
  MAX_AGENT_JSON_DEPTH,
  RemoteCallError,
  agentAnswerError,
  nestedDeeperThan,
  shownText,
} from "./remote-call-error.js";
import type { RemoteAgentTransport, RemoteConversationTransport } from "./remote-transport.js";

/**
 * The Agent2Agent protocol (the official `@a2a-js/sdk` client, A2A v1.0 with v0.3 peers understood):
 * the agent card is read once per agent from `URL/.well-known/agent-card.json` (or from `URL` itself
 * when it names a `.json` file); each customer message goes out as one A2A message of the conversation's
 * context, streamed when the card says the agent streams, and the agent's reply is the text of its
 * answer: a message, or the task's final status message (else its text artifacts).
 *
 * Every message carries `metadata["passk/mcp"] = { url, token }`; the first one of a conversation also
 * carries `metadata["passk/start"] = { policy, history, solo }`. When the conversation is over, one last
 * message in its context carries `metadata["passk/end"] = {}` (and no MCP access: the endpoint is closed).
 */
export function a2aTransport(
  url: string,
  fetchImpl: typeof fetch,
  maxMessageBytes: number,
): RemoteAgentTransport {
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
      new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
    ],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
  });
  let client: Promise<Client> | undefined;
  const connect = async (): Promise<Client> => {
    try {
      return await (url.endsWith(".json") ? factory.createFromUrl(url, "") : factory.createFromUrl(url));
    } catch (error) {
      if (error instanceof RemoteCallError || ConfigError.isInstance(error)) throw error;
      if (isMalformed(error))
        throw new RemoteCallError(
          "its agent card is malformed (a field A2A requires is missing or of the wrong type)",
          true,
        );
      const message = error instanceof Error ? error.message : String(error);
      if (/no compatible transport/i.test(message))
        throw new ConfigError(
          `the agent card of a2a:${url} offers no transport passk speaks (JSONRPC or HTTP+JSON); add one of them to its supportedInterfaces`,
        );
      // An unreadable card: a fault of the agent's service, tried again.
      throw new RemoteCallError(`its agent card could not be read: ${shownText(message)}`, true);
    }
  };
  return {
    async start(context) {
      client ??= connect().catch((error: unknown) => {
        client = undefined;
        throw error;
      });
      return new A2aConversation(await client, context, maxMessageBytes);
    },
  };
}

class A2aConversation implements RemoteConversationTransport {
  private contextId = "";
  /** Set while the agent's last task waits for the customer (input required): the next message continues it. */
  private taskId = "";
  private first = true;

  constructor(
    private readonly client: Client,
    private readonly context: ConversationStart,
    private readonly maxMessageBytes: number,
  ) {}

  async send(content: string, options: { signal: AbortSignal; onActivity: () => void }): Promise<string> {
    const { policy, history, solo, mcp } = this.context;
    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: content, mediaType: "text/plain" }],
        ...(this.contextId ? { contextId: this.contextId } : {}),
        ...(this.taskId ? { taskId: this.taskId } : {}),
        metadata: {
          [A2A_MCP_METADATA_KEY]: mcp,
          ...(this.first ? { [A2A_START_METADATA_KEY]: { policy, history, solo } } : {}),
        },
      },
    });
    const reply = new A2aReply(this.maxMessageBytes);
    try {
      for await (const event of this.client.sendMessageStream(request, { signal: options.signal })) {
        options.onActivity();
        if (reply.add(event)) break;
      }
    } catch (error) {
      if (
        options.signal.aborted ||
        error instanceof RemoteCallError ||
        error instanceof AgentMessageTooLargeError ||
        error instanceof AgentMessageTooDeepError
      )
        throw error;
      // The transport's 32 MiB cap: a transport failure naming the agent's answer, as for the HTTP protocol.
      if (error instanceof ResponseTooLargeError) throw new RemoteCallError(error.message, true);
      // A JSON-RPC (or REST) error answer: the agent answered, with an error of its own.
      if (error instanceof A2AError)
        throw agentAnswerError(`the agent answered an A2A error: ${shownText(error.message)}`);
      // An answer the SDK cannot read (a response without a result, a field of the wrong type) is the
      // agent's malformed answer, as is one it reads with a plain Error ("Invalid response…"); a
      // connection that breaks mid-stream surfaces as another TypeError or a DOMException: a transport failure.
      if (isMalformed(error))
        throw agentAnswerError(
          "the agent's A2A answer is malformed (a JSON-RPC response without a result, or a field of the wrong type)",
        );
      if (error instanceof Error && error.constructor === Error)
        throw agentAnswerError(`the agent answered something that is not A2A: ${shownText(error.message)}`);
      throw error;
    }
    const text = reply.text();
    this.first = false;
    if (reply.contextId) this.contextId = reply.contextId;
    this.taskId = reply.state === TaskState.TASK_STATE_INPUT_REQUIRED ? reply.taskId : "";
    return text;
  }

  /**
   * A2A has no "conversation over" call, so passk says it with a last message marked `passk/end`, in
   * the context the agent opened (none if it never answered). Best effort: its answer is not read.
   */
  async end(): Promise<void> {
    if (!this.contextId) return;
    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: A2A_END_TEXT, mediaType: "text/plain" }],
        contextId: this.contextId,
        ...(this.taskId ? { taskId: this.taskId } : {}),
        metadata: { [A2A_END_METADATA_KEY]: {} },
      },
    });
    try {
      await this.client.sendMessage(request, { signal: AbortSignal.timeout(END_TIMEOUT_MS) });
    } catch {
      // The agent may be gone already; the conversation is over either way.
    }
  }
}

/** How long the last message of a conversation may take: the agent only has to let go of it. */
const END_TIMEOUT_MS = 5_000;

/** States after which the agent waits for the client (or is done): its answer is complete. */
const ANSWERED = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_REJECTED,
]);
const FAILED = new Set([
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** The agent's answer to one message, gathered from the events of its stream. */
class A2aReply {
  contextId = "";
  taskId = "";
  state: TaskState | undefined;
  private message: string | undefined;
  private statusMessage: string | undefined;
  private readonly artifacts = new Map<string, string>();
  /** Characters held in artifacts: a flood of appended chunks is refused once past the message limit. */
  private artifactChars = 0;

  constructor(private readonly maxMessageBytes: number) {}

  /** Takes one event; true once the answer is complete. */
  add(event: StreamResponse): boolean {
    if (nestedDeeperThan(event, MAX_AGENT_JSON_DEPTH)) throw new AgentMessageTooDeepError("an A2A answer");
    const done = this.take(event);
    // Characters never outnumber UTF-8 bytes, so a count over the limit is a message over it.
    const held = this.artifactChars + (this.message?.length ?? 0) + (this.statusMessage?.length ?? 0);
    if (held > this.maxMessageBytes)
      throw new AgentMessageTooLargeError("an A2A answer", undefined, this.maxMessageBytes);
    return done;
  }

  private take(event: StreamResponse): boolean {
    const payload = event.payload;
    if (!payload) throw agentAnswerError("the agent sent an A2A event holding no message, task or update");
    switch (payload.$case) {
      case "message":
        this.contextId = payload.value.contextId || this.contextId;
        this.message = textOf(payload.value.parts);
        return true;
      case "task": {
        const task = payload.value;
        this.contextId = task.contextId || this.contextId;
        this.taskId = task.id;
        this.setStatus(task.status?.state, task.status?.message);
        for (const artifact of task.artifacts) this.setArtifact(artifact.artifactId, textOf(artifact.parts));
        break;
      }
      case "statusUpdate":
        this.contextId = payload.value.contextId || this.contextId;
        this.taskId = payload.value.taskId || this.taskId;
        this.setStatus(payload.value.status?.state, payload.value.status?.message);
        break;
      case "artifactUpdate": {
        const artifact = payload.value.artifact;
        if (!artifact) break;
        const earlier = payload.value.append ? (this.artifacts.get(artifact.artifactId) ?? "") : "";
        this.setArtifact(artifact.artifactId, earlier + textOf(artifact.parts));
        break;
      }
    }
    return this.state !== undefined && (ANSWERED.has(this.state) || FAILED.has(this.state));
  }

  /** The reply's text, or why there is none. */
  text(): string {
    if (this.message !== undefined) return this.message;
    const state = this.state === undefined ? "none" : stateName(this.state);
    if (this.state !== undefined && FAILED.has(this.state)) {
      const why = this.statusMessage ? `: ${shownText(this.statusMessage)}` : "";
      // Auth required is the set-up's (a token passk lacks); failed or canceled is the agent's answer.
      if (this.state === TaskState.TASK_STATE_AUTH_REQUIRED)
        throw new RemoteCallError(`the agent's A2A task ended ${state}${why}`, false);
      throw agentAnswerError(`the agent's A2A task ended ${state}${why}`);
    }
    if (this.state === undefined || !ANSWERED.has(this.state))
      throw agentAnswerError(
        `the agent's A2A stream ended before an answer (no message, and the task's last state was ${state})`,
      );
    if (this.statusMessage) return this.statusMessage;
    return [...this.artifacts.values()].filter((text) => text !== "").join("\n");
  }

  private setArtifact(id: string, text: string): void {
    this.artifactChars += text.length - (this.artifacts.get(id)?.length ?? 0);
    this.artifacts.set(id, text);
  }

  private setStatus(state: TaskState | undefined, message: A2aMessage | undefined): void {
    if (state !== undefined) this.state = state;
    // Progress notes of a working task ("Looking it up…") are not the answer; the final status's are.
    if (message && state !== undefined && (ANSWERED.has(state) || FAILED.has(state)))
      this.statusMessage = textOf(message.parts);
  }
}

/**
 * A JavaScript error raised while reading what the agent sent ("Cannot read properties of undefined"),
 * as opposed to a network failure (fetch's own TypeError carries a cause) or passk's own errors.
 */
function isMalformed(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    !(error instanceof ResponseTooLargeError) &&
    error.cause === undefined &&
    !/fetch failed|terminated/i.test(error.message)
  );
}

/** The text parts of a message or artifact, joined; files and data parts are not for the customer. */
function textOf(parts: readonly Part[]): string {
  return parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function stateName(state: TaskState): string {
  return (TaskState[state] ?? String(state)).replace(/^TASK_STATE_/, "").toLowerCase();
}
