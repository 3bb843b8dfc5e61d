import WebSocket from "ws";
import { McpToolServer, type McpEndpoint } from "../../agents/remote/mcp-tool-server.js";
import { readRemoteAgentEnv } from "../../agents/remote/remote-agent-spec.js";
import {
  AgentMessageTooLargeError,
  DEFAULT_MAX_AGENT_MESSAGE_BYTES,
  RemoteAgentError,
  shownText,
} from "../../agents/remote/remote-call-error.js";
import { historyFor } from "../../agents/remote/remote-conversation.js";
import { ConfigError } from "../../core/errors.js";
import { InfrastructureError } from "../../core/llm.js";
import type { ToolCall } from "../../core/message.js";
import { redactKnownSecrets, redactKnownSecretsDeep, urlCredentials } from "../../llm/redact.js";
import {
  WIRE_SAMPLE_RATE,
  wireBytesPerTick,
  type VoiceAgent,
  type VoiceAgentSetup,
  type VoiceAgentTickInput,
  type VoiceAgentTickOutput,
} from "../call.js";
import { AgentPlayout } from "./playout.js";
import {
  VOICE_AGENT_PROTOCOL,
  VoiceAgentMessageSchema,
  type VoiceAgentMessage,
  type VoiceCallStart,
} from "./ws-voice-protocol.js";

export interface WsVoiceAgentOptions {
  /** Where `PASSK_MCP_*` and `PASSK_REMOTE_AGENT_TOKEN` are read. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The server of the calls' MCP endpoints; default: one per agent, configured from `env`. */
  mcpServer?: McpToolServer;
  /** How long the agent may take to connect and answer `start`, or to finish a virtual tick (ms); default 30 s. */
  timeoutMs?: number;
  /** The largest JSON message the agent may send (bytes); default 256 KiB. */
  maxMessageBytes?: number;
}

/** Audio the agent may send ahead of playback: five minutes of speech. */
const MAX_QUEUED_AUDIO_BYTES = 300 * WIRE_SAMPLE_RATE;

/** `ws:URL` read into the agent's WebSocket URL, or a ConfigError that shows the form. */
export function parseWsVoiceAgentSpec(spec: string): string {
  const url = spec.startsWith("ws:") ? spec.slice(3) : spec;
  if (!/^wss?:\/\//.test(url) || !URL.canParse(url))
    throw new ConfigError(
      `voice agent "${spec}": "${url}" is not a WebSocket URL; write ws:<the agent's URL>, e.g. ws:ws://127.0.0.1:9000/call`,
    );
  if (urlCredentials(url).length > 0)
    throw new ConfigError(
      `voice agent "${spec}": the URL carries credentials, which results would record; take them out and set PASSK_REMOTE_AGENT_TOKEN (sent as "Authorization: Bearer …")`,
    );
  return url;
}

/**
 * A team's own voice agent over passk's voice agent protocol (`ws:URL`, docs/voice-agent-protocol.md):
 * one WebSocket per call, μ-law audio frames both ways, JSON control messages, and the call's tools over
 * an MCP endpoint (the one passk's remote text agents use). The agent's MCP calls in a tick are the
 * tick's tool calls; each is answered with its result when the next tick starts.
 *
 * The agent is the system under test: a message that is not the protocol, a tick it does not finish in
 * time, or a connection it drops ends the call as the agent's error (`RemoteAgentError`), with a sentence
 * saying what it did. An agent that cannot be reached is an `InfrastructureError` naming the URL; a
 * refused token is a `ConfigError`.
 *
 * @example
 * const agent = wsVoiceAgent("ws:ws://127.0.0.1:9000/call");
 */
export function wsVoiceAgent(spec: string, options: WsVoiceAgentOptions = {}): VoiceAgent {
  const url = parseWsVoiceAgentSpec(spec);
  const env = readRemoteAgentEnv(options.env ?? process.env);
  const mcpServer =
    options.mcpServer ??
    new McpToolServer({
      ...(env.PASSK_MCP_HOST !== undefined ? { host: env.PASSK_MCP_HOST } : {}),
      ...(env.PASSK_MCP_PORT !== undefined ? { port: env.PASSK_MCP_PORT } : {}),
      ...(env.PASSK_MCP_PUBLIC_URL !== undefined ? { publicUrl: env.PASSK_MCP_PUBLIC_URL } : {}),
    });
  const settings: CallSettings = {
    url,
    mcpServer,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_AGENT_MESSAGE_BYTES,
    ...(env.PASSK_REMOTE_AGENT_TOKEN !== undefined ? { token: env.PASSK_REMOTE_AGENT_TOKEN } : {}),
  };
  let call: WsVoiceCall | undefined;
  return {
    name: "ws_voice_agent",
    model: `ws:${url}`,
    async start(setup) {
      call = new WsVoiceCall(settings);
      await call.open(setup);
    },
    tick(input) {
      if (!call) throw new Error("tick() before start(): the call has not started");
      return call.tick(input);
    },
    async stop() {
      await call?.close();
    },
  };
}

interface CallSettings {
  url: string;
  mcpServer: McpToolServer;
  timeoutMs: number;
  maxMessageBytes: number;
  token?: string;
}

/** An MCP call of the agent, waiting for the world's answer (given at the next tick). */
interface PendingCall {
  call: ToolCall;
  answer(result: { content: string; error: boolean }): void;
}

class WsVoiceCall {
  private socket: WebSocket | undefined;
  private endpoint: McpEndpoint | undefined;
  private setup: VoiceAgentSetup | undefined;
  private playout = new AgentPlayout(0);
  private utterance = 0;
  private ticks = 0;
  /** Calls that arrived in the tick under way. */
  private arrived: PendingCall[] = [];
  /** Calls handed to the orchestrator, by id, waiting for their results. */
  private readonly awaiting = new Map<string, PendingCall>();
  private callCount = 0;
  private failure: Error | undefined;
  private closed = false;
  private secrets: string[] = [];
  /** Woken on every message, MCP call or failure: waiters check their condition again. */
  private waiters: Array<() => void> = [];
  private doneTicks = new Map<number, number>();
  private ready = false;

  constructor(private readonly settings: CallSettings) {
    if (settings.token !== undefined) this.secrets.push(settings.token);
  }

  async open(setup: VoiceAgentSetup): Promise<void> {
    this.setup = setup;
    const bytesPerTick = wireBytesPerTick(setup.tickSeconds);
    this.playout = new AgentPlayout(bytesPerTick);
    const { settings } = this;
    try {
      this.endpoint = await settings.mcpServer.open({
        tools: setup.view.tools,
        callTool: (name, args, signal) => this.callTool(name, args, signal),
      });
      this.secrets.push(this.endpoint.token);
      const socket = new WebSocket(settings.url, {
        headers: settings.token !== undefined ? { authorization: `Bearer ${settings.token}` } : {},
        maxPayload: 4 * 1024 * 1024,
        handshakeTimeout: settings.timeoutMs,
      });
      this.socket = socket;
      await new Promise<void>((resolve, reject) => {
        socket.once("open", () => resolve());
        socket.once("unexpected-response", (_request, response) => {
          const status = response.statusCode ?? 0;
          response.resume();
          reject(
            status === 401 || status === 403
              ? new ConfigError(
                  `the voice agent at ${settings.url} refused passk (HTTP ${status}): set PASSK_REMOTE_AGENT_TOKEN to the token it expects`,
                )
              : new RemoteAgentError(
                  `the voice agent at ${settings.url} answered the WebSocket upgrade with HTTP ${status}; it must accept a WebSocket there`,
                ),
          );
        });
        socket.once("error", (error) => reject(this.unreachable(error)));
      });
      socket.on("message", (data, isBinary) => this.receive(data as Buffer, isBinary));
      socket.on("close", (code, reason) => {
        if (!this.closed)
          this.fail(
            new RemoteAgentError(
              `the voice agent at ${settings.url} closed the connection mid-call (code ${code}${reason.length > 0 ? `: ${shownText(reason.toString())}` : ""})`,
            ),
          );
      });
      socket.on("error", () => undefined); // the close that follows says it
      const start: VoiceCallStart = {
        type: "start",
        protocol: VOICE_AGENT_PROTOCOL,
        clock: setup.clock,
        tick_seconds: setup.tickSeconds,
        sample_rate: 8000,
        encoding: "mulaw",
        bytes_per_tick: bytesPerTick,
        policy: setup.view.policy,
        tools: setup.view.tools.map(({ name, description, parameters }) => ({
          name,
          description,
          parameters,
        })),
        history: historyFor(setup.view.history),
        mcp: { url: this.endpoint.url, token: this.endpoint.token },
      };
      socket.send(JSON.stringify(start));
      await this.waitFor(() => this.ready, "answer start with ready");
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async tick(input: VoiceAgentTickInput): Promise<VoiceAgentTickOutput> {
    const started = Date.now();
    const { socket, setup } = this;
    if (!socket || !setup) throw new Error("the voice agent's call is not open");
    if (this.failure) throw this.failure;
    // The previous tick's calls get their results as this tick starts.
    for (const result of input.toolResults) {
      const pending = this.awaiting.get(result.id);
      this.awaiting.delete(result.id);
      pending?.answer({ content: result.content ?? "", error: result.error });
    }
    const index = this.ticks++;
    socket.send(input.audio);
    if (setup.clock === "virtual") {
      await this.waitFor(() => this.doneTicks.has(index), `finish tick ${index} with tick_done`);
      const expected = this.doneTicks.get(index)!;
      this.doneTicks.delete(index);
      await this.waitFor(
        () => this.arrived.length >= expected,
        `make the ${expected} MCP tool call(s) its tick_done ${index} announced`,
      );
    } else {
      const wait = started + setup.tickSeconds * 1000 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    if (this.failure) throw this.failure;
    const calls = this.arrived.splice(0);
    for (const pending of calls) this.awaiting.set(pending.call.id, pending);
    const played = this.playout.take();
    return { ...played, toolCalls: calls.map((pending) => pending.call) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const ended = { content: "Error: the call has ended.", error: true };
    for (const pending of [...this.arrived, ...this.awaiting.values()]) pending.answer(ended);
    this.arrived = [];
    this.awaiting.clear();
    const socket = this.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      try {
        socket.send(JSON.stringify({ type: "stop" }));
      } catch {
        // The agent is gone already.
      }
      socket.close(1000, "the call is over");
    } else socket?.terminate();
    await this.endpoint?.close();
  }

  private callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ content: string; error: boolean }> {
    if (this.closed || this.failure)
      return Promise.resolve({ content: "Error: the call has ended.", error: true });
    const bytes = Buffer.byteLength(JSON.stringify(args));
    if (bytes > this.settings.maxMessageBytes) {
      const error = new AgentMessageTooLargeError(
        `a tool call (${name.slice(0, 100)}) with arguments`,
        bytes,
        this.settings.maxMessageBytes,
      );
      this.fail(error);
      return Promise.resolve({ content: `Error: ${error.message}`, error: true });
    }
    return new Promise((resolve) => {
      const pending: PendingCall = {
        call: {
          id: `ws_call_${++this.callCount}`,
          name,
          arguments: redactKnownSecretsDeep(args, this.secrets),
          requestor: "assistant",
        },
        answer: resolve,
      };
      signal.addEventListener(
        "abort",
        () => {
          this.arrived = this.arrived.filter((p) => p !== pending);
          resolve({ content: "Error: the call has ended.", error: true });
        },
        { once: true },
      );
      this.arrived.push(pending);
      this.wake();
    });
  }

  private receive(data: Buffer, isBinary: boolean): void {
    if (this.failure || this.closed) return;
    if (isBinary) {
      if (!this.ready) return void this.fail(this.violation("sent audio before answering start with ready"));
      if (this.playout.queuedBytes + data.length > MAX_QUEUED_AUDIO_BYTES)
        return void this.fail(
          this.violation(
            `sent more than ${MAX_QUEUED_AUDIO_BYTES / WIRE_SAMPLE_RATE} s of audio ahead of playback`,
          ),
        );
      this.playout.addAudio(`ws_${this.utterance}`, new Uint8Array(data));
      return;
    }
    if (data.length > this.settings.maxMessageBytes)
      return void this.fail(
        new AgentMessageTooLargeError("a message", data.length, this.settings.maxMessageBytes),
      );
    let json: unknown;
    try {
      json = JSON.parse(data.toString("utf8"));
    } catch {
      return void this.fail(
        this.violation(`sent a text frame that is not JSON: ${shownText(data.toString("utf8"))}`),
      );
    }
    const parsed = VoiceAgentMessageSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      return void this.fail(
        this.violation(
          `sent a message that is not the protocol (${issue.message}${where}): ${shownText(JSON.stringify(json))}`,
        ),
      );
    }
    this.handle(parsed.data);
  }

  private handle(message: VoiceAgentMessage): void {
    switch (message.type) {
      case "ready":
        if (this.ready) return void this.fail(this.violation("sent ready twice"));
        this.ready = true;
        break;
      case "speech":
        this.playout.finish(`ws_${this.utterance}`);
        this.utterance++;
        this.playout.addText(`ws_${this.utterance}`, redactKnownSecrets(message.text, this.secrets));
        break;
      case "clear":
        this.playout.interrupt();
        this.utterance++;
        break;
      case "tick_done":
        if (this.setup?.clock !== "virtual")
          return void this.fail(
            this.violation("sent tick_done on a realtime call (only virtual calls have them)"),
          );
        if (message.index !== this.ticks - 1 || this.doneTicks.has(message.index))
          return void this.fail(
            this.violation(
              `sent tick_done for tick ${message.index} while tick ${this.ticks - 1} was under way (one tick_done per audio frame, counted from 0)`,
            ),
          );
        this.doneTicks.set(message.index, message.tool_calls);
        break;
      case "error":
        return void this.fail(
          new RemoteAgentError(
            `the voice agent at ${this.settings.url} reported its own failure: ${shownText(redactKnownSecrets(message.message, this.secrets))}`,
          ),
        );
    }
    this.wake();
  }

  /** Waits until `condition` holds, the call fails, or the agent takes longer than the timeout to `what`. */
  private async waitFor(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + this.settings.timeoutMs;
    while (!condition()) {
      if (this.failure) throw this.failure;
      const left = deadline - Date.now();
      if (left <= 0)
        throw this.fail(this.violation(`did not ${what} within ${this.settings.timeoutMs / 1000} s`));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private fail(error: Error): Error {
    this.failure ??= error;
    this.wake();
    return this.failure;
  }

  private violation(what: string): RemoteAgentError {
    return new RemoteAgentError(
      `the voice agent at ${this.settings.url} ${redactKnownSecrets(what, this.secrets)}; the agent's own failure — see docs/voice-agent-protocol.md`,
    );
  }

  private unreachable(error: Error): Error {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ECONNREFUSED"
        ? "connection refused (is the agent running?)"
        : code === "ENOTFOUND" || code === "EAI_AGAIN"
          ? `the host name does not resolve (${code})`
          : /handshake has timed out/i.test(error.message)
            ? `no WebSocket handshake within ${this.settings.timeoutMs / 1000} s`
            : error.message;
    return new InfrastructureError(
      `could not connect to the voice agent at ${this.settings.url}: ${reason}`,
      1,
    );
  }
}
