import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { RemoteAgentError } from "../src/agents/remote/remote-call-error.js";
import { ConfigError } from "../src/core/errors.js";
import { InfrastructureError } from "../src/core/llm.js";
import { mulawDecode as decodeWire } from "../src/voice/audio.js";
import { wsVoiceAgent } from "../src/voice/agents/ws-voice-agent.js";
import { callerTicks, playCall, voiceView } from "./helpers/voice-caller.js";

const example = path.resolve(import.meta.dirname, "..", "examples", "voice-agent", "beep-agent.mjs");
const reply = 'I found this: {"status":"confirmed"}';

/** Starts the example agent on a free port; resolves with its URL once it listens. */
function startExample(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [example], {
    env: {
      ...process.env,
      PORT: "0",
      VOICE_AGENT_TOOL: "get_reservation_details",
      VOICE_AGENT_ARGS: JSON.stringify({ reservation_id: "XK42PQ" }),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (ws:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.once("exit", (code) =>
      reject(new Error(`the example agent exited (${code}) before listening: ${out}`)),
    );
  });
}

let exampleAgent: { url: string; child: ChildProcess };
beforeAll(async () => {
  exampleAgent = await startExample();
});
afterAll(() => {
  exampleAgent?.child.kill();
});

describe("ws:URL voice agents (the example agent, over real sockets and MCP)", () => {
  it("a turn: the caller speaks, the agent calls a tool over MCP, the result comes next tick, it says the answer", async () => {
    const agent = wsVoiceAgent(`ws:${exampleAgent.url}`, { env: {} });
    const caller = callerTicks([{ silence: 0.4 }, { say: "Reservation XK42PQ please" }]);
    const spokeUntil = caller.length; // the caller's last speech tick is caller.length - 1
    const played = await playCall(agent, caller, {
      ticks: 60,
      answer: () => ({ content: JSON.stringify({ status: "confirmed" }) }),
    });
    expect(played.toolCalls).toHaveLength(1);
    const { tick, call } = played.toolCalls[0]!;
    expect(call).toEqual({
      id: "ws_call_1",
      name: "get_reservation_details",
      arguments: { reservation_id: "XK42PQ" },
      requestor: "assistant",
    });
    // Its turn ended after 0.5 s of quiet: 3 ticks after the last one with speech.
    expect(tick).toBe(spokeUntil - 1 + 3);
    // The answer plays from the next tick on, for as long as the sentence (50 ms a character) lasts.
    const speaking = played.outputs.map((o) => o.containsSpeech);
    const ticksOfSpeech = Math.ceil((reply.length * 0.05) / 0.2);
    expect(speaking.indexOf(true)).toBe(tick + 1);
    expect(speaking.filter(Boolean)).toHaveLength(ticksOfSpeech);
    expect(played.outputs.map((o) => o.text).join("")).toBe(reply);
    expect(played.outputs.filter((o) => o.text !== "").length).toBeGreaterThanOrEqual(ticksOfSpeech - 1);
    // The μ-law on the wire is the agent's 440 Hz tone.
    const tone = decodeWire(played.outputs[tick + 2]!.audio);
    let crossings = 0;
    for (let i = 1; i < tone.length; i++) if (tone[i - 1]! < 0 && tone[i]! >= 0) crossings++;
    expect(Math.abs((crossings * 8000) / tone.length - 440)).toBeLessThan(10);
  });

  it("barge-in: the caller talks over the answer, the agent clears what it had not played", async () => {
    const agent = wsVoiceAgent(`ws:${exampleAgent.url}`, { env: {} });
    // "Hi" (0.1 s), quiet while the agent looks up and starts its 1.8 s answer, then the caller cuts in.
    const caller = callerTicks([{ say: "Hi" }, { silence: 1.6 }, { say: "Wait wait" }]);
    const played = await playCall(agent, caller, {
      ticks: 40,
      answer: () => ({ content: '{"status":"confirmed"}' }),
    });
    // The first answer's speech: one run of ticks, cut short when the caller cut in.
    const speaking = played.outputs.map((o) => o.containsSpeech);
    const first = speaking.indexOf(true);
    const run = speaking.slice(first).indexOf(false);
    expect(first).toBeGreaterThan(0);
    expect(run).toBeGreaterThanOrEqual(2);
    expect(run).toBeLessThan(Math.ceil((reply.length * 0.05) / 0.2));
    const said = played.outputs
      .slice(first, first + run)
      .map((o) => o.text)
      .join("");
    expect(reply.startsWith(said)).toBe(true);
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(reply.length);
    // Nothing more of it plays after the cut (the agent answers "Wait wait" later with a new lookup).
    expect(played.toolCalls).toHaveLength(2);
    expect(speaking.slice(first + run, played.toolCalls[1]!.tick + 1).some(Boolean)).toBe(false);
  });

  it("realtime clock: audio streams at the tick's pace and the turn still happens", async () => {
    const agent = wsVoiceAgent(`ws:${exampleAgent.url}`, { env: {} });
    const played = await playCall(agent, callerTicks([{ say: "Hi" }], 0.05), {
      clock: "realtime",
      tickSeconds: 0.05,
      ticks: 600,
      answer: () => ({ content: '{"status":"confirmed"}' }),
      until: (p) => p.outputs.map((o) => o.text).join("") === reply,
    });
    expect(played.toolCalls.map((c) => c.call.name)).toEqual(["get_reservation_details"]);
    expect(played.outputs.map((o) => o.text).join("")).toBe(reply);
  });
});

describe("ws:URL voice agents that break the protocol", () => {
  /** A one-call agent whose behaviour the test writes; resolves with its URL. */
  async function hostile(
    behave: (socket: WebSocket, start: Record<string, unknown>) => void,
    options: { ready?: boolean; status?: number } = {},
  ): Promise<{ url: string; close: () => void }> {
    const server = new WebSocketServer({
      host: "127.0.0.1",
      port: 0,
      ...(options.status
        ? { verifyClient: (_info, done: (ok: boolean, code?: number) => void) => done(false, options.status) }
        : {}),
    });
    server.on("connection", (socket) => {
      socket.once("message", (data) => {
        const start = JSON.parse(String(data)) as Record<string, unknown>;
        if (options.ready !== false) socket.send(JSON.stringify({ type: "ready" }));
        behave(socket, start);
      });
    });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const { port } = server.address() as { port: number };
    return {
      url: `ws://127.0.0.1:${port}/call`,
      close: () => {
        for (const client of server.clients) client.terminate();
        server.close();
      },
    };
  }

  async function failureOf(
    behave: (socket: WebSocket, start: Record<string, unknown>) => void,
    options: { ready?: boolean; status?: number; timeoutMs?: number; ticks?: number } = {},
  ): Promise<Error> {
    const agentServer = await hostile(behave, options);
    try {
      const agent = wsVoiceAgent(`ws:${agentServer.url}`, {
        env: {},
        timeoutMs: options.timeoutMs ?? 20_000,
      });
      const error = await playCall(agent, callerTicks([{ silence: 1 }]), { ticks: options.ticks ?? 3 }).then(
        () => new Error("the call did not fail"),
        (caught: unknown) => caught as Error,
      );
      return error;
    } finally {
      agentServer.close();
    }
  }

  const virtualTicks = (socket: WebSocket, onTick: (index: number) => void) => {
    let index = 0;
    socket.on("message", (_data, isBinary) => {
      if (isBinary) onTick(index++);
    });
  };

  it("each failure is the agent's, with a sentence saying what it did", async () => {
    const cases: Array<[string, (socket: WebSocket, start: Record<string, unknown>) => void, RegExp]> = [
      [
        "not JSON",
        (socket) => virtualTicks(socket, () => socket.send("hello?")),
        /^the voice agent at ws:\/\/127\.0\.0\.1:\d+\/call sent a text frame that is not JSON: hello\?; the agent's own failure/,
      ],
      [
        "unknown message",
        (socket) => virtualTicks(socket, () => socket.send(JSON.stringify({ type: "dance" }))),
        /sent a message that is not the protocol \(.*\bat type\): \{"type":"dance"\}/,
      ],
      [
        "wrong tick",
        (socket) =>
          virtualTicks(socket, (i) => socket.send(JSON.stringify({ type: "tick_done", index: i + 5 }))),
        /sent tick_done for tick 5 while tick 0 was under way/,
      ],
      [
        "closes",
        (socket) =>
          virtualTicks(socket, (i) =>
            i === 1
              ? socket.close(1011, "boom")
              : socket.send(JSON.stringify({ type: "tick_done", index: i })),
          ),
        /closed the connection mid-call \(code 1011: boom\)$/,
      ],
      [
        "reports an error",
        (socket) =>
          virtualTicks(socket, () =>
            socket.send(JSON.stringify({ type: "error", message: "my model is down" })),
          ),
        /reported its own failure: my model is down$/,
      ],
      [
        "speech too long",
        (socket) =>
          virtualTicks(socket, () =>
            socket.send(JSON.stringify({ type: "speech", text: "x".repeat(20_001) })),
          ),
        /not the protocol \(Too big: .* at text\)/,
      ],
    ];
    for (const [name, behave, expected] of cases) {
      const error = await failureOf(behave);
      expect(error, name).toBeInstanceOf(RemoteAgentError);
      expect(error.message, name).toMatch(expected);
    }
    // An agent announcing tool calls it never makes, or never answering: the timeout names what it did not do.
    const announced = await failureOf(
      (socket) =>
        virtualTicks(socket, (i) =>
          socket.send(JSON.stringify({ type: "tick_done", index: i, tool_calls: 1 })),
        ),
      { timeoutMs: 400 },
    );
    expect(announced).toBeInstanceOf(RemoteAgentError);
    expect(announced.message).toMatch(
      /did not make the 1 MCP tool call\(s\) its tick_done 0 announced within 0\.4 s/,
    );
    const silent = await failureOf(() => undefined, { ready: false, timeoutMs: 400 });
    expect(silent.message).toMatch(/did not answer start with ready within 0\.4 s/);
  });

  it("the start message gives the policy, the tools and the MCP endpoint; the MCP token is never in a message", async () => {
    let start: Record<string, unknown> = {};
    const error = await failureOf((socket, received) => {
      start = received;
      const mcp = received.mcp as { token: string };
      virtualTicks(socket, () =>
        socket.send(JSON.stringify({ type: "error", message: `token ${mcp.token}` })),
      );
    });
    expect(start).toMatchObject({
      type: "start",
      protocol: "passk-voice/1",
      clock: "virtual",
      tick_seconds: 0.2,
      sample_rate: 8000,
      encoding: "mulaw",
      bytes_per_tick: 1600,
      policy: voiceView().policy,
      tools: [{ name: "get_reservation_details" }],
      history: [],
    });
    const mcp = start.mcp as { url: string; token: string };
    expect(mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\//);
    expect(error.message).toContain("reported its own failure: token [redacted]");
    expect(error.message).not.toContain(mcp.token);
  });

  it("an agent that cannot be reached says which URL failed; a refused token is a set-up error", async () => {
    const port = await closedPort();
    const unreachable = await wsVoiceAgent(`ws:ws://127.0.0.1:${port}/call`, { env: {} })
      .start({ view: voiceView(), tickSeconds: 0.2, clock: "virtual" })
      .catch((error: unknown) => error as Error);
    expect(InfrastructureError.isInstance(unreachable)).toBe(true);
    expect(unreachable!.message).toBe(
      `could not connect to the voice agent at ws://127.0.0.1:${port}/call: connection refused (is the agent running?)`,
    );
    const locked = await hostile(() => undefined, { status: 401 });
    const refused = await wsVoiceAgent(`ws:${locked.url}`, {
      env: { PASSK_REMOTE_AGENT_TOKEN: "wrong-token-123" },
    })
      .start({ view: voiceView(), tickSeconds: 0.2, clock: "virtual" })
      .catch((error: unknown) => error as Error);
    locked.close();
    expect(ConfigError.isInstance(refused)).toBe(true);
    expect(refused!.message).toMatch(/refused passk \(HTTP 401\): set PASSK_REMOTE_AGENT_TOKEN/);
    expect(() => wsVoiceAgent("ws:http://x")).toThrow(/is not a WebSocket URL; write ws:<the agent's URL>/);
  });
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
