import { z } from "zod";

// The parts of the OpenAI Realtime (GA) event protocol that passk speaks, as both ends read them: the
// adapter reads server events, the mock server reads client events. Every event is a JSON object with a
// `type`; fields passk does not use are kept (loose objects) and ignored.

/** Token usage of one response (`response.done`). */
export const RealtimeUsageSchema = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  input_token_details: z
    .looseObject({
      text_tokens: z.number().optional(),
      audio_tokens: z.number().optional(),
      cached_tokens: z.number().optional(),
      cached_tokens_details: z
        .looseObject({ text_tokens: z.number().optional(), audio_tokens: z.number().optional() })
        .optional(),
    })
    .optional(),
  output_token_details: z
    .looseObject({ text_tokens: z.number().optional(), audio_tokens: z.number().optional() })
    .optional(),
});
export type RealtimeUsage = z.infer<typeof RealtimeUsageSchema>;

/** What transcribing one turn of the caller cost: tokens (gpt-4o-transcribe) or seconds (whisper-1). */
export const TranscriptionUsageSchema = z.union([
  z.looseObject({
    type: z.literal("tokens"),
    input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
    input_token_details: z
      .looseObject({ text_tokens: z.number().optional(), audio_tokens: z.number().optional() })
      .optional(),
  }),
  z.looseObject({ type: z.literal("duration"), seconds: z.number() }),
]);
export type TranscriptionUsage = z.infer<typeof TranscriptionUsageSchema>;

/** The server events the adapter acts on; any other type is read as `{ type }` and ignored. */
export const RealtimeServerEventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("session.created") }),
  // xAI's first event, in its older versions.
  z.looseObject({ type: z.literal("conversation.created") }),
  z.looseObject({ type: z.literal("session.updated") }),
  z.looseObject({
    type: z.literal("error"),
    error: z.looseObject({
      type: z.string().optional(),
      code: z.string().nullable().optional(),
      message: z.string().optional(),
    }),
  }),
  z.looseObject({
    type: z.literal("input_audio_buffer.speech_started"),
    audio_start_ms: z.number().optional(),
    item_id: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal("input_audio_buffer.speech_stopped"),
    audio_end_ms: z.number().optional(),
    item_id: z.string().optional(),
  }),
  // The session's input transcription of one of the caller's turns (`audio.input.transcription`).
  z.looseObject({
    type: z.literal("conversation.item.input_audio_transcription.completed"),
    item_id: z.string(),
    transcript: z.string(),
    usage: TranscriptionUsageSchema.nullable().optional(),
  }),
  z.looseObject({
    type: z.literal("response.output_audio.delta"),
    item_id: z.string(),
    delta: z.string(),
  }),
  z.looseObject({
    type: z.literal("response.output_audio_transcript.delta"),
    item_id: z.string(),
    delta: z.string(),
  }),
  z.looseObject({
    type: z.literal("response.function_call_arguments.done"),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
  }),
  z.looseObject({
    type: z.literal("response.done"),
    response: z.looseObject({
      id: z.string().optional(),
      status: z.string().optional(),
      status_details: z.unknown().optional(),
      usage: RealtimeUsageSchema.nullable().optional(),
    }),
  }),
]);
export type RealtimeServerEvent = z.infer<typeof RealtimeServerEventSchema>;

/** The server event types `RealtimeServerEventSchema` reads; others pass by. */
export const READ_SERVER_EVENTS: ReadonlySet<string> = new Set(
  RealtimeServerEventSchema.options.map((option) => option.shape.type.value),
);

/** The audio format both directions use on the telephone wire: G.711 μ-law at 8 kHz. */
export const PCMU_FORMAT = { type: "audio/pcmu" } as const;
