import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { InfrastructureError } from "../src/core/llm.js";
import {
  startMockGeminiLiveServer,
  type MockGeminiLiveServer,
  type MockGeminiLiveServerOptions,
} from "../src/testing/mock-gemini-live-server.js";
import { geminiLiveAgent } from "../src/voice/agents/gemini-live.js";
import { callerTicks, hearAgent, playCall, voiceView } from "./helpers/voice-caller.js";

let server: MockGeminiLiveServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function mock(options: MockGeminiLiveServerOptions): Promise<MockGeminiLiveServer> {
  server = await startMockGeminiLiveServer(options);
  return server;
}

/** A reservation id in what the mock heard, or undefined. */
function reservationIn(text: string): string | undefined {
  return /\b([A-Z0-9]{6})\b/.exec(text)?.[1];
}

describe("Gemini Live voice agent (over the mock's WebSocket)", () => {
  it("hears the caller, calls a tool, gets its result on the next tick and says the answer", async () => {
    const gemini = await mock({
      brain: (event) => {
        if (event.kind === "heard") {
          const id = reservationIn(event.text);
          return id
            ? {
                say: "One moment.",
                toolCalls: [{ name: "get_reservation_details", args: { reservation_id: id } }],
              }
            : { say: "Which reservation?" };
        }
        const output = String(event.results[0]?.response.output ?? "");
        return { say: `Status: ${JSON.parse(output).status}.` };
      },
    });
    const agent = geminiLiveAgent({ baseUrl: gemini.baseUrl, apiKey: gemini.apiKey, model: "mock-live" });
    const played = await playCall(
      agent,
      callerTicks([{ silence: 0.4 }, { say: "Reservation XK42PQ please" }]),
      {
        ticks: 120,
        answer: (call) => ({
          content: JSON.stringify({ id: call.arguments.reservation_id, status: "confirmed" }),
        }),
      },
    );

    // The session was set up as Gemini expects it: instructions with the policy, tools, transcription.
    const session = gemini.sessions[0]!;
    expect(JSON.stringify(session.setup.systemInstruction)).toContain(
      "check a reservation before cancelling",
    );
    expect(JSON.stringify(session.setup.tools)).toContain("get_reservation_details");
    expect(session.setup).toHaveProperty("outputAudioTranscription");
    expect(session.setup.model).toBe("models/mock-live");

    // The caller was heard through μ-law → 16 kHz; the tool call came out with the id it heard.
    expect(session.heard).toEqual(["Reservation XK42PQ please"]);
    expect(played.toolCalls).toHaveLength(1);
    const { tick, call } = played.toolCalls[0]!;
    expect(call).toMatchObject({
      name: "get_reservation_details",
      arguments: { reservation_id: "XK42PQ" },
      requestor: "assistant",
    });
    expect(call.id).not.toBe("");

    // Its result went back in one tool response, under Gemini's id and the function's name.
    expect(session.toolResponses).toEqual([
      [
        {
          id: "function-call-1",
          name: "get_reservation_details",
          response: { output: JSON.stringify({ id: "XK42PQ", status: "confirmed" }) },
        },
      ],
    ]);

    // Both replies reached the wire as speech a listener can hear, 24 kHz → 8 kHz μ-law.
    // (The second reply follows the first with no pause, so a listener hears one utterance.)
    expect(hearAgent(played)).toBe("One moment.Status: confirmed.");
    // The transcript is spread over the ticks that play its audio (not dumped in one tick).
    const texts = played.outputs.map((o) => o.text);
    expect(texts.join("")).toBe("One moment.Status: confirmed.");
    const withText = played.outputs.filter((o) => o.text !== "");
    expect(withText.length).toBeGreaterThanOrEqual(4);
    for (const output of withText) expect(output.containsSpeech).toBe(true);
    // "One moment." (11 bytes = 0.55 s) spans 3 ticks of 0.2 s from the tool call's tick on.
    expect(played.outputs.slice(tick, tick + 3).every((o) => o.containsSpeech)).toBe(true);
    expect(played.outputs[tick - 1]!.containsSpeech).toBe(false);

    // Usage: each reply metered, audio and text apart.
    const usage = played.outputs.flatMap((o) => o.usage ?? []);
    expect(usage).toHaveLength(2);
    expect(usage[0]).toMatchObject({ source: "gemini-live", model: "mock-live", inputTextTokens: 100 });
    expect(usage[0]!.inputAudioTokens).toBeGreaterThan(25); // over a second of the caller heard
    expect(usage[1]!.outputAudioTokens).toBe(
      Math.round(new TextEncoder().encode("Status: confirmed.").length * 0.05 * 25),
    );
  });

  it("goAway: resumes the conversation in a new session from its handle, mid-utterance, without losing the turn", async () => {
    const gemini = await mock({
      brain: (event) => {
        if (event.kind === "heard") {
          const id = reservationIn(event.text);
          return id
            ? {
                say: "One moment.",
                toolCalls: [{ name: "get_reservation_details", args: { reservation_id: id } }],
              }
            : { say: "Which reservation?" };
        }
        const output = String(event.results[0]?.response.output ?? "");
        return { say: `Status: ${JSON.parse(output).status}.` };
      },
      // Every connection is told to go away after 4 messages (0.8 s of audio): the caller's request
      // (about 1.3 s, from the third tick) is cut by one, and the tool call and its result by others.
      goAwayAfterMessages: 4,
    });
    const agent = geminiLiveAgent({ baseUrl: gemini.baseUrl, apiKey: gemini.apiKey, model: "mock-live" });
    const played = await playCall(
      agent,
      callerTicks([{ silence: 0.4 }, { say: "Reservation XK42PQ please" }]),
      {
        ticks: 120,
        answer: (call) => ({
          content: JSON.stringify({ id: call.arguments.reservation_id, status: "confirmed" }),
        }),
      },
    );
    // One conversation, carried over many connections: each goAway was followed by a resumed session.
    expect(gemini.sessions).toHaveLength(1);
    const session = gemini.sessions[0]!;
    expect(session.goAways).toBeGreaterThanOrEqual(10);
    // (A goAway on the call's last ticks needs no new session.)
    expect(session.connections).toBeGreaterThanOrEqual(session.goAways);
    expect(session.connections).toBeLessThanOrEqual(session.goAways + 1);
    // The utterance cut by a goAway was heard whole, the tool call answered on a later session.
    expect(session.heard).toEqual(["Reservation XK42PQ please"]);
    expect(played.toolCalls.map((c) => c.call.arguments)).toEqual([{ reservation_id: "XK42PQ" }]);
    expect(session.toolResponses).toHaveLength(1);
    expect(hearAgent(played)).toBe("One moment.Status: confirmed.");
    // Every tick's audio reached the server, as on a call without goAway: nothing was sent on a
    // session after its goAway.
    const heardWithGoAway = session.secondsHeard;
    await server?.close();
    const steady = await mock({ brain: () => undefined });
    await playCall(
      geminiLiveAgent({ baseUrl: steady.baseUrl, apiKey: steady.apiKey }),
      callerTicks([{ silence: 0.4 }, { say: "Reservation XK42PQ please" }]),
      { ticks: 120 },
    );
    expect(steady.sessions[0]!.goAways).toBe(0);
    expect(heardWithGoAway).toBe(steady.sessions[0]!.secondsHeard);
  });

  it("gives a call an id of its own when Gemini leaves it out, and answers under the empty id", async () => {
    const gemini = await mock({
      omitCallIds: true,
      brain: (event) =>
        event.kind === "heard"
          ? { toolCalls: [{ name: "get_reservation_details", args: { reservation_id: "AAAAAA" } }] }
          : { say: "Done." },
    });
    const agent = geminiLiveAgent({ baseUrl: gemini.baseUrl, apiKey: gemini.apiKey });
    const played = await playCall(agent, callerTicks([{ say: "Hi" }]), {
      ticks: 30,
      answer: () => ({ content: "nope", error: true }),
    });
    expect(played.toolCalls[0]!.call.id).toBe("gemini_call_1");
    expect(gemini.sessions[0]!.toolResponses[0]).toEqual([
      { id: "", name: "get_reservation_details", response: { error: "nope" } },
    ]);
    expect(hearAgent(played)).toBe("Done.");
  });

  it("a tone keeps its frequency both ways: 8 kHz μ-law in → 16 kHz PCM at Gemini, 24 kHz PCM out → 8 kHz μ-law", async () => {
    const tone = (hz: number, rate: number, seconds: number) =>
      Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
        Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rate)),
      );
    const gemini = await mock({
      recordAudio: true,
      brain: () => undefined,
    });
    const { mulawEncode: encodeWire, mulawDecode: decodeWire } = await import("../src/voice/audio.js");
    const inTone = encodeWire(tone(440, 8000, 1));
    const caller = Array.from({ length: 5 }, (_, i) => inTone.subarray(i * 1600, (i + 1) * 1600));
    const agent = geminiLiveAgent({ baseUrl: gemini.baseUrl, apiKey: gemini.apiKey });
    const played = await playCall(agent, caller, { ticks: 5 });
    const heard = Int16Array.from(gemini.sessions[0]!.audio.flatMap((chunk) => [...chunk]));
    // 1 s at 16 kHz, less what the streaming filter holds back for its lookahead (a few ms).
    expect(heard.length).toBeLessThanOrEqual(16000);
    expect(heard.length).toBeGreaterThan(16000 - 80);
    const steady = heard.subarray(400);
    expect(frequency(steady, 16000)).toBeCloseTo(440, -1);
    expect(rms(steady)).toBeGreaterThan(8000 * 0.7 * 0.95);
    expect(rms(steady)).toBeLessThan(8000 * 0.7 * 1.05);
    expect(played.outputs.every((o) => !o.containsSpeech)).toBe(true);

    await server?.close();
    const speaker = await mock({
      brain: (e) => (e.kind === "heard" ? { say: "x", audio: tone(1000, 24000, 1) } : undefined),
    });
    const out = await playCall(
      geminiLiveAgent({ baseUrl: speaker.baseUrl, apiKey: speaker.apiKey }),
      callerTicks([{ say: "Hi" }]),
      { ticks: 20 },
    );
    const spoken = decodeWire(
      out.agentWire.filter((_, i) => out.outputs[Math.floor(i / 1600)]!.containsSpeech),
    );
    expect(spoken.length).toBeGreaterThanOrEqual(8000);
    expect(spoken.length).toBeLessThanOrEqual(8000 + 1600);
    const middle = spoken.subarray(800, 7200);
    expect(frequency(middle, 8000)).toBeCloseTo(1000, -1);
    expect(rms(middle)).toBeGreaterThan(8000 * 0.7 * 0.9);
  });

  it("stops speaking when the caller cuts in (Gemini's `interrupted`): the rest of the reply is dropped", async () => {
    const long = "Let me read you the whole fare rules of this ticket, every one of them.";
    const gemini = await mock({
      brain: (e) => (e.kind === "heard" && e.text === "Hello" ? { say: long } : undefined),
    });
    const agent = geminiLiveAgent({ baseUrl: gemini.baseUrl, apiKey: gemini.apiKey });
    // Hello (0.25 s), 1.4 s of silence (the reply starts after 0.5 s of it), then the caller cuts in.
    const played = await playCall(agent, callerTicks([{ say: "Hello" }, { silence: 1.4 }, { say: "Stop" }]), {
      ticks: 40,
    });
    const session = gemini.sessions[0]!;
    expect(session.interruptions).toBe(1);
    const speaking = played.outputs.map((o) => o.containsSpeech);
    const first = speaking.indexOf(true);
    const last = speaking.lastIndexOf(true);
    // The reply (72 bytes = 3.6 s = 18 ticks) was cut after a few ticks; nothing of it plays later.
    expect(last - first + 1).toBeGreaterThanOrEqual(2);
    expect(last - first + 1).toBeLessThan(8);
    expect(speaking.slice(first, last + 1).every(Boolean)).toBe(true);
    const said = played.outputs.map((o) => o.text).join("");
    expect(said.length).toBeGreaterThan(0);
    expect(long.startsWith(said)).toBe(true);
    expect(said.length).toBeLessThan(long.length / 2);
  });

  it("failures: no key, a refused key, an unreachable server, a session closed mid-call, an unreadable message", async () => {
    await expect(
      geminiLiveAgent({ env: {} }).start({ view: voiceView(), tickSeconds: 0.2, clock: "virtual" }),
    ).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && /GEMINI_API_KEY/.test((error as Error).message),
    );

    const gemini = await mock({ brain: () => undefined });
    const secret = "AIzaSy-secret-key-0123456789";
    const refused = await geminiLiveAgent({ baseUrl: gemini.baseUrl, apiKey: secret })
      .start({ view: voiceView(), tickSeconds: 0.2, clock: "virtual" })
      .catch((error: unknown) => error);
    expect(ConfigError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/refused the API key \(code 1007: API key not valid/);
    expect((refused as Error).message).not.toContain(secret);

    const port = await closedPort();
    const unreachable = await geminiLiveAgent({ baseUrl: `http://127.0.0.1:${port}`, apiKey: secret })
      .start({ view: voiceView(), tickSeconds: 0.2, clock: "virtual" })
      .catch((error: unknown) => error);
    expect(InfrastructureError.isInstance(unreachable)).toBe(true);
    expect((unreachable as Error).message).toBe(
      `could not reach Gemini Live at 127.0.0.1:${port}: connection refused (is the server running?)`,
    );

    await server?.close();
    const closing = await mock({ brain: () => undefined, closeAfterMessages: 3 });
    const midCall = await playCall(
      geminiLiveAgent({ baseUrl: closing.baseUrl, apiKey: closing.apiKey }),
      callerTicks([{ silence: 2 }]),
    ).catch((error: unknown) => error);
    expect(InfrastructureError.isInstance(midCall)).toBe(true);
    expect((midCall as Error).message).toBe(
      "Gemini Live closed the session mid-call (code 1011: Internal error encountered.)",
    );

    await server?.close();
    const garbled = await mock({
      brain: (e) => (e.kind === "heard" ? { say: "Hi" } : undefined),
      malformedContent: { modelTurn: { parts: "not a list" } },
    });
    const unreadable = await playCall(
      geminiLiveAgent({ baseUrl: garbled.baseUrl, apiKey: garbled.apiKey }),
      callerTicks([{ say: "Hi" }, { silence: 1 }]),
    ).catch((error: unknown) => error);
    expect(InfrastructureError.isInstance(unreadable)).toBe(true);
    expect((unreadable as Error).message).toMatch(
      /^Gemini Live sent a message passk cannot read \(serverContent\.modelTurn\.parts: /,
    );
  });

  it("realtime clock: listens one tick of wall-clock time and still carries the turn", async () => {
    const gemini = await mock({ brain: (e) => (e.kind === "heard" ? { say: "Hello there." } : undefined) });
    const agent = geminiLiveAgent({ baseUrl: gemini.baseUrl, apiKey: gemini.apiKey });
    const started = Date.now();
    const played = await playCall(agent, callerTicks([{ say: "Hi" }], 0.05), {
      clock: "realtime",
      tickSeconds: 0.05,
      ticks: 400,
      until: (p) =>
        !p.outputs.at(-1)!.containsSpeech &&
        p.outputs.some((o) => o.containsSpeech) &&
        hearAgent(p) === "Hello there.",
    });
    expect(hearAgent(played)).toBe("Hello there.");
    // Each tick lasted at least its 50 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(played.outputs.length * 50 - 5);
  });
});

function frequency(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings++;
  return (crossings * rate) / samples.length;
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const value of samples) sum += value * value;
  return Math.sqrt(sum / samples.length);
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
