import { mulaw } from "alawmulaw";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentView } from "../../core/agent.js";
import type { ToolMessage } from "../../core/message.js";
import { SystemFailure } from "../../core/system-failure.js";
import { speakTestSpeech } from "../../testing/speech-codec.js";
import {
  startMockRealtimeServer,
  type MockRealtimeBrain,
  type MockRealtimeServer,
  type MockRealtimeServerOptions,
} from "../../testing/mock-realtime-server.js";
import { WIRE_SAMPLE_RATE, silentTick, wireBytesPerTick, type VoiceAgentTickOutput } from "../call.js";
import { OpenAiRealtimeAgent, type OpenAiRealtimeAgentOptions } from "./openai-realtime.js";

// The adapter against the mock realtime server over real sockets, the caller's words in test speech:
// these tests are about the protocol (turns, tool calls, barge-in, usage, failures, clocks).

const TICK = 0.2;
const KEY = "sk-test-4f9c2e7a1b";

const view: AgentView = {
  policy: "Help the caller with their reservation.",
  tools: [
    {
      name: "get_user_details",
      description: "Get a user's details.",
      parameters: { type: "object", properties: { user_id: { type: "string" } }, required: ["user_id"] },
    },
  ],
  solo: false,
  seed: 1,
  history: [{ role: "assistant", content: "Hi! How can I help you today?" }],
};

const ANSWER = "Thank you, I found your profile and both of your reservations are confirmed for next week.";

/** Looks the caller up on their first turn, then reads the answer out; later turns get a short reply. */
function scriptedBrain(): MockRealtimeBrain {
  let turns = 0;
  return {
    respond: (trigger) => {
      if (trigger.kind === "tool_results") return { say: ANSWER };
      turns++;
      return turns === 1
        ? { toolCalls: [{ name: "get_user_details", arguments: { user_id: "raj_sanchez_7340" } }] }
        : { say: "Sure." };
    },
  };
}

const FIRST = "Hello, I need help.";
const BARGE_IN = [
  [0, FIRST],
  [14, "Wait."],
] as const;

const servers: MockRealtimeServer[] = [];
async function server(options: Partial<MockRealtimeServerOptions> = {}): Promise<MockRealtimeServer> {
  const started = await startMockRealtimeServer({
    brain: scriptedBrain,
    apiKey: KEY,
    ...options,
  });
  servers.push(started);
  return started;
}
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function agent(url: string, options: Partial<OpenAiRealtimeAgentOptions> = {}): OpenAiRealtimeAgent {
  return new OpenAiRealtimeAgent({ apiKey: KEY, url, model: "gpt-realtime", timeoutMs: 20_000, ...options });
}

/** The caller's side of a call on the wire: each `[tick, text]` said from that tick on, silence between. */
function callerWire(
  turns: ReadonlyArray<readonly [number, string]>,
  ticks: number,
  tickSeconds: number,
): Uint8Array {
  const perTick = wireBytesPerTick(tickSeconds);
  const wire = new Uint8Array(ticks * perTick).fill(0xff);
  for (const [tick, text] of turns)
    wire.set(mulaw.encode(speakTestSpeech(text, WIRE_SAMPLE_RATE)), tick * perTick);
  return wire;
}

/**
 * A call: the caller says `turns`; each tick's tool calls are answered at the next tick with `result`.
 */
async function runCall(
  voice: OpenAiRealtimeAgent,
  ticks: number,
  turns: ReadonlyArray<readonly [number, string]>,
  result: (name: string) => string = () => '{"user_id": "raj_sanchez_7340", "name": "Raj Sanchez"}',
): Promise<VoiceAgentTickOutput[]> {
  await voice.start({ view, tickSeconds: TICK, clock: "virtual" });
  const outputs: VoiceAgentTickOutput[] = [];
  let toolResults: ToolMessage[] = [];
  const wire = callerWire(turns, ticks, TICK);
  const perTick = wireBytesPerTick(TICK);
  try {
    for (let t = 0; t < ticks; t++) {
      const out = await voice.tick({ audio: wire.slice(t * perTick, (t + 1) * perTick), toolResults });
      toolResults = out.toolCalls.map((call) => ({
        id: call.id,
        role: "tool" as const,
        content: result(call.name),
        requestor: "assistant" as const,
        error: false,
      }));
      outputs.push(out);
    }
  } finally {
    await voice.stop();
  }
  return outputs;
}

describe("OpenAI Realtime adapter against the mock server", () => {
  it("configures the session, makes the tool call after the caller's turn, plays the answer with its transcript and records usage", async () => {
    const mock = await server();
    const outputs = await runCall(agent(mock.url), 40, [[0, FIRST]]);
    const call = mock.calls[0]!;
    expect(call.query.model).toBe("gpt-realtime");
    expect(call.session).toMatchObject({
      type: "realtime",
      audio: { input: { format: { type: "audio/pcmu" } }, output: { format: { type: "audio/pcmu" } } },
    });
    expect(String(call.session.instructions)).toContain("Help the caller with their reservation.");
    expect(call.events.slice(0, 3)).toEqual([
      "session.update",
      "conversation.item.create",
      "input_audio_buffer.append",
    ]);

    // The caller's turn (0.95 s), heard once its 500 ms of silence passed.
    expect(call.heard).toEqual([FIRST]);
    const withCall = outputs.findIndex((out) => out.toolCalls.length > 0);
    expect(withCall).toBeGreaterThanOrEqual(7);
    expect(withCall).toBeLessThanOrEqual(9);
    expect(outputs[withCall]!.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        name: "get_user_details",
        arguments: { user_id: "raj_sanchez_7340" },
        requestor: "assistant",
      },
    ]);
    // The tool result reached the server with the call's id, and the answer followed at once.
    expect(call.toolOutputs).toEqual([
      {
        callId: outputs[withCall]!.toolCalls[0]!.id,
        name: "get_user_details",
        output: expect.stringContaining("Raj Sanchez"),
      },
    ]);
    const speaking = outputs.map((out) => out.containsSpeech);
    const first = speaking.indexOf(true);
    expect(first).toBe(withCall + 1);
    const spokenTicks = speaking.filter(Boolean).length;
    expect(spokenTicks).toBe(Math.ceil((ANSWER.length * 50) / 200));
    expect(outputs.map((out) => out.text).join("")).toBe(ANSWER);
    // Text spread over the ticks its audio covers, not all at once.
    const texts = outputs.slice(first, first + spokenTicks).map((out) => out.text);
    expect(texts.filter((text) => text.length > 0).length).toBeGreaterThan(spokenTicks / 2);
    for (const out of outputs) expect(out.audio).toHaveLength(wireBytesPerTick(TICK));
    expect(outputs[first]!.audio.some((b) => b !== 0xff)).toBe(true);

    const usage = outputs.flatMap((out) => out.usage ?? []);
    expect(usage).toHaveLength(2);
    expect(usage.every((u) => u.source === "openai-realtime" && u.model === "openai:gpt-realtime")).toBe(
      true,
    );
    expect(usage[0]!.inputAudioTokens).toBeGreaterThanOrEqual(10);
    expect(usage[0]!.inputAudioTokens).toBeLessThanOrEqual(25);
    expect(usage[1]!.outputAudioTokens).toBe(ANSWER.length);
  });

  it("drops the rest of the answer when the caller speaks over it, and tells the server how much was heard", async () => {
    const mock = await server();
    // The caller cuts in at tick 14, a few ticks into the answer.
    const outputs = await runCall(agent(mock.url), 40, BARGE_IN);
    const first = outputs.findIndex((out) => out.containsSpeech);
    expect(first).toBeLessThan(13);
    const truncations = mock.calls[0]!.truncations;
    expect(truncations).toHaveLength(1);
    expect(truncations[0]!.audioEndMs).toBe((14 - first) * 200);
    const spoken = outputs.map((out) => out.containsSpeech);
    expect(spoken.slice(first, 14).every(Boolean)).toBe(true);
    expect(spoken[14]).toBe(false);
    expect(mock.calls[0]!.heard).toEqual([FIRST, "Wait."]);
    // The caller's second turn gets its short reply after its own silence; nothing of the old answer.
    const text = outputs.map((out) => out.text).join("");
    expect(text.startsWith(ANSWER.slice(0, 10))).toBe(true);
    expect(text).not.toContain(ANSWER);
    expect(text.endsWith("Sure.")).toBe(true);
    const heardAgain = text.slice(0, text.length - "Sure.".length);
    expect(ANSWER.startsWith(heardAgain)).toBe(true);
  });

  it("is deterministic on the virtual clock: two calls give identical ticks", async () => {
    const mock = await server();
    const a = await runCall(agent(mock.url), 30, BARGE_IN);
    const b = await runCall(agent(mock.url), 30, BARGE_IN);
    const shown = (outputs: VoiceAgentTickOutput[]): string =>
      JSON.stringify(outputs.map((out) => ({ ...out, audio: Buffer.from(out.audio).toString("base64") })));
    expect(shown(a)).toBe(shown(b));
    expect(a.some((out) => out.containsSpeech)).toBe(true);
  });

  it("keeps wall-clock time on the realtime clock and plays what arrived meanwhile", async () => {
    const mock = await server({
      brain: () => ({
        respond: (trigger) =>
          trigger.kind === "tool_results"
            ? { say: "Done." }
            : { toolCalls: [{ name: "get_user_details", arguments: { user_id: "raj_sanchez_7340" } }] },
      }),
    });
    const voice = agent(mock.url);
    const tickSeconds = 0.1;
    await voice.start({ view, tickSeconds, clock: "realtime" });
    const outputs: VoiceAgentTickOutput[] = [];
    let toolResults: ToolMessage[] = [];
    const began = performance.now();
    const ticks = 30;
    const wire = callerWire([[0, "Hello."]], ticks, tickSeconds);
    const perTick = wireBytesPerTick(tickSeconds);
    try {
      for (let t = 0; t < ticks; t++) {
        const audio = wire.slice(t * perTick, (t + 1) * perTick);
        const out = await voice.tick({ audio, toolResults });
        toolResults = out.toolCalls.map((call) => ({
          id: call.id,
          role: "tool" as const,
          content: "{}",
          requestor: "assistant" as const,
          error: false,
        }));
        outputs.push(out);
      }
    } finally {
      await voice.stop();
    }
    // Never faster than the wall clock (a loaded machine is only ever slower).
    expect(performance.now() - began).toBeGreaterThanOrEqual((ticks - 1) * tickSeconds * 1000 - 5);
    const withCall = outputs.findIndex((out) => out.toolCalls.length > 0);
    expect(withCall).toBeGreaterThanOrEqual(7);
    expect(outputs.slice(withCall + 1).some((out) => out.containsSpeech)).toBe(true);
    expect(outputs.map((out) => out.text).join("")).toBe("Done.");
    for (const out of outputs) expect(out.audio).toHaveLength(wireBytesPerTick(tickSeconds));
  });

  it("speaks Azure's dialect: api-key header, the deployment in the URL", async () => {
    const mock = await server();
    const outputs = await runCall(
      agent(`${mock.url}?api-version=2025-08-28&deployment=realtime-prod`, {
        auth: "api-key",
        provider: "azure",
      }),
      10,
      [[0, FIRST]],
    );
    expect(mock.calls[0]!.query).toEqual({ "api-version": "2025-08-28", deployment: "realtime-prod" });
    expect(outputs.some((out) => out.toolCalls.length > 0)).toBe(true);
  });

  it("speaks xAI's dialect: voice and turn detection at the session's top level", async () => {
    const mock = await server();
    const outputs = await runCall(agent(mock.url, { provider: "xai", model: "grok-voice" }), 10, [
      [0, FIRST],
    ]);
    const { session, query } = mock.calls[0]!;
    expect(query.model).toBe("grok-voice");
    expect(session).toMatchObject({ voice: "ara", turn_detection: { type: "server_vad" } });
    expect(session.type).toBeUndefined();
    const withCall = outputs.find((out) => out.toolCalls.length > 0);
    expect(withCall?.toolCalls[0]?.name).toBe("get_user_details");
  });
});

describe("OpenAI Realtime adapter failures", () => {
  async function failure(run: () => Promise<unknown>): Promise<SystemFailure> {
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SystemFailure);
    return error as SystemFailure;
  }

  it("a refused key is a system failure that names the endpoint, never the key", async () => {
    const mock = await server();
    const wrong = "sk-wrong-9d8c7b6a5f";
    const error = await failure(() =>
      agent(mock.url, { apiKey: wrong }).start({ view, tickSeconds: TICK, clock: "virtual" }),
    );
    expect(error.message).toMatch(/refused the API key \(HTTP 401\)/);
    expect(error.message).toContain(new URL(mock.url).host);
    expect(error.message).not.toContain(wrong);
    expect(JSON.stringify(error)).not.toContain(wrong);
  });

  it("asks the session to transcribe the caller; each transcription comes back as heard speech, timed in the caller's audio, its usage priced as the agent's", async () => {
    const mock = await server({ billTranscription: true });
    // The caller's first turn from tick 0, a second from tick 20 (after the answer began: a barge-in).
    const outputs = await runCall(agent(mock.url), 40, [
      [0, FIRST],
      [20, "Wait."],
    ]);
    expect(mock.calls[0]!.session).toMatchObject({
      audio: { input: { transcription: { model: "gpt-4o-transcribe", language: "en" } } },
    });
    const heard = outputs.flatMap((out) => out.heard ?? []);
    expect(heard.map((h) => h.text)).toEqual([FIRST, "Wait."]);
    // Each from the VAD's start (300 ms of padding before the speech, never before the audio began) to
    // its stop, 500 ms of silence after the last symbol, within the tick that ended the turn.
    const firstEnd = FIRST.length * 50 + 500;
    expect(heard[0]!.startMs).toBe(0);
    expect(heard[0]!.endMs).toBeGreaterThanOrEqual(firstEnd);
    expect(heard[0]!.endMs).toBeLessThan(firstEnd + 200);
    expect(heard[1]!.startMs).toBe(20 * 200 - 300);
    // Reported in the tick that heard the turn end, not before.
    const tickOf = (text: string) => outputs.findIndex((out) => out.heard?.some((h) => h.text === text));
    expect(tickOf(FIRST)).toBe(Math.ceil(heard[0]!.endMs / 200) - 1);
    const usage = outputs.flatMap((out) => out.usage ?? []).filter((u) => u.source === "transcription");
    expect(usage).toEqual([
      {
        source: "transcription",
        model: "openai:gpt-4o-transcribe",
        inputAudioTokens: expect.any(Number),
        inputTextTokens: 0,
        outputTextTokens: Math.ceil(FIRST.length / 4),
      },
      {
        source: "transcription",
        model: "openai:gpt-4o-transcribe",
        inputAudioTokens: expect.any(Number),
        inputTextTokens: 0,
        outputTextTokens: Math.ceil("Wait.".length / 4),
      },
    ]);
    expect(usage[0]!.inputAudioTokens).toBe(Math.round(heard[0]!.endMs / 100));
  });

  it("no transcription when told none (or on another provider, unless asked): nothing heard is reported", async () => {
    for (const options of [{ inputTranscription: null }, { provider: "azure", auth: "api-key" as const }]) {
      const mock = await server();
      const outputs = await runCall(agent(mock.url, options), 12, [[0, FIRST]]);
      expect(mock.calls[0]!.heard).toEqual([FIRST]);
      const input = (mock.calls[0]!.session as { audio: { input: Record<string, unknown> } }).audio.input;
      expect(input.transcription).toBeUndefined();
      expect(outputs.flatMap((out) => out.heard ?? [])).toEqual([]);
    }
  });

  it("a server that is down is a system failure; a key in the URL stays out of the message", async () => {
    const mock = await server();
    await mock.close();
    const error = await failure(() =>
      agent(`${mock.url}?api-key=${KEY}`).start({ view, tickSeconds: TICK, clock: "virtual" }),
    );
    expect(error.message).toMatch(/could not reach .* the connection was refused/);
    expect(error.message).not.toContain(KEY);
  });

  it("an error event from the server is a system failure with its message", async () => {
    const mock = await server();
    const voice = agent(mock.url);
    await voice.start({ view, tickSeconds: TICK, clock: "virtual" });
    const stale: ToolMessage = {
      id: "call_9999",
      role: "tool",
      content: "{}",
      requestor: "assistant",
      error: false,
    };
    const error = await failure(() => voice.tick({ audio: silentTick(TICK), toolResults: [stale] }));
    expect(error.message).toMatch(
      /reported an error \(invalid_tool_call_id\): Tool call ID 'call_9999' not found/,
    );
    await voice.stop();
  });

  it("what looks like a key in a provider's error is left out", async () => {
    const mock = await server();
    const voice = agent(mock.url);
    await voice.start({ view, tickSeconds: TICK, clock: "virtual" });
    const echoed: ToolMessage = {
      id: "sk-proj-7c1e",
      role: "tool",
      content: "{}",
      requestor: "assistant",
      error: false,
    };
    const error = await failure(() => voice.tick({ audio: silentTick(TICK), toolResults: [echoed] }));
    expect(error.message).toMatch(/Tool call ID '\[redacted\]' not found/);
    expect(error.message).not.toContain("7c1e");
    await voice.stop();
  });

  it("a connection dropped mid-call is a system failure on the next tick", async () => {
    const mock = await server();
    const voice = agent(mock.url);
    await voice.start({ view, tickSeconds: TICK, clock: "virtual" });
    await voice.tick({ audio: silentTick(TICK), toolResults: [] });
    mock.dropCalls();
    const error = await failure(async () => {
      for (let t = 0; t < 100; t++) await voice.tick({ audio: silentTick(TICK), toolResults: [] });
    });
    expect(error.message).toMatch(/closed the call's connection \(code 1006\)/);
    await voice.stop();
  });
});
