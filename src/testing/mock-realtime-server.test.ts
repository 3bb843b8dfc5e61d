import { mulaw } from "alawmulaw";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { WIRE_SAMPLE_RATE } from "../voice/call.js";
import { startMockRealtimeServer, type MockRealtimeServer } from "./mock-realtime-server.js";
import { speakTestSpeech } from "./speech-codec.js";

// The mock realtime server spoken to directly, event by event, over a raw WebSocket.

interface Event {
  type: string;
  [key: string]: unknown;
}

const servers: MockRealtimeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function open(): Promise<{ server: MockRealtimeServer; socket: WebSocket; events: Event[] }> {
  const server = await startMockRealtimeServer({
    brain: () => ({
      respond: (trigger) => (trigger.kind === "heard" ? { say: `You said ${trigger.text}` } : undefined),
    }),
    apiKey: "sk-mock-key",
  });
  servers.push(server);
  const socket = new WebSocket(`${server.url}?model=gpt-realtime`, {
    headers: { Authorization: "Bearer sk-mock-key" },
  });
  const events: Event[] = [];
  socket.on("message", (data) => events.push(JSON.parse(String(data)) as Event));
  await new Promise((resolve) => socket.once("open", resolve));
  return { server, socket, events };
}

/** Sends the events, then a barrier; resolves with what the server answered before the barrier. */
async function exchange(socket: WebSocket, events: Event[], sent: object[]): Promise<Event[]> {
  const from = events.length;
  for (const event of sent) socket.send(typeof event === "string" ? event : JSON.stringify(event));
  socket.send(JSON.stringify({ type: "session.update", session: {} }));
  await expect
    .poll(() => events.slice(from).some((e) => e.type === "session.updated"), { timeout: 20_000 })
    .toBe(true);
  const answered = events.slice(from);
  return answered.slice(
    0,
    answered.findIndex((e) => e.type === "session.updated"),
  );
}

describe("mock realtime server", () => {
  it("refuses a wrong key with HTTP 401", async () => {
    const { server, socket } = await open();
    socket.close();
    const status = await new Promise<number>((resolve) => {
      const other = new WebSocket(server.url, { headers: { Authorization: "Bearer sk-other" } });
      other.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      other.on("error", () => {});
    });
    expect(status).toBe(401);
  });

  it("opens with session.created and answers bad input with error events", async () => {
    const { socket, events } = await open();
    await expect.poll(() => events[0]?.type, { timeout: 20_000 }).toBe("session.created");
    const errors = await exchange(socket, events, [
      "not json" as unknown as object,
      { type: "bogus.event" },
      { type: "input_audio_buffer.append", audio: "%%%" },
      { type: "conversation.item.truncate", item_id: "item_none", content_index: 0, audio_end_ms: 10 },
      {
        type: "session.update",
        session: { audio: { input: { format: { type: "audio/pcm", rate: 24000 } } } },
      },
      {
        type: "conversation.item.create",
        item: { type: "function_call_output", call_id: "call_x", output: "{}" },
      },
    ]);
    expect(errors.map((e) => (e.error as { code: string }).code)).toEqual([
      "invalid_json",
      "invalid_value",
      "invalid_value",
      "item_truncate_invalid_item_id",
      "invalid_value",
      "invalid_tool_call_id",
    ]);
    socket.close();
  });

  it("finds the caller's turn with its VAD, hears it through the codec and answers in spoken audio", async () => {
    const { server, socket, events } = await open();
    const speech = speakTestSpeech("hello there", WIRE_SAMPLE_RATE);
    const audio = new Int16Array(speech.length + 0.7 * WIRE_SAMPLE_RATE);
    audio.set(speech);
    const answered = await exchange(socket, events, [
      { type: "input_audio_buffer.append", audio: Buffer.from(mulaw.encode(audio)).toString("base64") },
    ]);
    const types = answered.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      "input_audio_buffer.speech_started",
      "input_audio_buffer.speech_stopped",
      "input_audio_buffer.committed",
      "conversation.item.added",
    ]);
    expect(server.calls[0]!.heard).toEqual(["hello there"]);
    expect(types).toContain("response.created");
    expect(types.at(-1)).toBe("response.done");
    const transcript = answered
      .filter((e) => e.type === "response.output_audio_transcript.delta")
      .map((e) => e.delta)
      .join("");
    expect(transcript).toBe("You said hello there");
    const bytes = answered
      .filter((e) => e.type === "response.output_audio.delta")
      .reduce((sum, e) => sum + Buffer.from(String(e.delta), "base64").length, 0);
    // 50 ms of codec speech per character, on the 8 kHz wire.
    expect(bytes).toBe("You said hello there".length * 400);
    const item = String(answered.find((e) => e.type === "response.output_audio.delta")!.item_id);
    const truncated = await exchange(socket, events, [
      { type: "conversation.item.truncate", item_id: item, content_index: 0, audio_end_ms: 5000 },
      { type: "conversation.item.truncate", item_id: item, content_index: 0, audio_end_ms: 300 },
    ]);
    expect(truncated.map((e) => e.type)).toEqual(["error", "conversation.item.truncated"]);
    expect(server.calls[0]!.truncations).toEqual([{ itemId: item, audioEndMs: 300 }]);
    socket.close();
  });

  it("takes noise for no speech: a turn in steady background noise ends, and is heard", async () => {
    const { server, socket, events } = await open();
    const speech = speakTestSpeech("hello there", WIRE_SAMPLE_RATE);
    const audio = new Int16Array(speech.length + 1.0 * WIRE_SAMPLE_RATE);
    let state = 7;
    for (let i = 0; i < audio.length; i++) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      // Noise about 20 dB below the speech, all through the turn and after it.
      const noise = ((state / 2 ** 31) * 2 - 1) * 1500;
      audio[i] = Math.round((speech[i] ?? 0) + noise);
    }
    const answered = await exchange(socket, events, [
      { type: "input_audio_buffer.append", audio: Buffer.from(mulaw.encode(audio)).toString("base64") },
    ]);
    expect(answered.filter((e) => e.type.startsWith("input_audio_buffer.")).map((e) => e.type)).toEqual([
      "input_audio_buffer.speech_started",
      "input_audio_buffer.speech_stopped",
      "input_audio_buffer.committed",
    ]);
    expect(server.calls[0]!.heard).toEqual(["hello there"]);
    socket.close();
  });
});
