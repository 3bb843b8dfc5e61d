import { AGENT_STOP_TOKEN, type AgentView } from "../../core/agent.js";
import { ConfigError } from "../../core/errors.js";
import { InfrastructureError } from "../../core/llm.js";
import type { AssistantMessage, Message, ToolMessage } from "../../core/message.js";
import { redactKnownSecretsDeep, redactSecrets } from "../../llm/redact.js";
import { retryDelayMs, type RetryOptions } from "../../llm/retry.js";
import type { McpEndpoint, McpToolServer } from "./mcp-tool-server.js";
import type { HistoryMessage } from "./protocol.js";
import {
  AgentMessageTooDeepError,
  AgentMessageTooLargeError,
  MAX_AGENT_JSON_DEPTH,
  RemoteAgentError,
  RemoteCallError,
  connectionFailure,
  nestedDeeperThan,
} from "./remote-call-error.js";
import type { RemoteAgentTransport, RemoteConversationTransport } from "./remote-transport.js";

/** What every conversation of one remote agent shares. */
export interface SharedSettings {
  spec: string;
  transport: RemoteAgentTransport;
  mcpServer: McpToolServer;
  timeoutMs: number;
  retry: RetryOptions;
  /** Removed from every error text and reply (the agent's token; each conversation adds its MCP token). */
  secrets: readonly string[];
  /** The largest reply text or tool-call arguments (as JSON) the agent may send, in UTF-8 bytes. */
  maxMessageBytes: number;
}

/** A tool call the agent made over MCP, waiting for the world's answer. */
interface PendingCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  answer(result: { content: string; error: boolean }): void;
}

type TurnEvent =
  { kind: "call"; call: PendingCall } | { kind: "reply"; text: string } | { kind: "failure"; error: unknown };

interface Turn {
  /** The agent is answering: its MCP calls belong to this turn. */
  active: boolean;
  /** Calls of this turn handed to the orchestrator: they reached the world, so the turn cannot be re-sent. */
  handed: number;
  /** Restarts the inactivity timer of the attempt in flight. */
  touch(): void;
}

const NOT_YOUR_TURN =
  "Error: passk is not waiting for your reply. Call tools while you answer a customer message, before you reply.";
const ENDED = "Error: the conversation has ended.";

/**
 * One conversation with a remote agent, as the orchestrator's agent session sees it. The agent's MCP
 * calls and its reply arrive as events of the turn; `respond` hands them to the orchestrator one at a
 * time (each call as an assistant message of its own, in arrival order), and gives each call the
 * world's answer when the orchestrator brings it.
 */
export class RemoteConversation {
  private endpoint: McpEndpoint | undefined;
  private remote: RemoteConversationTransport | undefined;
  private readonly events: TurnEvent[] = [];
  private wake: (() => void) | undefined;
  private readonly awaiting = new Map<string, PendingCall>();
  private turn: Turn | undefined;
  private calls = 0;
  private spoke = false;
  private closed = false;
  /** Aborted when the conversation ends (or passk stops it): every call in flight stops. */
  private readonly lifetime = new AbortController();
  private secrets: string[];

  constructor(
    private readonly shared: SharedSettings,
    private readonly init: AgentView,
  ) {
    this.secrets = [...shared.secrets];
  }

  async open(): Promise<void> {
    const { init, shared } = this;
    if (init.signal?.aborted) throw init.signal.reason;
    init.signal?.addEventListener("abort", () => void this.end(), { once: true });
    try {
      this.endpoint = await shared.mcpServer.open({
        tools: init.tools,
        callTool: (name, args, signal) => this.callTool(name, args, signal),
        onActivity: () => this.turn?.touch(),
      });
      const { url, token } = this.endpoint;
      this.secrets.push(token);
      this.remote = await this.withRetries(
        "starting the conversation",
        (signal) =>
          shared.transport.start(
            {
              policy: init.policy,
              tools: init.tools.map(({ name, description, parameters }) => ({
                name,
                description,
                parameters,
              })),
              mcp: { url, token },
              history: historyFor(init.history),
              solo: init.solo,
            },
            { signal },
          ),
        () => true,
        true,
      );
    } catch (error) {
      await this.end();
      throw error;
    }
  }

  async respond(incoming: readonly Message[]): Promise<AssistantMessage> {
    if (this.closed) throw this.endedError();
    for (const message of incoming) if (message.role === "tool") this.deliver(message);
    const customer = incoming.findLast(
      (m) => m.role === "user" && !(m.tool_calls?.length ?? 0) && typeof m.content === "string",
    );
    if (customer) this.begin(customer.content ?? "");
    else if (!this.spoke && this.init.solo) this.begin(this.init.ticket ?? "");
    else if (!this.turn?.active && this.events.length === 0)
      throw new ConfigError(
        `the task's message history ends with tool results, which ${this.shared.spec} cannot be handed without a customer message; remove them from the task's message_history`,
      );
    this.spoke = true;
    return this.next();
  }

  /** Ends the conversation (idempotent): the endpoint closes, pending MCP calls get an error, the agent is told. */
  async end(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifetime.abort();
    for (const call of this.awaiting.values()) call.answer({ content: ENDED, error: true });
    this.awaiting.clear();
    this.dropQueuedCalls(ENDED);
    this.wake?.();
    await Promise.all([this.endpoint?.close(), this.remote?.end()]);
  }

  /** An MCP `tools/call` from the agent: queued for the trajectory while the agent has the turn. */
  private callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ content: string; error: boolean }> {
    if (this.closed) return Promise.resolve({ content: ENDED, error: true });
    const turn = this.turn;
    if (!turn?.active) return Promise.resolve({ content: NOT_YOUR_TURN, error: true });
    turn.touch();
    const bytes = Buffer.byteLength(JSON.stringify(args));
    const what = `a tool call (${name.slice(0, 100)}) with arguments`;
    const refused =
      bytes > this.shared.maxMessageBytes
        ? new AgentMessageTooLargeError(what, bytes, this.shared.maxMessageBytes)
        : nestedDeeperThan(args, MAX_AGENT_JSON_DEPTH)
          ? new AgentMessageTooDeepError(what)
          : undefined;
    if (refused) {
      const error = refused;
      turn.active = false;
      this.dropQueuedCalls(ENDED);
      this.push({ kind: "failure", error });
      return Promise.resolve({ content: `Error: ${error.message}`, error: true });
    }
    return new Promise((resolve) => {
      const call: PendingCall = { id: `mcp_call_${this.calls++}`, name, arguments: args, answer: resolve };
      const event: TurnEvent = { kind: "call", call };
      // A call whose request went away before it was put in the trajectory never reaches the world.
      signal.addEventListener(
        "abort",
        () => {
          const index = this.events.indexOf(event);
          if (index >= 0) this.events.splice(index, 1);
          this.awaiting.delete(call.id);
          resolve({ content: ENDED, error: true });
        },
        { once: true },
      );
      this.push(event);
    });
  }

  /** The world's answer to a call goes back to the agent as the MCP result. */
  private deliver(message: ToolMessage): void {
    const call = this.awaiting.get(message.id);
    if (!call) return;
    this.awaiting.delete(message.id);
    this.turn?.touch();
    call.answer({ content: message.content ?? "", error: message.error });
  }

  /** Sends the customer's message; the turn's MCP calls and the reply arrive as events. */
  private begin(content: string): void {
    const turn: Turn = { active: true, handed: 0, touch: () => undefined };
    this.turn = turn;
    this.withRetries(
      "answering",
      (signal, touch) => {
        turn.touch = touch;
        return this.remote!.send(content, { signal, onActivity: touch });
      },
      () => turn.handed === 0,
      false,
    ).then(
      (text) => {
        if (!turn.active) return; // the turn already failed (a tool call over the size limit)
        turn.active = false;
        const bytes = Buffer.byteLength(text);
        if (bytes > this.shared.maxMessageBytes)
          this.push({
            kind: "failure",
            error: new AgentMessageTooLargeError("a reply", bytes, this.shared.maxMessageBytes),
          });
        else if (text.trim() === "")
          this.push({
            kind: "failure",
            error: new RemoteAgentError(
              `${this.shared.spec} answered an empty reply; the agent's own failure — scored 0 and counted in pass^k`,
            ),
          });
        else this.push({ kind: "reply", text });
      },
      (error: unknown) => {
        if (!turn.active) return;
        turn.active = false;
        this.dropQueuedCalls("Error: passk abandoned this turn: the agent's answer failed.");
        this.push({ kind: "failure", error });
      },
    );
  }

  /** The next message for the orchestrator: a tool call, the reply, or the turn's failure (thrown). */
  private async next(): Promise<AssistantMessage> {
    while (this.events.length === 0) {
      if (this.closed) throw this.endedError();
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    const event = this.events.shift()!;
    if (event.kind === "failure") {
      await this.end();
      throw event.error;
    }
    if (event.kind === "reply") {
      const content = this.redact(event.text);
      // A solo agent's stop ends the conversation in every protocol.
      if (this.init.solo && content.includes(AGENT_STOP_TOKEN)) void this.end();
      return { role: "assistant", content };
    }
    const { call } = event;
    this.awaiting.set(call.id, call);
    if (this.turn) this.turn.handed++;
    return {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: call.id,
          name: call.name,
          // An agent echoing its tokens into a tool call must not get them into the trajectory.
          arguments: redactKnownSecretsDeep(call.arguments, this.secrets),
          requestor: "assistant",
        },
      ],
    };
  }

  private push(event: TurnEvent): void {
    this.events.push(event);
    this.wake?.();
  }

  /** Calls queued but not yet in the trajectory are answered with an error and forgotten. */
  private dropQueuedCalls(content: string): void {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const event = this.events[i]!;
      if (event.kind !== "call") continue;
      this.events.splice(i, 1);
      event.call.answer({ content, error: true });
    }
  }

  /**
   * Runs one exchange with the agent, trying again after transport failures (refused or reset
   * connections, 408/429/502/503/504, no sign of life for `timeoutMs`) with the model calls' backoff
   * (`--max-retries`), while `retryable()` allows it; one that survives ends the conversation as an
   * infrastructure error. An error *answer* of the agent (a 500, a JSON-RPC error, a malformed reply) is
   * its own failure, never retried (a RemoteAgentError). At the start, 401/403/404 mean the set-up is
   * wrong (a ConfigError, which stops the run).
   */
  private async withRetries<T>(
    what: string,
    attempt: (signal: AbortSignal, touch: () => void) => Promise<T>,
    retryable: () => boolean,
    starting: boolean,
  ): Promise<T> {
    const { retry, timeoutMs, spec } = this.shared;
    for (let attemptNumber = 1; ; attemptNumber++) {
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      // A late sign of life (an MCP request after the attempt ended) must not start a timer again.
      const touch = () => {
        if (settled) return;
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(), timeoutMs);
        timer.unref();
      };
      touch();
      let failure: RemoteCallError;
      try {
        return await attempt(AbortSignal.any([controller.signal, this.lifetime.signal]), touch);
      } catch (error) {
        if (this.init.signal?.aborted) throw this.init.signal.reason ?? error;
        if (this.closed) throw this.endedError();
        if (
          ConfigError.isInstance(error) ||
          error instanceof AgentMessageTooLargeError ||
          error instanceof AgentMessageTooDeepError
        )
          throw error;
        failure = controller.signal.aborted
          ? new RemoteCallError(`no sign of life for ${timeoutMs / 1000} s (--timeout)`, true)
          : error instanceof RemoteCallError
            ? error
            : new RemoteCallError(connectionFailure(error), true);
      } finally {
        settled = true;
        clearTimeout(timer);
      }
      const status = failure.details.status;
      const reason = this.redact(failure.message);
      if (starting && (status === 401 || status === 403 || status === 404))
        throw new ConfigError(
          status === 404
            ? `${spec} answered 404 when passk started a conversation (${reason}); check the URL`
            : `${spec} refused passk (${reason}); set PASSK_REMOTE_AGENT_TOKEN to the bearer token it expects`,
        );
      if (failure.details.agentFault) {
        this.dropQueuedCalls("Error: passk abandoned this turn: the agent's answer was an error.");
        throw new RemoteAgentError(
          `${spec} answered with an error while ${what} (${reason}); the agent's own failure — scored 0 and counted in pass^k`,
        );
      }
      this.dropQueuedCalls(
        "Error: passk abandoned this attempt: the agent's answer failed; it may be sent again.",
      );
      if (!retryable())
        throw new InfrastructureError(
          `${spec} failed while ${what} after its tool calls had reached the world (${reason}), so the message cannot be sent again; not the agent's score — the conversation ends as an infrastructure error and is run again on resume`,
          attemptNumber,
        );
      if (!failure.retryable || attemptNumber >= retry.maxAttempts)
        throw new InfrastructureError(
          `${spec} failed while ${what}, ${attemptNumber} attempt${attemptNumber === 1 ? "" : "s"} (last: ${reason}); not the agent's score — the conversation ends as an infrastructure error and is run again on resume`,
          attemptNumber,
        );
      const retryAfterMs = failure.details.retryAfterMs;
      // As for model calls: a wait longer than passk's ceiling is not sat through (nor overflows a timer).
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs)
        throw new InfrastructureError(
          `${spec} asked passk to wait ${Math.ceil(retryAfterMs / 1000)} s (Retry-After) while ${what}, longer than the ${retry.maxRetryAfterMs / 1000} s passk waits (last: ${reason}); not the agent's score — the conversation ends as an infrastructure error and is run again on resume`,
          attemptNumber,
        );
      const delayMs = retryDelayMs(attemptNumber, retry, retryAfterMs);
      retry.onRetry?.({ attempt: attemptNumber, delayMs, reason });
      try {
        await retry.sleep(delayMs, this.lifetime.signal);
      } catch {
        if (this.init.signal?.aborted) throw this.init.signal.reason;
        throw this.endedError();
      }
    }
  }

  private redact(text: string): string {
    return redactSecrets(text, this.secrets);
  }

  private endedError(): Error {
    return this.init.signal?.aborted && this.init.signal.reason instanceof Error
      ? this.init.signal.reason
      : new Error(`the conversation with ${this.shared.spec} has ended`);
  }
}

/**
 * The conversation so far as the agent is told it. A customer message at the end is left out: passk
 * sends it as the first message, which the agent answers.
 */
export function historyFor(history: readonly Message[]): HistoryMessage[] {
  const out: HistoryMessage[] = [];
  for (const message of history) {
    if (message.role === "assistant")
      out.push({
        role: "assistant",
        content: message.content ?? null,
        ...(message.tool_calls?.length
          ? {
              tool_calls: message.tool_calls.map(({ id, name, arguments: args }) => ({
                id,
                name,
                arguments: args,
              })),
            }
          : {}),
      });
    else if (message.role === "user" && !(message.tool_calls?.length ?? 0))
      out.push({ role: "user", content: message.content ?? null });
    else if (message.role === "tool")
      out.push({ role: "tool", id: message.id, content: message.content ?? null, error: message.error });
  }
  if (out.at(-1)?.role === "user") out.pop();
  return out;
}
