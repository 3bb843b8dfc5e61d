// A tiny voice agent speaking passk's voice agent protocol (docs/voice-agent-protocol.md), with no model:
// it hears only whether the caller speaks (by loudness), and when the caller has spoken and gone quiet
// it looks something up with one tool over MCP (VOICE_AGENT_TOOL, arguments VOICE_AGENT_ARGS as JSON)
// and "says" the answer — a tone as long as the sentence would take, with the sentence as transcript.
// If the caller talks over it, it stops (a `clear`). Replace hear/think/speak with your ASR, model, TTS.
//
//   node examples/voice-agent/beep-agent.mjs            # listens on ws://127.0.0.1:9000 (PORT to change)
//   passk run --voice --agent ws:ws://127.0.0.1:9000 …
import { Buffer } from "node:buffer";
import process from "node:process";
import { WebSocketServer } from "ws";

const PORT = Number(process.env.PORT ?? 9000);
const TOOL = process.env.VOICE_AGENT_TOOL;
const TOOL_ARGS = JSON.parse(process.env.VOICE_AGENT_ARGS ?? "{}");
/** Loudness (of 32767) above which a frame holds the caller's voice. */
const SPEECH_LEVEL = 500;
/** Quiet after which the caller's turn is over (seconds). */
const END_OF_TURN_SECONDS = 0.5;

/** One μ-law byte as a PCM16 sample (G.711). */
function mulawToPcm(byte) {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

/** One PCM16 sample as a μ-law byte (G.711). */
function pcmToMulaw(sample) {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(Math.abs(sample), 32635) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** Whether a frame of μ-law audio holds speech (its RMS is above SPEECH_LEVEL). */
function hear(frame) {
  let sum = 0;
  for (const byte of frame) sum += mulawToPcm(byte) ** 2;
  return Math.sqrt(sum / Math.max(1, frame.length)) > SPEECH_LEVEL;
}

/** μ-law audio standing in for `text` spoken: a 440 Hz tone, 50 ms per character. */
function speak(text) {
  const samples = Math.round(text.length * 0.05 * 8000);
  const audio = Buffer.alloc(samples);
  for (let n = 0; n < samples; n++)
    audio[n] = pcmToMulaw(Math.round(6000 * Math.sin((2 * Math.PI * 440 * n) / 8000)));
  return audio;
}

/** A tool call over the call's MCP endpoint (Streamable HTTP, JSON-RPC): the result's text. */
async function callTool(mcp, name, args) {
  const response = await fetch(mcp.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${mcp.token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = await response.text();
  const json = body.startsWith("{")
    ? body
    : body
        .split("\n")
        .find((line) => line.startsWith("data:"))
        .slice(5);
  const message = JSON.parse(json);
  if (message.error) throw new Error(`MCP tools/call failed: ${message.error.message}`);
  return message.result.content.map((part) => part.text ?? "").join("\n");
}

function serveCall(socket) {
  let call; // the start message
  let tick = 0;
  let heardSpeech = false;
  let quietTicks = 0;
  let speakingUntilTick = 0; // ticks until which our last reply plays
  let callsThisTick = 0;
  let lookup; // the tool call in flight (its result comes when the next tick starts)
  let frames = Promise.resolve(); // frames are handled one after the other
  const send = (message) => socket.send(JSON.stringify(message));
  const say = (text) => {
    const audio = speak(text);
    send({ type: "speech", text });
    socket.send(audio);
    speakingUntilTick = tick + Math.ceil(audio.length / call.bytes_per_tick);
  };
  const think = () => {
    if (!TOOL) return say("I heard you. How can I help?");
    callsThisTick++;
    lookup = callTool(call.mcp, TOOL, TOOL_ARGS).then(
      (result) => say(`I found this: ${result.slice(0, 60)}`),
      (error) => send({ type: "error", message: String(error.message ?? error) }),
    );
  };

  const onFrame = async (frame) => {
    // A tool call from an earlier tick is answered as this tick starts: speak its answer now.
    if (lookup) await lookup;
    lookup = undefined;
    const speaking = hear(frame);
    if (speaking && tick < speakingUntilTick) {
      send({ type: "clear" }); // the caller cut in: stop talking
      speakingUntilTick = tick;
    }
    if (speaking) [heardSpeech, quietTicks] = [true, 0];
    else if (heardSpeech && ++quietTicks * call.tick_seconds >= END_OF_TURN_SECONDS) {
      heardSpeech = false;
      think();
    }
    // Virtual clock: say the tick is done, with the MCP calls it started (results come next tick).
    if (call.clock === "virtual") send({ type: "tick_done", index: tick, tool_calls: callsThisTick });
    callsThisTick = 0;
    tick++;
  };

  socket.on("message", (data, isBinary) => {
    if (!isBinary) {
      const message = JSON.parse(String(data));
      if (message.type === "start") {
        call = message;
        send({ type: "ready" });
      }
      return;
    }
    frames = frames.then(() => onFrame(data));
  });
}

const server = new WebSocketServer({ port: PORT, host: "127.0.0.1" });
server.on("connection", serveCall);
server.on("listening", () => console.log(`voice agent listening on ws://127.0.0.1:${server.address().port}`));
