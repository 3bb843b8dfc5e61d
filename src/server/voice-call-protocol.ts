import { z } from "zod";
import { RecordChangeSchema, WorldRecordSchema } from "./api-schemas.js";

// The playground's voice call over one WebSocket (`/api/voice/call`), shared by the server and the web
// app. Server → browser: `ready` (what can be called), then per call `started`, one `tick` per tick of
// call time (both sides' 8 kHz μ-law as base64, the text spoken, tool calls, the effects the caller's
// audio went through), and `ended` (termination, grade) or `error`. Browser → server: `start` (JSON),
// then — when the browser is the caller — one binary message per tick (exactly one tick of μ-law) and
// `hangup`.

export const VOICE_CALL_PATH = "/api/voice/call";

/** The keyless demo's agent: the mock realtime server playing the task's gold actions by ear. */
export const SCRIPTED_VOICE_AGENT = "scripted:mock-realtime";

export const voiceStartSchema = z.object({
  type: z.literal("start"),
  domain: z.string().min(1).max(64),
  taskId: z.string().min(1).max(200),
  agent: z.string().min(1).max(200),
  /** `simulated`: the voice customer; `me`: the browser's microphone. */
  customer: z.enum(["simulated", "me"]),
  /** The caller's conditions (the task's frozen settings): `control` (clean line) or `regular`. */
  complexity: z.enum(["control", "regular"]),
});
export type VoiceStart = z.infer<typeof voiceStartSchema>;

export const voiceClientMessageSchema = z.discriminatedUnion("type", [
  voiceStartSchema,
  z.object({ type: z.literal("hangup") }),
]);
export type VoiceClientMessage = z.infer<typeof voiceClientMessageSchema>;

const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** The tool's answer (it ran inside the tick). */
  result: z.string(),
  error: z.boolean(),
  /** The agent's records the call names by its arguments, whole, as they stand after its tick. */
  records: z.array(WorldRecordSchema),
});
export type VoiceToolCallView = z.infer<typeof toolCallSchema>;

/** An interaction-metric event (late response, failed yield, interruption, backchannel), as the timeline marks it. */
const interactionEventSchema = z.object({
  time: z.number(),
  category: z.string(),
  label: z.string(),
  error: z.boolean(),
  warning: z.boolean(),
});
export type VoiceInteractionEvent = z.infer<typeof interactionEventSchema>;

export const voiceServerMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("ready"),
    agents: z.array(
      z.object({
        spec: z.string(),
        label: z.string(),
        scripted: z.boolean(),
        /** Why it cannot be called here (a key not set, no text model); absent: it can. */
        unavailable: z.string().optional(),
      }),
    ),
    /** Whether a simulated customer is a scripted demo (no model): espeak-ng speech or codec tones. */
    scriptedCustomer: z.boolean(),
    /** How the scripted customer speaks (and why, when it is codec tones), in a sentence. */
    scriptedCustomerNote: z.string(),
    tasks: z.array(z.object({ domain: z.string(), id: z.string(), title: z.string() })),
  }),
  z.object({
    type: z.literal("started"),
    tickSeconds: z.number(),
    bytesPerTick: z.number().int(),
    agent: z.string(),
    customer: z.string(),
    /** Some part is scripted (no model): the call is a demo, not a measurement. */
    scriptedDemo: z.boolean(),
    /** The line's standing conditions (background noise and its level, band-pass, drops), in words. */
    line: z.array(z.string()),
  }),
  z.object({
    type: z.literal("tick"),
    tick: z.number().int(),
    /** What the agent heard (the caller after the line), base64 μ-law. */
    user: z.string(),
    /** What the agent said, base64 μ-law. */
    agent: z.string(),
    userText: z.string(),
    agentText: z.string(),
    userSpeech: z.boolean(),
    agentSpeech: z.boolean(),
    agentToolCalls: z.array(toolCallSchema),
    userToolCalls: z.array(toolCallSchema),
    /** Effects on the caller's audio in this tick (`burst: dog_bark.wav`, `frames lost 40 ms`, `muffled`). */
    effects: z.array(z.string()),
    /** The agent's world as this tick's tool calls changed it: each record's changed fields, old → new. */
    worldChanges: z.array(RecordChangeSchema),
    /** Each record those changes left, whole, as it now stands. */
    worldCurrent: z.array(WorldRecordSchema),
    /**
     * Interaction-metric events this tick settled (src/voice/live-interaction-events.ts): computed with
     * the metrics' own code at each settled point of the call, so an event shown is one of the call's.
     */
    events: z.array(interactionEventSchema),
  }),
  z.object({
    type: z.literal("ended"),
    termination: z.string(),
    /** Null when the call was not graded (a failure on passk's side or a provider's). */
    reward: z.number().nullable(),
    explanation: z.string().nullable(),
    error: z.string().nullable(),
    ticks: z.number().int(),
    /** Every interaction-metric event of the call (those the ticks gave, and those only its end settles). */
    events: z.array(interactionEventSchema),
  }),
  z.object({ type: z.literal("error"), message: z.string() }),
]);
export type VoiceServerMessage = z.infer<typeof voiceServerMessageSchema>;
export type VoiceTickMessage = Extract<VoiceServerMessage, { type: "tick" }>;
export type VoiceReadyMessage = Extract<VoiceServerMessage, { type: "ready" }>;
export type VoiceStartedMessage = Extract<VoiceServerMessage, { type: "started" }>;
export type VoiceEndedMessage = Extract<VoiceServerMessage, { type: "ended" }>;
