import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ConfigError, InvalidInputFileError } from "../core/errors.js";
import { makeDirectory } from "../core/make-directory.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import {
  copyPyFloatMarks,
  markPyFloat,
  parseJsonKeepingPyFloats,
  stringifyKeepingPyFloats,
} from "../python/py-float.js";
import {
  simulationAudioDir,
  simulationTapsDir,
  writeSimulationAudio,
  type AudioTapRecorder,
  type CallWireAudio,
  type LabelTick,
} from "./audio-artifacts.js";
import { DEFAULT_TICK_SECONDS, WIRE_SAMPLE_RATE } from "./call.js";

// A voice run on disk in the reference's directory results format: `results.json` (timestamp, info,
// tasks, simulation_index) and `simulations/<id>.json`, one full-duplex simulation per file. The run
// grows one simulation at a time: each simulation file is written atomically, then results.json is
// rewritten atomically with the simulation's entry in its index, so a run killed at any moment keeps
// every simulation it finished. A kill between those two writes leaves a simulation file the index does
// not list yet; opening the run again (`VoiceResultsWriter.open`, `repairVoiceResultsDir`) adds it.

/** The folder of a run directory that holds one file per simulation. */
export const SIMULATIONS_DIR = "simulations";
/** The run's metadata file. */
export const RESULTS_FILE = "results.json";

/**
 * The reference's `audio_native_config` with its defaults (tau2-bench's config at the pinned commit):
 * the speech-to-speech provider and model, the tick, and the simulated caller's turn-taking thresholds.
 */
export const AudioNativeConfigSchema = z.object({
  provider: z.string(),
  cascaded_config_name: z.string().nullable().default(null),
  model: z.string(),
  reasoning_effort: z.string().nullable().default(null),
  tick_duration_seconds: z.number().positive().default(DEFAULT_TICK_SECONDS),
  max_steps_seconds: z.number().int().positive().default(1200),
  pcm_sample_rate: z.number().int().positive().default(16000),
  telephony_rate: z.number().int().positive().default(WIRE_SAMPLE_RATE),
  wait_to_respond_threshold_other_seconds: z.number().default(1.0),
  wait_to_respond_threshold_self_seconds: z.number().default(5.0),
  yield_threshold_when_interrupted_seconds: z.number().default(1.0),
  yield_threshold_when_interrupting_seconds: z.number().default(5.0),
  interruption_check_interval_seconds: z.number().default(2.0),
  integration_duration_seconds: z.number().default(0.5),
  silence_annotation_threshold_seconds: z.number().default(4.0),
  backchannel_min_threshold_seconds: z.number().nullable().default(3.0),
  backchannel_max_threshold_seconds: z.number().nullable().default(12.0),
  backchannel_poisson_rate: z.number().default(0.1),
  use_llm_backchannel: z.boolean().default(true),
  use_xml_prompt: z.boolean().default(false),
  send_audio_instant: z.boolean().default(false),
});
export type AudioNativeConfig = z.infer<typeof AudioNativeConfigSchema>;
export type AudioNativeConfigInput = z.input<typeof AudioNativeConfigSchema>;

/** Keys of `audio_native_config` the reference types as floats (written `1.0`, not `1`). */
const AUDIO_NATIVE_FLOATS = [
  "tick_duration_seconds",
  "wait_to_respond_threshold_other_seconds",
  "wait_to_respond_threshold_self_seconds",
  "yield_threshold_when_interrupted_seconds",
  "yield_threshold_when_interrupting_seconds",
  "interruption_check_interval_seconds",
  "integration_duration_seconds",
  "silence_annotation_threshold_seconds",
  "backchannel_min_threshold_seconds",
  "backchannel_max_threshold_seconds",
  "backchannel_poisson_rate",
] as const;

const ParticipantSchema = z.looseObject({
  implementation: z.string().min(1),
  llm: z.string().nullable().optional(),
  llm_args: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** What the reference's `Results.info` requires of a voice run (other keys are kept as given). */
export const VoiceRunInfoSchema = z.looseObject({
  git_commit: z.string(),
  num_trials: z.number().int().positive(),
  max_steps: z.number().int().positive(),
  max_errors: z.number().int().nonnegative(),
  user_info: ParticipantSchema,
  agent_info: ParticipantSchema,
  environment_info: z.looseObject({ domain_name: z.string().min(1), policy: z.string() }),
  seed: z.number().int().nullable().optional(),
  speech_complexity: z.string().nullable().optional(),
  audio_native_config: z.looseObject({
    provider: z.string(),
    model: z.string(),
    tick_duration_seconds: z.number().positive(),
  }),
});
export type VoiceRunInfo = z.infer<typeof VoiceRunInfoSchema>;

/** A participant of a voice run as `info` records it. */
export interface VoiceParticipantInfo {
  implementation: string;
  llm?: string | null;
  llmArgs?: Record<string, unknown> | null;
}

export interface VoiceRunInfoOptions {
  domain: string;
  policy: string;
  /** The passk version (or commit) that ran the call (`info.git_commit`). */
  gitCommit: string;
  numTrials: number;
  seed: number | null;
  /** `control`, `regular` or an ablation, as the reference names them. */
  speechComplexity: string;
  agent: VoiceParticipantInfo & { voiceSettings?: unknown };
  user: VoiceParticipantInfo & {
    /** The voice simulation guidelines the caller was given. */
    guidelines?: string | null;
    /** The reference's `VoiceSettings` (synthesis config with its effects, speech environment…). */
    voiceSettings?: unknown;
    /** The reference's `PersonaConfig` (verbosity, interrupt tendency). */
    personaConfig?: unknown;
  };
  /** Provider and model are required; everything else defaults to the reference's values. */
  audioNative: AudioNativeConfigInput;
  /** Default: the call's length in ticks (`max_steps_seconds / tick_duration_seconds`), as the reference. */
  maxSteps?: number;
  maxErrors?: number;
  toolDefs?: unknown;
  retrievalConfig?: string | null;
  retrievalConfigKwargs?: Record<string, unknown> | null;
  /** passk's own record of the run (config, versions), kept under `info.passk`. */
  passk?: Record<string, unknown>;
}

/** The reference's `info` block of a voice run (keys in the reference's order). */
export function voiceRunInfo(options: VoiceRunInfoOptions): VoiceRunInfo {
  const audio = AudioNativeConfigSchema.parse(options.audioNative);
  for (const key of AUDIO_NATIVE_FLOATS) if (audio[key] !== null) markPyFloat(audio, key);
  const info = {
    git_commit: options.gitCommit,
    num_trials: options.numTrials,
    max_steps: options.maxSteps ?? Math.round(audio.max_steps_seconds / audio.tick_duration_seconds),
    max_errors: options.maxErrors ?? 10,
    user_info: {
      implementation: options.user.implementation,
      llm: options.user.llm ?? null,
      llm_args: options.user.llmArgs ?? null,
      global_simulation_guidelines: options.user.guidelines ?? null,
      voice_settings: options.user.voiceSettings ?? null,
      persona_config: options.user.personaConfig ?? null,
    },
    agent_info: {
      implementation: options.agent.implementation,
      llm: options.agent.llm ?? null,
      llm_args: options.agent.llmArgs ?? null,
      voice_settings: options.agent.voiceSettings ?? null,
    },
    environment_info: {
      domain_name: options.domain,
      policy: options.policy,
      tool_defs: options.toolDefs ?? null,
    },
    seed: options.seed,
    text_streaming_config: { chunk_by: "words", chunk_size: 1 },
    speech_complexity: options.speechComplexity,
    audio_native_config: audio,
    retrieval_config: options.retrievalConfig ?? null,
    retrieval_config_kwargs: options.retrievalConfigKwargs ?? null,
    ...(options.passk ? { passk: options.passk } : {}),
  };
  // Checked, but returned as built: a parse would copy it and lose the float marks.
  VoiceRunInfoSchema.parse(info);
  return info as VoiceRunInfo;
}

/** The header of a run: everything in results.json but the index. */
export interface VoiceResultsHeader {
  /** Default: now, as the reference's `get_now()` writes it (local time, no zone). */
  timestamp?: string;
  info: VoiceRunInfo;
  /** The tasks of the run, in the reference's task format. */
  tasks: readonly unknown[];
}

/**
 * A finished full-duplex simulation as the reference's `SimulationRun` requires it; other fields
 * (reward_info, ticks, speech_environment, effect_timeline, …) are written as given.
 */
export const VoiceSimulationRecordSchema = z.looseObject({
  id: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
      error: "a simulation id names its file: letters, digits, '.', '_' and '-' only",
    }),
  task_id: z.string().min(1),
  timestamp: z.string().optional(),
  start_time: z.string(),
  end_time: z.string(),
  duration: z.number(),
  termination_reason: z.string().min(1),
  trial: z.number().int().nonnegative(),
  seed: z.number().int().nullable().optional(),
  agent_cost: z.number().nullable().optional(),
  user_cost: z.number().nullable().optional(),
  reward_info: z.looseObject({ reward: z.number() }).nullable().optional(),
  mode: z.literal("full_duplex"),
  ticks: z.array(z.looseObject({ tick_id: z.number().int(), timestamp: z.string() })),
});
export type VoiceSimulationRecord = z.infer<typeof VoiceSimulationRecordSchema>;

/** What `append` writes beside a simulation: its audio (both.wav and label tracks) and its taps. */
export interface VoiceSimulationArtifacts {
  /** Each side's wire audio, one chunk per tick: gives artifacts/task_<id>/sim_<id>/audio/. */
  wire?: CallWireAudio;
  /** The `--audio-taps` recordings: gives …/audio/taps/. */
  taps?: AudioTapRecorder;
}

/** One simulation's line in results.json's `simulation_index` (the reference's `SimulationIndexEntry`). */
export interface SimulationIndexEntry {
  id: string;
  task_id: string;
  trial: number;
  reward: number | null;
  termination_reason: string | null;
  agent_cost: number | null;
  duration: number | null;
}

function indexEntry(simulation: VoiceSimulationRecord): SimulationIndexEntry {
  const entry: SimulationIndexEntry = {
    id: simulation.id,
    task_id: simulation.task_id,
    trial: simulation.trial,
    reward: simulation.reward_info?.reward ?? null,
    termination_reason: simulation.termination_reason,
    agent_cost: simulation.agent_cost ?? null,
    duration: simulation.duration,
  };
  if (entry.reward !== null) markPyFloat(entry, "reward");
  if (entry.duration !== null) markPyFloat(entry, "duration");
  return entry;
}

/** `get_now()`: local time without a zone, microseconds, as the reference stamps its files. */
function pythonNow(date = new Date()): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds() * 1000, 6)}`
  );
}

const MetaOnDiskSchema = z.looseObject({
  timestamp: z.string().nullable().optional(),
  info: VoiceRunInfoSchema,
  tasks: z.array(z.unknown()),
  simulation_index: z
    .array(z.looseObject({ id: z.string() }))
    .nullable()
    .optional(),
});

const json = (value: unknown) => `${stringifyKeepingPyFloats(value, 2)}\n`;

function simulationIdsOnDisk(simulationsDir: string): string[] {
  if (!existsSync(simulationsDir)) return [];
  return readdirSync(simulationsDir)
    .filter((name) => name.endsWith(".json") && !name.startsWith("."))
    .map((name) => name.slice(0, -".json".length))
    .sort();
}

/** What `repairVoiceResultsDir` changed in a run's index. */
export interface VoiceResultsRepair {
  /** Simulation files the index did not list (a run killed between the two writes), now listed. */
  added: string[];
  /** Index entries whose simulation file is gone, now dropped. */
  dropped: string[];
  /** Temporary files of interrupted writes, removed. */
  removedTemporaries: string[];
}

/**
 * A voice run's directory, written as the run goes. `create` starts a new run, `open` continues one
 * (after `--resume`), `append` adds one finished simulation.
 */
export class VoiceResultsWriter {
  readonly folder: string;
  readonly simulationsDir: string;
  private readonly metaFile: string;
  private meta: Record<string, unknown>;
  private readonly index = new Map<string, { task_id: unknown; trial?: unknown }>();

  private constructor(folder: string, meta: Record<string, unknown>) {
    this.folder = folder;
    this.simulationsDir = path.join(folder, SIMULATIONS_DIR);
    this.metaFile = path.join(folder, RESULTS_FILE);
    this.meta = meta;
  }

  /** Start a run in `folder` (absent or empty): results.json with an empty index, and simulations/. */
  static create(folder: string, header: VoiceResultsHeader): VoiceResultsWriter {
    if (existsSync(folder)) {
      if (!statSync(folder).isDirectory())
        throw new ConfigError(`${folder} is a file; give a directory for the voice run's results.`);
      if (readdirSync(folder).length > 0)
        throw new ConfigError(
          `${folder} is not empty; give a new directory, or continue the run there (--resume).`,
        );
    }
    VoiceRunInfoSchema.parse(header.info);
    const writer = new VoiceResultsWriter(folder, {
      timestamp: header.timestamp ?? pythonNow(),
      info: header.info,
      tasks: [...header.tasks],
    });
    makeDirectory(writer.simulationsDir, folder);
    writer.flush();
    return writer;
  }

  /** Continue a run written earlier (repairing its index first: see `repairVoiceResultsDir`). */
  static open(folder: string): VoiceResultsWriter {
    repairVoiceResultsDir(folder);
    const metaFile = path.join(folder, RESULTS_FILE);
    const raw = readMeta(metaFile);
    const writer = new VoiceResultsWriter(folder, raw);
    for (const entry of (raw.simulation_index as Array<{ id: string; task_id: unknown }> | null) ?? [])
      writer.index.set(entry.id, entry);
    return writer;
  }

  /** The ids of the simulations written so far, in the order they were appended. */
  simulationIds(): string[] {
    return [...this.index.keys()];
  }

  /** The index of the simulations written so far (results.json's `simulation_index`). */
  entries(): SimulationIndexEntry[] {
    return [...this.index.values()] as SimulationIndexEntry[];
  }

  /** Whether a simulation of this task and trial is already written (to skip it on resume). */
  has(taskId: string, trial: number): boolean {
    return [...this.index.values()].some((e) => e.task_id === taskId && e.trial === trial);
  }

  /**
   * Write one finished simulation: its audio artifacts when given, `simulations/<id>.json`, then
   * results.json with its index entry. A second simulation of the same task and trial replaces the
   * first (a retried call).
   */
  append(
    simulation: VoiceSimulationRecord | Record<string, unknown>,
    artifacts: VoiceSimulationArtifacts = {},
  ): void {
    const parsed = VoiceSimulationRecordSchema.safeParse(simulation);
    if (!parsed.success)
      throw new InvalidInputFileError(
        "(voice simulation)",
        parsed.error.issues.map((issue) => ({
          path: `$.${issue.path.join(".")}`,
          message: issue.message,
        })),
        "a voice simulation needs id, task_id, trial, start_time, end_time, duration, termination_reason, mode full_duplex and ticks.",
      );
    const record = parsed.data;
    // The audio first: a simulation the index lists has its audio.
    if (artifacts.wire) {
      const tickSeconds = (this.meta.info as VoiceRunInfo).audio_native_config.tick_duration_seconds;
      writeSimulationAudio(simulationAudioDir(this.folder, record.task_id, record.id), {
        ticks: record.ticks as unknown as LabelTick[],
        tickSeconds,
        wire: artifacts.wire,
      });
    }
    artifacts.taps?.save(simulationTapsDir(this.folder, record.task_id, record.id));
    writeFileAtomic(
      path.join(this.simulationsDir, `${record.id}.json`),
      json(withFloatBreakdown(simulation)),
    );
    for (const [id, entry] of this.index)
      if (id !== record.id && entry.task_id === record.task_id && entry.trial === record.trial) {
        this.index.delete(id);
        rmSync(path.join(this.simulationsDir, `${id}.json`), { force: true });
      }
    this.index.set(record.id, indexEntry(record));
    this.flush();
  }

  private flush(): void {
    const { simulation_index: _old, ...rest } = this.meta;
    this.meta = { ...rest, simulation_index: [...this.index.values()] };
    writeFileAtomic(this.metaFile, json(this.meta));
  }
}

/**
 * The simulation with its reward breakdown as the reference types it (`dict[RewardType, float]`): a
 * component passk could not evaluate (NL assertions without a judge, null) would make the file
 * unloadable there, so it is left out — `reward_info.info.nl_assertions_needing_llm_judge` says so.
 */
function withFloatBreakdown<T extends Record<string, unknown>>(simulation: T): T {
  const rewardInfo = simulation.reward_info as { reward_breakdown?: unknown } | null | undefined;
  const breakdown = rewardInfo?.reward_breakdown;
  if (typeof breakdown !== "object" || breakdown === null || Array.isArray(breakdown)) return simulation;
  const entries = Object.entries(breakdown);
  if (entries.every(([, value]) => value !== null)) return simulation;
  const kept = Object.fromEntries(entries.filter(([, value]) => value !== null));
  const info = { ...rewardInfo, reward_breakdown: kept };
  const out = { ...simulation, reward_info: info };
  // The copies keep which numbers are Python floats.
  copyPyFloatMarks(simulation, out);
  copyPyFloatMarks(rewardInfo, info);
  copyPyFloatMarks(breakdown, kept);
  return out;
}

/** results.json as written (float marks kept), checked against what the reference requires. */
function readMeta(metaFile: string): Record<string, unknown> {
  const raw = parseJsonKeepingPyFloats(readFileSync(metaFile, "utf8"));
  const checked = MetaOnDiskSchema.safeParse(raw);
  if (!checked.success)
    throw new InvalidInputFileError(
      metaFile,
      checked.error.issues.map((issue) => ({ path: `$.${issue.path.join(".")}`, message: issue.message })),
      "a voice run's results.json holds timestamp, info (with audio_native_config), tasks and simulation_index.",
    );
  return raw as Record<string, unknown>;
}

/**
 * Bring a run directory's index in line with its simulation files after an interrupted run: list the
 * simulation files it misses (written just before a kill), drop entries whose file is gone, remove
 * temporary files of interrupted writes. A directory that needs nothing is left untouched.
 */
export function repairVoiceResultsDir(folder: string): VoiceResultsRepair {
  const metaFile = path.join(folder, RESULTS_FILE);
  if (!existsSync(metaFile))
    throw new ConfigError(`${folder} has no ${RESULTS_FILE}; it is not a voice run directory.`);
  const simulationsDir = path.join(folder, SIMULATIONS_DIR);
  const removedTemporaries: string[] = [];
  for (const dir of [folder, simulationsDir]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir))
      if (name.startsWith(".") && name.endsWith(".tmp")) {
        rmSync(path.join(dir, name), { force: true });
        removedTemporaries.push(path.relative(folder, path.join(dir, name)));
      }
  }
  const raw = readMeta(metaFile);
  const index =
    (raw.simulation_index as Array<Record<string, unknown> & { id: string }> | null | undefined) ?? [];
  const onDisk = new Set(simulationIdsOnDisk(simulationsDir));
  const listed = new Set(index.map((e) => e.id));
  const dropped = index.filter((e) => !onDisk.has(e.id)).map((e) => e.id);
  const added: string[] = [];
  const kept: object[] = index.filter((e) => onDisk.has(e.id));
  for (const id of [...onDisk].filter((id) => !listed.has(id))) {
    const file = path.join(simulationsDir, `${id}.json`);
    const parsed = VoiceSimulationRecordSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success || parsed.data.id !== id) {
      // Not a simulation this run wrote: leave it for the reader to name.
      continue;
    }
    kept.push(indexEntry(parsed.data));
    added.push(id);
  }
  if (added.length > 0 || dropped.length > 0 || !Array.isArray(raw.simulation_index))
    writeFileAtomic(metaFile, json({ ...raw, simulation_index: kept }));
  return { added, dropped, removedTemporaries };
}
