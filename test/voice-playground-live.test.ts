import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { builtinDomains } from "../src/domains/registry.js";
import type { AnyDomain } from "../src/env/domain.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { voiceCascadeOffer } from "../src/server/voice-cascade-offer.js";
import {
  SCRIPTED_VOICE_AGENT,
  voiceServerMessageSchema,
  type VoiceServerMessage,
  type VoiceStart,
  type VoiceTickMessage,
} from "../src/server/voice-call-protocol.js";
import { attachVoicePlayground, type VoicePlaygroundDeps } from "../src/server/voice-playground.js";
import {
  startMockLlmServer,
  startMockSpeechServer,
  type MockLlmServer,
  type MockSpeechServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { CASCADE_DONE, cascadeOnMocks, scriptPassengerChange } from "./helpers/voice-cascade-mocks.js";

// The voice playground's socket, for what the call shows besides its audio: the cascaded agent offered
// (when its parts can be made; otherwise named as unavailable, with why) and called over HTTP — passk's
// LLM agent on the mock model between the mock transcription and speech servers; the agent's world as
// each tick's tool calls change it; and the interaction-metric events, given as ticks settle them.

const SECRET = "sk-test-secret-voice-playground-0123456789";
const parsed = new Map<string, DomainData>();
const loadDomainData = (domain: AnyDomain, dataDir: string) => {
  let data = parsed.get(domain.name);
  if (!data) parsed.set(domain.name, (data = new DomainData(domain, dataDir)));
  return data;
};
const airline = loadDomainData(builtinDomains.get("airline")!, tau2DataDir());

let llm: MockLlmServer;
let speech: MockSpeechServer;
const servers: Server[] = [];

beforeAll(async () => {
  llm = await startMockLlmServer({ script: [] });
  speech = await startMockSpeechServer();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await llm?.close();
  await speech?.close();
});

/** A voice playground on 127.0.0.1 with these deps; its socket URL and the origin its pages have. */
async function playground(deps: Partial<VoicePlaygroundDeps>): Promise<{ url: string; origin: string }> {
  const server = createServer((_, res) => res.end());
  servers.push(server);
  attachVoicePlayground(server, {
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    loadDomainData,
    env: {},
    ...deps,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${port}/api/voice/call`, origin: `http://127.0.0.1:${port}` };
}

/** One call: every message, and every frame's raw text (to look for what must not be in it). */
function call(
  at: { url: string; origin: string },
  start: Omit<VoiceStart, "type"> | null,
): Promise<{ messages: VoiceServerMessage[]; raw: string[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(at.url, { origin: at.origin });
    const messages: VoiceServerMessage[] = [];
    const raw: string[] = [];
    ws.on("message", (data) => {
      raw.push(String(data));
      const message = voiceServerMessageSchema.parse(JSON.parse(String(data)));
      messages.push(message);
      if (message.type === "ready") {
        if (start) ws.send(JSON.stringify({ type: "start", ...start }));
        else ws.close();
      }
    });
    ws.on("close", () => resolve({ messages, raw }));
    ws.on("error", reject);
  });
}

const ticksOf = (messages: readonly VoiceServerMessage[]) =>
  messages.filter((m): m is VoiceTickMessage => m.type === "tick");

const cascade = (env: Record<string, string>) => cascadeOnMocks(llm, speech, env);

describe("voice playground: the cascaded agent", () => {
  it("is offered as unavailable, with the reason, when its keys are not set; a call to it is refused", async () => {
    const offer = cascade({ OPENAI_COMPATIBLE_API_KEY: SECRET });
    expect(offer.available).toBe(false);
    const at = await playground({ cascade: offer });
    const { messages } = await call(at, {
      domain: "airline",
      taskId: "40",
      agent: "cascaded",
      customer: "simulated",
      complexity: "control",
    });
    const ready = messages.find((m) => m.type === "ready");
    const offered = ready?.agents.find((a) => a.spec === "cascaded");
    expect(offered?.label).toBe(
      "Cascaded: openai:gpt-4o-transcribe → openai-compatible:mock-agent → openai:gpt-4o-mini-tts",
    );
    expect(offered?.unavailable).toMatch(/OPENAI_API_KEY/);
    expect(messages.some((m) => m.type === "started")).toBe(false);
    expect(messages.at(-1)).toMatchObject({ type: "error" });
    expect((messages.at(-1) as { message: string }).message).toMatch(/not available here.*OPENAI_API_KEY/);
  });

  it("without a text model among the playground's agents, says so", () => {
    const offer = voiceCascadeOffer({
      agentSpecs: ["scripted:gold"],
      agentFor: () => {
        throw new Error("no text model is made");
      },
      transcription: "openai:gpt-4o-transcribe",
      speech: "openai:gpt-4o-mini-tts",
      env: { OPENAI_API_KEY: SECRET },
    });
    expect(offer).toMatchObject({ available: false, reason: expect.stringMatching(/--agent-llm/) });
  });

  it("calls the cascade over HTTP: it hears the caller's reservation id, changes the world, and the world's change is streamed", async () => {
    const task = airline.task("40");
    const gold = task.evaluation_criteria!.actions!.find((a) => a.name === "update_reservation_passengers")!;
    const env = { OPENAI_API_KEY: SECRET, OPENAI_COMPATIBLE_API_KEY: SECRET };
    scriptPassengerChange(llm, task);
    const at = await playground({
      cascade: cascade(env),
      // The mock transcription decodes the test speech codec, so the scripted customer speaks it.
      espeak: false,
      clock: "virtual",
      maxCallSeconds: 120,
      secrets: [SECRET],
    });
    const { messages, raw } = await call(at, {
      domain: "airline",
      taskId: task.id,
      agent: "cascaded",
      customer: "simulated",
      complexity: "control",
    });
    const offered = messages.find((m) => m.type === "ready")?.agents.find((a) => a.spec === "cascaded");
    expect(offered).toMatchObject({ scripted: false });
    expect(offered?.unavailable).toBeUndefined();
    const started = messages.find((m) => m.type === "started");
    expect(started).toMatchObject({ agent: offered!.label, scriptedDemo: true });
    expect(messages.at(-1)).toMatchObject({ type: "ended", termination: "agent_stop" });

    const ticks = ticksOf(messages);
    // The agent spoke (the mock speech server's voice, heard by the browser as the agent's audio).
    expect(ticks.some((t) => t.agentSpeech)).toBe(true);
    expect(ticks.map((t) => t.agentText).join("")).toContain(CASCADE_DONE);
    expect(speech.requests.some((r) => r.kind === "transcription" && /reservation id is/i.test(r.text))).toBe(
      true,
    );
    // The write, in the tick it ran: the reservation's passengers old → new, and the record whole.
    const writing = ticks.find((t) =>
      t.agentToolCalls.some((c) => c.name === "update_reservation_passengers"),
    );
    expect(writing).toBeDefined();
    const write = writing!.agentToolCalls.find((c) => c.name === "update_reservation_passengers")!;
    expect(write.error).toBe(false);
    expect(write.records).toEqual([expect.objectContaining({ collection: "reservations", id: "3RK2T9" })]);
    const change = writing!.worldChanges.find((c) => c.collection === "reservations" && c.id === "3RK2T9");
    expect(change?.kind).toBe("changed");
    expect(change?.fields.some((f) => f.path.startsWith("passengers"))).toBe(true);
    expect(writing!.worldCurrent.find((r) => r.id === "3RK2T9")?.record).toMatchObject({
      passengers: gold.arguments.passengers,
    });
    // Ticks without a write change nothing.
    expect(ticks.filter((t) => t.worldChanges.length > 0)).toHaveLength(1);
    // The keys never reach the browser.
    expect(raw.some((frame) => frame.includes(SECRET))).toBe(false);
  }, 180_000);
});

describe("voice playground: world and interaction events of a scripted demo call", () => {
  it("streams the world's changes at the write's tick, and events as ticks settle them — each one of the call's", async () => {
    // Task 40's gold path updates the reservation's passengers.
    const at = await playground({});
    const { messages } = await call(at, {
      domain: "airline",
      taskId: "40",
      agent: SCRIPTED_VOICE_AGENT,
      customer: "simulated",
      complexity: "control",
    });
    const ticks = ticksOf(messages);
    const ended = messages.at(-1);
    expect(ended?.type).toBe("ended");
    if (ended?.type !== "ended") return;
    const writes = ticks.filter((t) => t.worldChanges.length > 0);
    expect(writes.length).toBeGreaterThan(0);
    expect(
      writes.every((t) => t.agentToolCalls.some((c) => c.name === "update_reservation_passengers")),
    ).toBe(true);
    expect(writes[0]!.worldChanges[0]).toMatchObject({ collection: "reservations", id: "3RK2T9" });
    // Reads name their records (get_reservation_details) without changing them.
    const read = ticks.flatMap((t) => t.agentToolCalls).find((c) => c.name === "get_reservation_details");
    expect(read?.records.map((r) => r.id)).toEqual(["3RK2T9"]);

    // Events: given while the call runs, each at or before the tick that gave it, each one of the call's.
    const live = ticks.flatMap((t) => t.events.map((e) => ({ e, tick: t.tick })));
    expect(live.length).toBeGreaterThan(0);
    expect(live.every(({ e, tick }) => e.time <= tick * 0.2 + 1e-9)).toBe(true);
    const final = ended.events.map((e) => JSON.stringify(e));
    for (const { e } of live) {
      const i = final.indexOf(JSON.stringify(e));
      expect(i, JSON.stringify(e)).toBeGreaterThanOrEqual(0);
      final.splice(i, 1);
    }
    expect(ended.events.some((e) => e.category === "response")).toBe(true);
  }, 180_000);
});
