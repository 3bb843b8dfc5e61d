import { z } from "zod";
import { HistoryMessageSchema, McpAccessSchema, RemoteToolSpecSchema } from "../../agents/remote/protocol.js";

/**
 * passk's voice agent protocol (`ws:URL`, docs/voice-agent-protocol.md): a team's own voice agent, in any
 * language, reached over one WebSocket per call. Text frames carry JSON control messages, binary frames
 * carry audio: G.711 μ-law, 8 kHz, mono — the telephone wire. Tools are served over the same per-call
 * MCP endpoint as passk's remote text agents. Every message is parsed here, where it crosses.
 */

/** The protocol's name and version, in `start`. */
export const VOICE_AGENT_PROTOCOL = "passk-voice/1";

/** passk → agent, first message: the call starts. */
export const VoiceCallStartSchema = z
  .object({
    type: z.literal("start"),
    protocol: z.literal(VOICE_AGENT_PROTOCOL),
    clock: z
      .enum(["virtual", "realtime"])
      .describe(
        "virtual: answer every audio frame with your audio for it, then tick_done. realtime: frames come every tick_seconds; send audio whenever.",
      ),
    tick_seconds: z.number().positive(),
    sample_rate: z.literal(8000),
    encoding: z.literal("mulaw"),
    bytes_per_tick: z.number().int().positive().describe("Size of each binary frame passk sends."),
    policy: z.string().describe("The policy the agent must follow."),
    tools: z
      .array(RemoteToolSpecSchema)
      .describe("The tools, as the MCP endpoint lists them (call them through MCP)."),
    history: z.array(HistoryMessageSchema).describe("What the call holds before it starts (usually empty)."),
    mcp: McpAccessSchema,
  })
  .describe("passk → agent: the call starts; answer with ready");
export type VoiceCallStart = z.infer<typeof VoiceCallStartSchema>;

/** passk → agent, last message: the call is over (the socket closes after it). */
export const VoiceCallStopSchema = z
  .object({ type: z.literal("stop") })
  .describe("passk → agent: the call is over");

/** The largest transcript text one `speech` message may carry. */
const MAX_SPEECH_CHARS = 20_000;

/** Agent → passk: every JSON message the agent may send. */
export const VoiceAgentMessageSchema = z.discriminatedUnion("type", [
  z
    .object({ type: z.literal("ready") })
    .describe("agent → passk: answer to start; the call's first tick follows"),
  z
    .object({ type: z.literal("speech"), text: z.string().max(MAX_SPEECH_CHARS) })
    .describe(
      "agent → passk: a new utterance; the audio frames that follow are its speech, and `text` its transcript (spread over the ticks its audio plays)",
    ),
  z
    .object({ type: z.literal("clear") })
    .describe("agent → passk: drop the audio sent but not played yet (the caller cut in)"),
  z
    .object({
      type: z.literal("tick_done"),
      index: z
        .number()
        .int()
        .nonnegative()
        .describe("The tick answered: 0 for the first audio frame passk sent"),
      tool_calls: z
        .number()
        .int()
        .nonnegative()
        .default(0)
        .describe("MCP tools/call requests made in this tick (passk waits until they arrived)"),
    })
    .describe("agent → passk (virtual clock): everything for this tick is sent"),
  z
    .object({ type: z.literal("error"), message: z.string().max(2000) })
    .describe("agent → passk: the agent failed; the call ends as the agent's error"),
]);
export type VoiceAgentMessage = z.infer<typeof VoiceAgentMessageSchema>;
