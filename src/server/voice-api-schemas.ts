import { z } from "zod";

// The explorer's voice-run API (`passk serve --voice-runs DIR…`): the answers' shapes, shared by the
// server and the web client (which parses every answer with them). Times are seconds from the call's start.

const IntervalSchema = z.object({ low: z.number(), high: z.number() });

/** An id of a voice run or a call: what the server made from a folder or file name, nothing else. */
const voiceId = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(200, `${what} is longer than 200 characters`)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
      error: `${what} holds only letters, digits, '.', '_' and '-' (it names a run or call, never a path)`,
    });

export const VoiceRunParamSchema = z.object({ runId: voiceId("runId") });
export const VoiceSimulationParamSchema = z.object({
  runId: voiceId("runId"),
  simulationId: voiceId("simulationId"),
});

export const InteractionMetricRowSchema = z.object({
  key: z.string(),
  symbol: z.string(),
  name: z.string(),
  value: z.number().nullable(),
  interval: IntervalSchema.nullable(),
  unit: z.enum(["seconds", "rate", "per_turn"]),
  better: z.enum(["higher", "lower"]),
  events: z.number().int(),
});

export const InteractionPanelSchema = z.object({
  rows: z.array(InteractionMetricRowSchema),
  counts: z.object({
    n_simulations: z.number().int(),
    response_total: z.number().int(),
    yield_total: z.number().int(),
    backchannel_total: z.number().int(),
    vocal_tic_total: z.number().int(),
    non_directed_total: z.number().int(),
    agent_interrupts_count: z.number().int(),
  }),
});

export const VoiceRunSummarySchema = z.object({
  id: z.string(),
  /** The run's folder name. */
  name: z.string(),
  domain: z.string(),
  speechComplexity: z.string().nullable(),
  agent: z.string().nullable(),
  timestamp: z.string().nullable(),
  numTrials: z.number().int().nullable(),
  simulations: z.number().int(),
  tickSeconds: z.number(),
  averageReward: z.number().nullable(),
  passHatK: z.record(z.string(), z.number()),
  passHatKIntervals: z.record(z.string(), IntervalSchema),
  interaction: InteractionPanelSchema.nullable(),
});

export const VoiceRunListSchema = z.object({
  runs: z.array(VoiceRunSummarySchema),
  /** Folders given that hold no voice run (or cannot be read), with why. */
  problems: z.array(z.string()),
});

export const VoiceCallSummarySchema = z.object({
  id: z.string(),
  taskId: z.string(),
  trial: z.number().int().nullable(),
  reward: z.number().nullable(),
  terminationReason: z.string().nullable(),
  durationSec: z.number(),
  explanation: z.string().nullable(),
  audio: z.boolean(),
});

export const VoiceRunDetailSchema = z.object({
  run: VoiceRunSummarySchema,
  calls: z.array(VoiceCallSummarySchema),
});

export const SpeechSegmentSchema = z.object({
  side: z.enum(["customer", "agent"]),
  startTick: z.number().int(),
  endTick: z.number().int(),
  start: z.number(),
  end: z.number(),
  text: z.string(),
  interruption: z.boolean(),
  backchannel: z.boolean(),
});

export const ToolCallMarkSchema = z.object({
  side: z.enum(["customer", "agent"]),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  tick: z.number().int(),
  time: z.number(),
  resultTick: z.number().int().nullable(),
  resultTime: z.number().nullable(),
  result: z.string().nullable(),
  error: z.boolean(),
});

export const InteractionEventMarkSchema = z.object({
  tick: z.number().int(),
  time: z.number(),
  category: z.string(),
  label: z.string(),
  error: z.boolean(),
  warning: z.boolean(),
  latencySec: z.number().nullable(),
});

export const VoiceCallDetailSchema = z.object({
  runId: z.string(),
  call: VoiceCallSummarySchema,
  domain: z.string(),
  speechComplexity: z.string().nullable(),
  tickSeconds: z.number(),
  segments: z.array(SpeechSegmentSchema),
  toolCalls: z.array(ToolCallMarkSchema),
  events: z.array(InteractionEventMarkSchema),
  /** Where the stereo recording is served (customer left, agent right), when the run kept it. */
  audioUrl: z.string().nullable(),
});

export type VoiceRunSummary = z.infer<typeof VoiceRunSummarySchema>;
export type VoiceRunList = z.infer<typeof VoiceRunListSchema>;
export type VoiceRunDetail = z.infer<typeof VoiceRunDetailSchema>;
export type VoiceCallSummary = z.infer<typeof VoiceCallSummarySchema>;
export type VoiceCallDetail = z.infer<typeof VoiceCallDetailSchema>;
export type SpeechSegmentView = z.infer<typeof SpeechSegmentSchema>;
export type InteractionMetricRowView = z.infer<typeof InteractionMetricRowSchema>;
