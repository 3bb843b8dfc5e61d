import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { builtinDomains } from "../src/domains/registry.js";
import type { AnyDomain } from "../src/env/domain.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { attachVoicePlayground } from "../src/server/voice-playground.js";
import {
  SCRIPTED_VOICE_AGENT,
  voiceServerMessageSchema,
  type VoiceServerMessage,
  type VoiceStart,
} from "../src/server/voice-call-protocol.js";
import { speakTestSpeech } from "../src/testing/speech-codec.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mulawEncode } from "../src/voice/audio.js";

// The voice playground's socket without a browser: a scripted demo call streamed tick by tick and
// graded; a person's microphone (here test-codec speech sent tick by tick) heard by the mock agent.

const parsed = new Map<string, DomainData>();
const loadDomainData = (domain: AnyDomain, dataDir: string) => {
  let data = parsed.get(domain.name);
  if (!data) parsed.set(domain.name, (data = new DomainData(domain, dataDir)));
  return data;
};

let server: Server;
let url: string;
let origin: string;
beforeAll(async () => {
  server = createServer((_, res) => res.end());
  attachVoicePlayground(server, {
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    loadDomainData,
    env: {},
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  url = `ws://127.0.0.1:${port}/api/voice/call`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function call(
  start: Omit<VoiceStart, "type">,
  onOpen?: (ws: WebSocket, messages: VoiceServerMessage[]) => void,
) {
  return new Promise<VoiceServerMessage[]>((resolve, reject) => {
    const ws = new WebSocket(url, { origin });
    const messages: VoiceServerMessage[] = [];
    ws.on("message", (data) => {
      const message = voiceServerMessageSchema.parse(JSON.parse(String(data)));
      messages.push(message);
      if (message.type === "ready") {
        ws.send(JSON.stringify({ type: "start", ...start }));
        onOpen?.(ws, messages);
      }
    });
    ws.on("close", () => resolve(messages));
    ws.on("error", reject);
  });
}

describe("voice playground socket", () => {
  it("refuses a page of another site", async () => {
    const ws = new WebSocket(url, { origin: "http://evil.example" });
    const status = await new Promise<number>((resolve) =>
      ws.on("unexpected-response", (_, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(403);
  });

  it("streams a scripted demo call tick by tick and grades it", async () => {
    const task = loadDomainData(builtinDomains.get("airline")!, tau2DataDir()).tasks[0]!;
    const messages = await call({
      domain: "airline",
      taskId: task.id,
      agent: SCRIPTED_VOICE_AGENT,
      customer: "simulated",
      complexity: "control",
    });
    const started = messages.find((m) => m.type === "started");
    expect(started).toMatchObject({ scriptedDemo: true, bytesPerTick: 1600 });
    const ticks = messages.filter((m) => m.type === "tick");
    expect(ticks.length).toBeGreaterThan(20);
    expect(ticks.map((t) => t.tick)).toEqual(ticks.map((_, i) => i));
    expect(ticks.every((t) => Buffer.from(t.user, "base64").length === 1600)).toBe(true);
    expect(ticks.some((t) => t.userSpeech)).toBe(true);
    expect(ticks.some((t) => t.agentSpeech)).toBe(true);
    const ended = messages.at(-1);
    expect(ended).toMatchObject({ type: "ended", termination: "user_stop", reward: 1 });
  }, 120_000);

  it("hears a person's microphone: the mock agent answers, and a hang-up is graded", async () => {
    const task = loadDomainData(builtinDomains.get("airline")!, tau2DataDir()).tasks[0]!;
    const said = speakTestSpeech("Hello, I need help with my reservation.", 8000);
    const wire = mulawEncode(new Int16Array([...said, ...new Int16Array(8000 * 3)]));
    const sentTicks: Buffer[] = [];
    const messages = await call(
      {
        domain: "airline",
        taskId: task.id,
        agent: SCRIPTED_VOICE_AGENT,
        customer: "me",
        complexity: "control",
      },
      (ws, received) => {
        let at = 0;
        const timer = setInterval(() => {
          const frame = Buffer.alloc(1600, 0xff);
          if (at < wire.length) Buffer.from(wire.subarray(at, at + 1600)).copy(frame);
          at += 1600;
          sentTicks.push(frame);
          ws.send(frame);
          const agentSpoke = received.some(
            (m) => m.type === "tick" && (m.agentSpeech || m.agentToolCalls.length > 0),
          );
          if (agentSpoke || at > 8000 * 60) {
            clearInterval(timer);
            ws.send(JSON.stringify({ type: "hangup" }));
          }
        }, 5);
      },
    );
    const ticks = messages.filter((m) => m.type === "tick");
    expect(ticks.some((t) => t.agentSpeech || t.agentToolCalls.length > 0)).toBe(true);
    // On a clean line the agent hears the very bytes the browser sent, tick by tick.
    for (const [i, t] of ticks.entries())
      expect(Buffer.from(t.user, "base64").equals(sentTicks[i]!)).toBe(true);
    const ended = messages.at(-1);
    expect(ended).toMatchObject({ type: "ended", termination: "user_stop" });
    expect(ended && ended.type === "ended" ? ended.reward : null).not.toBeNull();
  }, 120_000);
});
