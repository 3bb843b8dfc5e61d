import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { prettifyError, z } from "zod";
import { closest, ConfigError } from "../core/errors.js";

// The reference's per-task voice settings (`<data dir>/<domain>/tasks_voice.json`): for each task and
// speech-complexity level, the caller's frozen voice settings (persona, noise recordings, turn-taking,
// the effects of the caller's voice, surroundings and line). They were sampled once upstream and cannot
// be regenerated, so passk reads them as data.

/** The reference's speech-complexity levels: `control`, `regular` and six ablations of `control`. */
export const SPEECH_COMPLEXITIES = [
  "control",
  "regular",
  "control_audio",
  "control_accents",
  "control_behavior",
  "control_audio_accents",
  "control_audio_behavior",
  "control_accents_behavior",
] as const;
export type SpeechComplexity = (typeof SPEECH_COMPLEXITIES)[number];

const speechInsertSchema = z.object({
  text: z.string(),
  type: z.enum(["vocal_tic", "non_directed_phrase"]),
});

const channelEffectsSchema = z.object({
  enable_frame_drops: z.boolean(),
  /** Target fraction of the line's audio lost (0 ≤ rate < 0.2). */
  frame_drop_rate: z.number().min(0).lt(0.2),
  /** Mean length of a burst of losses (ms). */
  frame_drop_burst_duration_ms: z.number().positive(),
  frame_drop_count: z.number().int().min(1),
  frame_drop_duration_ms: z.number().int().min(1),
});

const sourceEffectsSchema = z.object({
  enable_background_noise: z.boolean(),
  /** Background noise level under the nominal speech level (dB). */
  noise_snr_db: z.number(),
  /** How far the noise level wanders either side of `noise_snr_db` (dB). */
  noise_snr_drift_db: z.number().min(0),
  /** How fast it wanders (Hz of the slowest component's cycle, scaled). */
  noise_variation_speed: z.number().min(0),
  enable_burst_noise: z.boolean(),
  burst_noise_events_per_minute: z.number().min(0),
  burst_snr_range_db: z.tuple([z.number(), z.number()]),
});

const speechEffectsSchema = z.object({
  enable_dynamic_muffling: z.boolean(),
  muffle_probability: z.number().min(0).max(1),
  muffle_segment_count: z.number().int().min(1),
  muffle_segment_duration_ms: z.number().int().min(1),
  muffle_cutoff_freq: z.number().min(100),
  muffle_transition_ms: z.number().int().min(0),
  enable_vocal_tics: z.boolean(),
  vocal_tics: z.array(speechInsertSchema),
  min_words_for_vocal_tics: z.number().int().min(1),
  enable_non_directed_phrases: z.boolean(),
  non_directed_phrases: z.array(speechInsertSchema),
  speech_insert_events_per_minute: z.number().min(0),
});

/** One task's voice settings at one complexity level (the reference's sampled voice config). */
export const voiceSettingsSchema = z.object({
  persona_name: z.string(),
  background_noise_file: z.string().nullable(),
  burst_noise_files: z.array(z.string()),
  environment: z.string().nullable(),
  backchannel_min_threshold: z.number().int().nullable(),
  /** Absent in older files (mock's): the reference's default, true. */
  use_llm_backchannel: z.boolean().default(true),
  enable_interruptions: z.boolean(),
  /** Absent in older files (mock's): the reference's default, true. */
  telephony_enabled: z.boolean().default(true),
  channel_effects_config: channelEffectsSchema,
  source_effects_config: sourceEffectsSchema,
  speech_effects_config: speechEffectsSchema,
  persona_config: z.object({
    verbosity: z.string(),
    interrupt_tendency: z.string(),
  }),
  complexity: z.enum(SPEECH_COMPLEXITIES),
});
export type VoiceSettings = z.infer<typeof voiceSettingsSchema>;
export type ChannelEffectsSettings = VoiceSettings["channel_effects_config"];
export type SourceEffectsSettings = VoiceSettings["source_effects_config"];
export type SpeechEffectsSettings = VoiceSettings["speech_effects_config"];

const byComplexitySchema = z.partialRecord(z.enum(SPEECH_COMPLEXITIES), voiceSettingsSchema);

/**
 * The file: `{base_seed, configs: {task_id: {configs: {complexity: settings}}}}`. Older files (mock's)
 * put the levels directly under the task id; both read the same.
 */
export const tasksVoiceFileSchema = z.object({
  base_seed: z.number().int(),
  configs: z.record(
    z.string(),
    z.preprocess(
      (entry) =>
        typeof entry === "object" && entry !== null && Object.keys(entry).join() === "configs"
          ? (entry as { configs: unknown }).configs
          : entry,
      byComplexitySchema,
    ),
  ),
});
export type TasksVoiceFile = z.infer<typeof tasksVoiceFileSchema>;

/** Where a domain's voice settings live in a passk data dir. */
export function tasksVoicePath(dataDir: string, domain: string): string {
  return path.join(dataDir, domain, "tasks_voice.json");
}

/** Parse a tasks_voice.json text; `source` names it in errors. */
export function parseTasksVoice(text: string, source: string): TasksVoiceFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${source} is not JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = tasksVoiceFileSchema.safeParse(json);
  if (!parsed.success)
    throw new ConfigError(
      `${source} is not a τ-voice tasks_voice.json (${prettifyError(parsed.error).replace(/\n/g, " ")})`,
    );
  return parsed.data;
}

/** A domain's voice settings from a passk data dir (`<data dir>/<domain>/tasks_voice.json`). */
export function loadTasksVoice(dataDir: string, domain: string): TasksVoiceFile {
  const file = tasksVoicePath(dataDir, domain);
  if (!existsSync(file))
    throw new ConfigError(
      `no voice settings for domain ${domain}: ${file} does not exist. Run \`passk data pull\` to fetch ` +
        `the τ-voice files (the reference publishes them for mock, airline, retail, banking_knowledge and telecom; ` +
        `telecom's needs the network), or point --data / PASSK_DATA_DIR at a data dir that has them.`,
    );
  return parseTasksVoice(readFileSync(file, "utf8"), file);
}

/** One task's settings at one complexity level, with errors that name what is known. */
export function voiceSettingsFor(file: TasksVoiceFile, taskId: string, complexity: string): VoiceSettings {
  const task = file.configs[taskId];
  if (task === undefined) {
    const known = Object.keys(file.configs);
    const hint = closest(taskId, known);
    throw new ConfigError(
      `no voice settings for task ${taskId}` +
        (hint ? ` (did you mean ${hint}?)` : "") +
        `; the file has ${known.length} tasks${known.length <= 12 ? `: ${known.join(", ")}` : ""}.`,
    );
  }
  const settings = (task as Record<string, VoiceSettings | undefined>)[complexity];
  if (settings === undefined) {
    const known = Object.keys(task);
    throw new ConfigError(
      `no voice settings for task ${taskId} at speech complexity ${complexity}; known for this task: ${known.join(", ")}` +
        (SPEECH_COMPLEXITIES.includes(complexity as SpeechComplexity)
          ? "."
          : ` (the reference's levels are ${SPEECH_COMPLEXITIES.join(", ")}).`),
    );
  }
  return settings;
}
