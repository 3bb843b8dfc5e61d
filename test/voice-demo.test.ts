import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { builtinDomains } from "../src/domains/registry.js";
import type { AnyDomain } from "../src/env/domain.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import {
  SCRIPTED_VOICE_AGENT,
  voiceServerMessageSchema,
  type VoiceServerMessage,
  type VoiceTickMessage,
} from "../src/server/voice-call-protocol.js";
import {
  answersWhatItCannotMakeOut,
  espeakNgAvailable,
  ScriptedTurnListener,
  ScriptedTurns,
  unintelligibleSeconds,
  unintelligibleTurn,
  VoicedOrCodecListener,
} from "../src/server/voice-demo.js";
import { attachVoicePlayground } from "../src/server/voice-playground.js";
import type { MockRealtimeTrigger } from "../src/testing/mock-realtime-server.js";
import { hearTestSpeech, speakTestSpeech } from "../src/testing/speech-codec.js";
import { tau2DataDir, tau2RecordedUtterance } from "../src/testing/tau2-fixtures.js";
import { mulawDecode, mulawEncode, readWavFile, resample, rms } from "../src/voice/audio.js";
import type { SpeechListener } from "../src/testing/mock-realtime-server.js";
import { createSpeechModel } from "../src/voice/speech-models.js";

// The keyless voice demo's ears and voice: how the mock agent hears a person (codec speech word for
// word, real speech as "speech it could not make out", said honestly) and the scripted customer speaking
// espeak-ng (each turn's end by its energy, its words from the script); and demo calls over the
// playground's socket with espeak-ng's speech and, without it, codec tones.

const RATE = 8000;

/** `samples` through the wire (μ-law) with `silence` seconds after, fed to a listener tick by tick. */
function listen(listener: SpeechListener, samples: Int16Array, silence = 1): string[] {
  const padded = new Int16Array(samples.length + RATE * silence);
  padded.set(samples);
  const wire = mulawDecode(mulawEncode(padded));
  const heard: string[] = [];
  for (let at = 0; at < wire.length; at += 1600) heard.push(...listener.push(wire.subarray(at, at + 1600)));
  return [...heard, ...(listener.hearing ? listener.flush() : [])];
}

const recorded = (name: Parameters<typeof tau2RecordedUtterance>[0]) =>
  readWavFile(tau2RecordedUtterance(name), RATE);

describe("the mock's ears for a person", () => {
  it("hears a recorded utterance as one turn of speech it could not make out, with its length", () => {
    for (const name of ["check_order_12345", "order_status", "hi_how_are_you"] as const) {
      const speech = recorded(name);
      const heard = listen(new VoicedOrCodecListener(RATE, 0.5), speech);
      expect(heard, name).toHaveLength(1);
      const seconds = unintelligibleSeconds(heard[0]!);
      // The voiced part of the recording: most of it, never more than all of it.
      expect(seconds, name).toBeGreaterThan((speech.length / RATE) * 0.5);
      expect(seconds, name).toBeLessThanOrEqual(speech.length / RATE + 0.05);
    }
  });

  it("still hears test-codec speech word for word, on a quiet line and over steady noise", () => {
    const said = "Hello, I need help with my reservation.";
    expect(listen(new VoicedOrCodecListener(RATE, 0.5), speakTestSpeech(said, RATE))).toEqual([said]);
    // Noise at about 600 RMS everywhere (a line at ~15 dB SNR): the turn still ends after the words.
    let seed = 7;
    const noisy = new Int16Array(RATE * 6);
    const codec = speakTestSpeech(said, RATE);
    for (let i = 0; i < noisy.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      noisy[i] =
        Math.round(((seed / 2 ** 32) * 2 - 1) * 1040) +
        (i >= RATE && i - RATE < codec.length ? codec[i - RATE]! : 0);
    }
    const listener = new VoicedOrCodecListener(RATE, 0.5);
    const heard: string[] = [];
    for (let at = 0; at < noisy.length; at += 1600)
      heard.push(...listener.push(noisy.subarray(at, at + 1600)));
    expect(rms(noisy.subarray(0, RATE))).toBeGreaterThan(500);
    expect(heard).toEqual([said]);
    expect(listener.hearing).toBe(false);
  });

  it("says honestly what it could not make out, then carries on with its script", () => {
    const triggers: MockRealtimeTrigger[] = [];
    const brain = answersWhatItCannotMakeOut({
      respond: (trigger) => {
        triggers.push(trigger);
        return trigger.kind === "heard" && trigger.text === "words"
          ? { say: "Words heard." }
          : { toolCalls: [{ name: "get_user_details", arguments: {} }] };
      },
    });
    const answer = brain.respond({ kind: "heard", text: unintelligibleTurn(3.42) });
    expect(answer?.say).toBe(
      "Mock agent here: I heard 3.4 seconds of speech but could not make out the words, as I have no speech recognition. I will carry on with the demo's script.",
    );
    expect(answer?.toolCalls).toEqual([{ name: "get_user_details", arguments: {} }]);
    expect(brain.respond({ kind: "heard", text: "words" })).toEqual({ say: "Words heard." });
    expect(triggers).toHaveLength(2);
  });
});

describe("the mock's ears for the espeak-ng customer", () => {
  it("takes each turn's words from the script when it hears the turn end, and none for a noise", async () => {
    const espeak = createSpeechModel("espeak-ng:en-us");
    const turns = new ScriptedTurns();
    const listener = new ScriptedTurnListener(RATE, 0.5, turns);
    for (const text of ["Hi, I would like to cancel my reservation please.", "Yes, that is right."]) {
      turns.spoke(text);
      const audio = await espeak.speak(text);
      expect(listen(listener, resample(audio.samples, audio.sampleRate, RATE))).toEqual([text]);
    }
    // A car horn with nothing said: a stretch of sound, no words.
    const horn = readWavFile(`${tau2DataDir()}/voice/noise/bursts/car_horn.wav`, RATE);
    expect(listen(listener, horn)).toEqual([]);
  });
});

const parsed = new Map<string, DomainData>();
const loadDomainData = (domain: AnyDomain, dataDir: string) => {
  let data = parsed.get(domain.name);
  if (!data) parsed.set(domain.name, (data = new DomainData(domain, dataDir)));
  return data;
};

/** A playground server whose scripted customer speaks espeak-ng (`espeak`) or codec tones. */
async function playground(espeak: boolean): Promise<{ server: Server; url: string; origin: string }> {
  const server = createServer((_, res) => res.end());
  attachVoicePlayground(server, {
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    loadDomainData,
    env: {},
    espeak,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `ws://127.0.0.1:${port}/api/voice/call`, origin: `http://127.0.0.1:${port}` };
}

/** A whole scripted demo call on airline task 5 (the agent looks the customer up): every message sent. */
function demoCall(at: { url: string; origin: string }): Promise<VoiceServerMessage[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(at.url, { origin: at.origin });
    const messages: VoiceServerMessage[] = [];
    ws.on("message", (data) => {
      const message = voiceServerMessageSchema.parse(JSON.parse(String(data)));
      messages.push(message);
      if (message.type === "ready")
        ws.send(
          JSON.stringify({
            type: "start",
            domain: "airline",
            taskId: "5",
            agent: SCRIPTED_VOICE_AGENT,
            customer: "simulated",
            complexity: "control",
          }),
        );
    });
    ws.on("close", () => resolve(messages));
    ws.on("error", reject);
  });
}

/** A side's first turn: its text, and its μ-law on the line (decoded), over the ticks it spoke in. */
function firstTurn(
  ticks: readonly VoiceTickMessage[],
  side: "user" | "agent",
): { text: string; audio: Int16Array; seconds: number } {
  const speaks = (t: VoiceTickMessage) => (side === "user" ? t.userSpeech : t.agentSpeech);
  const first = ticks.findIndex(speaks);
  let end = first;
  while (end < ticks.length && speaks(ticks[end]!)) end++;
  const run = ticks.slice(first, end);
  return {
    text: run.map((t) => (side === "user" ? t.userText : t.agentText)).join(""),
    // The audio with the two ticks after the run (its last sound may spill into the next tick).
    audio: mulawDecode(
      new Uint8Array(Buffer.concat(ticks.slice(first, end + 2).map((t) => Buffer.from(t[side], "base64")))),
    ),
    seconds: run.length * 0.2,
  };
}

// A demo call runs on a virtual clock: about 5 s measured here, under load up to 20 s; 6x that.
const CALL_TIMEOUT = 120_000;

describe("the keyless demo call", () => {
  let servers: Server[] = [];
  beforeAll(() => {
    servers = [];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  it("finds espeak-ng where it is installed, and not on a PATH without it", async () => {
    expect(await espeakNgAvailable()).toBe(true);
    expect(await espeakNgAvailable({ PATH: "/nonexistent" })).toBe(false);
  });

  it(
    "with espeak-ng: the customer's audio is its speech (not codec tones), as long as its text takes, and the call completes",
    async () => {
      const at = await playground(true);
      servers.push(at.server);
      const messages = await demoCall(at);
      const ready = messages.find((m) => m.type === "ready");
      expect(ready?.type === "ready" && ready.scriptedCustomerNote).toContain("spoken by espeak-ng");
      const started = messages.find((m) => m.type === "started");
      expect(started).toMatchObject({ scriptedDemo: true, customer: "scripted customer (espeak-ng speech)" });
      const ticks = messages.filter((m): m is VoiceTickMessage => m.type === "tick");
      const turn = firstTurn(ticks, "user");
      expect(turn.text.length).toBeGreaterThan(20);
      // Speech, loud enough to hear, and nothing the test codec can read in it.
      expect(rms(turn.audio)).toBeGreaterThan(1000);
      expect(hearTestSpeech(turn.audio, RATE)).toBe("");
      // As long as espeak-ng takes to say that text (within a tick or two each side), not the codec's 50 ms a byte.
      const espeak = await createSpeechModel("espeak-ng:en-us").speak(turn.text);
      const espeakSeconds = espeak.samples.length / espeak.sampleRate;
      expect(Math.abs(turn.seconds - espeakSeconds)).toBeLessThan(0.5);
      expect(Math.abs(espeakSeconds - new TextEncoder().encode(turn.text).length * 0.05)).toBeGreaterThan(
        0.5,
      );
      // The mock agent answers in espeak-ng's speech too.
      const answer = firstTurn(ticks, "agent");
      expect(answer.text.length).toBeGreaterThan(0);
      expect(rms(answer.audio)).toBeGreaterThan(1000);
      expect(hearTestSpeech(answer.audio, RATE)).toBe("");
      // The mock took the turn from the script and played the gold path to the end: graded, reward 1.
      expect(ticks.flatMap((t) => t.agentToolCalls.map((c) => c.name))).toEqual(["get_user_details"]);
      expect(messages.at(-1)).toMatchObject({ type: "ended", termination: "user_stop", reward: 1 });
    },
    CALL_TIMEOUT,
  );

  it(
    "without espeak-ng: codec tones the mock decodes, and the page is told why",
    async () => {
      const at = await playground(false);
      servers.push(at.server);
      const messages = await demoCall(at);
      const ready = messages.find((m) => m.type === "ready");
      expect(ready?.type === "ready" && ready.scriptedCustomerNote).toContain("espeak-ng is not installed");
      const started = messages.find((m) => m.type === "started");
      expect(started?.type === "started" && started.customer).toContain("espeak-ng is not installed");
      const ticks = messages.filter((m): m is VoiceTickMessage => m.type === "tick");
      const turn = firstTurn(ticks, "user");
      expect(hearTestSpeech(turn.audio, RATE)).toBe(turn.text);
      const answer = firstTurn(ticks, "agent");
      expect(hearTestSpeech(answer.audio, RATE)).toBe(answer.text);
      expect(messages.at(-1)).toMatchObject({ type: "ended", termination: "user_stop", reward: 1 });
    },
    CALL_TIMEOUT,
  );
});
