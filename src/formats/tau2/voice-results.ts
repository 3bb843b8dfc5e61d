import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { InvalidInputFileError } from "../../core/errors.js";
import { RewardInfoSchema } from "../../core/simulation.js";
import { parseJsonFile, validateInputFile } from "../../core/json-file.js";

// The reference's full-duplex (voice) simulations, as far as the interaction metrics read them: a
// simulation is a list of ticks, each holding the last chunk each side produced in it. Only the
// fields the metrics use are validated; the rest of each record is left as it is.

/** A vocal tic or a phrase not directed at the agent, inserted into the caller's audio. */
export const SpeechInsertSchema = z.object({
  text: z.string(),
  type: z.enum(["vocal_tic", "non_directed_phrase"]),
});

/** Effects applied to the caller's voice in a tick. */
export const SpeechEffectsSchema = z.object({
  dynamic_muffling_enabled: z.boolean().default(false),
  speech_insert: SpeechInsertSchema.nullable().default(null),
});

/** Effects of the caller's surroundings in a tick (a burst of noise, a side remark). */
export const SourceEffectsSchema = z.object({
  burst_noise_file: z.string().nullable().default(null),
  speech_insert: SpeechInsertSchema.nullable().default(null),
});

/** The caller's turn-taking decision in a tick (`wait`, `keep_talking`, `backchannel`, …). */
export const TurnTakingActionSchema = z.object({
  action: z.string(),
  info: z.string().nullable().optional(),
});

/** One side's chunk in a tick. The reference's messages default `contains_speech` to true. */
export const TickChunkSchema = z.object({
  role: z.string(),
  contains_speech: z.boolean().default(true),
  turn_taking_action: TurnTakingActionSchema.nullable().default(null),
  speech_effects: SpeechEffectsSchema.nullable().default(null),
  source_effects: SourceEffectsSchema.nullable().default(null),
});

export const TickSchema = z.object({
  tick_id: z.number().int(),
  timestamp: z.string(),
  agent_chunk: TickChunkSchema.nullable().default(null),
  user_chunk: TickChunkSchema.nullable().default(null),
});

/**
 * A simulation of the directory results format; a full-duplex one carries `ticks`. How it ended and its
 * reward and cost are kept for scoring (a leaderboard submission's pass^k).
 */
export const VoiceSimulationSchema = z.object({
  id: z.string(),
  task_id: z.union([z.string(), z.number()]).transform(String),
  trial: z.number().int().nullable().optional(),
  mode: z.string().nullable().optional(),
  termination_reason: z.string().nullable().optional(),
  reward_info: RewardInfoSchema.nullable().optional(),
  agent_cost: z.number().nullable().optional(),
  user_cost: z.number().nullable().optional(),
  duration: z.number().nullable().optional(),
  ticks: z.array(TickSchema).nullable().default(null),
});

/** What the metrics read of a voice run's results.json: the domain and the tick length it used. */
export const VoiceResultsMetaSchema = z.object({
  timestamp: z.string().nullable().optional(),
  info: z.object({
    environment_info: z.object({ domain_name: z.string() }),
    speech_complexity: z.string().nullable().optional(),
    audio_native_config: z
      .object({ tick_duration_seconds: z.number().positive().nullable().optional() })
      .nullable()
      .optional(),
  }),
  simulation_index: z
    .array(z.object({ id: z.string() }))
    .nullable()
    .optional(),
});

export type SpeechInsert = z.infer<typeof SpeechInsertSchema>;
export type TickChunk = z.infer<typeof TickChunkSchema>;
export type Tick = z.infer<typeof TickSchema>;
export type VoiceSimulation = z.infer<typeof VoiceSimulationSchema>;
export type VoiceResultsMeta = z.infer<typeof VoiceResultsMetaSchema>;

/** A directory-format run: its metadata and its simulations, in file-name order (as the reference loads them). */
export interface VoiceResults {
  folder: string;
  meta: VoiceResultsMeta;
  simulations: VoiceSimulation[];
}

const HINT =
  "a τ-voice run directory holds results.json ({timestamp, info, …}) and simulations/<id>.json, one full-duplex " +
  "simulation per file with its ticks, as tau2-bench writes with `--save-format dir`.";

/** Whether `folder` is a directory-format run whose simulations carry ticks (a voice run). */
export function isVoiceResultsDir(folder: string): boolean {
  if (!existsSync(path.join(folder, "results.json")) || !statSync(folder).isDirectory()) return false;
  const simulations = path.join(folder, "simulations");
  if (!existsSync(simulations)) return false;
  const first = simulationFiles(simulations)[0];
  if (first === undefined) return false;
  const head = readFileSync(path.join(simulations, first), "utf8");
  return /"ticks"\s*:\s*\[/.test(head);
}

function simulationFiles(folder: string): string[] {
  // Python's sorted() over the paths: code-unit order, as JavaScript's default sort.
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort();
}

/**
 * Read the reference's directory results format (`results.json` + `simulations/*.json`), checking the
 * simulation files against results.json's `simulation_index` when it has one, as the reference does.
 */
export function readVoiceResultsDir(folder: string): VoiceResults {
  const metaFile = path.join(folder, "results.json");
  if (!existsSync(metaFile)) {
    throw new InvalidInputFileError(folder, [{ path: "(folder)", message: "has no results.json" }], HINT);
  }
  const meta = validateInputFile(
    VoiceResultsMetaSchema,
    parseJsonFile(readFileSync(metaFile, "utf8"), metaFile, HINT),
    metaFile,
    HINT,
  );
  const simulationsDir = path.join(folder, "simulations");
  const names = existsSync(simulationsDir) ? simulationFiles(simulationsDir) : [];
  if (meta.simulation_index) {
    const onDisk = new Set(names.map((name) => name.slice(0, -".json".length)));
    const indexed = new Set(meta.simulation_index.map((entry) => entry.id));
    const problems = [
      ...[...indexed].filter((id) => !onDisk.has(id)).map((id) => `simulations/${id}.json is missing`),
      ...[...onDisk]
        .filter((id) => !indexed.has(id))
        .map((id) => `simulations/${id}.json is not in the index`),
    ];
    if (problems.length > 0) {
      throw new InvalidInputFileError(
        folder,
        problems.map((message) => ({ path: "$.simulation_index", message })),
        "the simulation files must be exactly those results.json's simulation_index lists.",
      );
    }
  }
  const simulations = names.map((name) => {
    const file = path.join(simulationsDir, name);
    const raw = parseJsonFile(readFileSync(file, "utf8"), file, HINT);
    return validateInputFile(VoiceSimulationSchema, raw, file, HINT);
  });
  return { folder, meta, simulations };
}

/** The tick length a voice run recorded (`info.audio_native_config.tick_duration_seconds`), if it did. */
export function recordedTickDuration(meta: VoiceResultsMeta): number | undefined {
  return meta.info.audio_native_config?.tick_duration_seconds ?? undefined;
}
