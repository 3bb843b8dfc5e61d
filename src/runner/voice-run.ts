import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Task } from "../core/task.js";
import type { Judge } from "../core/judge.js";
import { InfrastructureError } from "../core/llm.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { toolSpecs } from "../env/tool-schema.js";
import { passHatK, isSuccessful } from "../metrics/pass-hat-k.js";
import { trialSeeds } from "./run-plan.js";
import {
  DEFAULT_TICK_SECONDS,
  type CallClock,
  type CallerLine,
  type EffectEvent,
  type EffectTimeline,
  type VoiceAgent,
} from "../voice/call.js";
import type { Tick } from "../voice/ticks.js";
import { SPEECH_REFERENCE_RMS } from "../voice/effects/levels.js";
import { simulateVoiceCall, DEFAULT_MAX_CALL_SECONDS } from "../voice/full-duplex-call.js";
import { gradeVoiceCall } from "../voice/linearize.js";
import { explainVoiceCall } from "../voice/explain-call.js";
import type { VoiceCustomer } from "../voice/voice-customer.js";
import { voiceSettingsFor, type TasksVoiceFile, type VoiceSettings } from "../voice/voice-settings.js";
import { AUDIO_TAPS, AudioTapRecorder, tappedLine } from "../voice/audio-artifacts.js";
import { createCallerLine } from "../voice/effects/caller-line.js";
import { loadCallerNoise } from "../voice/effects/noise.js";
import { VoiceResultsWriter, voiceRunInfo, type VoiceParticipantInfo } from "../voice/results-dir.js";
import { passkVersion } from "../version.js";
import type { VoicePricing } from "../voice/voice-cost.js";

// A voice run: tasks × trials of full-duplex calls, each graded as the reference grades voice runs and
// written as it finishes to the reference's directory results format, so a killed run loses nothing
// finished and `resume` starts only the calls that are not on disk (a call cut off mid-way starts over).

/** What a voice run does: which calls, with which settings. */
export interface VoiceRunSpec {
  data: DomainData;
  tasks: readonly Task[];
  numTrials: number;
  /** The run's seed; each trial's seed derives from it as in τ²-bench. */
  seed: number;
  /** The reference's per-task voice settings of the domain (`tasks_voice.json`). */
  voiceSettings: TasksVoiceFile;
  /** `control`, `regular` or an ablation. */
  speechComplexity: string;
  tickSeconds?: number;
  clock?: CallClock;
  maxCallSeconds?: number;
  maxConcurrency?: number;
  /** The run's directory (reference directory format); continued when `resume` is set. */
  saveTo: string;
  resume?: boolean;
  /** Where the noise recordings are (`passk data pull` puts them in the data dir). */
  dataDir: string;
  /**
   * Recordings the settings name that the data dir lacks (three of the four background recordings are
   * not available offline): replaced by one that is (or left out, for a burst), and reported. Default:
   * stop with the fix.
   */
  noiseSubstitutes?: boolean;
  /** Write both.wav and the label tracks of each call (default true). */
  audio?: boolean;
  /** Also record each call's audio at each stage of the pipeline into its `audio/taps/` (`--audio-taps`). */
  audioTaps?: boolean;
  /** How the agent's usage is priced: the price table, with `--prices` overrides. */
  pricing?: VoicePricing;
}

/** Who takes part: a fresh agent and customer per call. */
export interface VoiceRunParticipants {
  agent: () => VoiceAgent;
  agentInfo: VoiceParticipantInfo & { provider: string; model: string };
  customer: (call: { task: Task; settings: VoiceSettings; line: CallerLine; seed: number }) => VoiceCustomer;
  customerInfo: VoiceParticipantInfo & { guidelines?: string };
  /** The speech model's voice the customer speaks with in a call (recorded as `speech_environment.voice_id`). */
  customerVoice?: (settings: VoiceSettings) => string | undefined;
  judge?: Judge;
}

/** One finished call as the run reports it. */
export interface VoiceCallOutcome {
  taskId: string;
  trial: number;
  simulationId: string;
  reward: number | null;
  terminationReason: string;
  /** When the call failed on passk's side or a provider's: the sentence, and the call is not graded. */
  systemFailure?: string;
  /** Why the call scored below 1, from the record (a misheard value, else the failed checks). */
  explanation?: string;
  /** Noise recordings the data dir lacked and what stood in for them (`wanted → used`, or `wanted → none`). */
  noiseSubstitutions: string[];
}

export interface VoiceRunOutcome {
  folder: string;
  calls: VoiceCallOutcome[];
  /** Calls already on disk that a resumed run skipped. */
  skipped: number;
  /** pass^k for k = 1…numTrials over tasks with every trial graded. */
  passHatK: Record<number, number>;
  averageReward: number | null;
  /** USD over the calls on disk, each side's; null, with the first reason, when any call's is unknown. */
  cost: { agent: number | null; user: number | null; agentUnknown?: string; userUnknown?: string };
}

export interface VoiceRunOptions {
  onCall?: (outcome: VoiceCallOutcome) => void;
  /** Each tick of each call, as it ends (the call's task and trial with it). */
  onTick?: (tick: Tick, call: { taskId: string; trial: number }) => void;
  signal?: AbortSignal;
}

/** Run every (task, trial) call of `spec` that is not on disk yet, `maxConcurrency` at a time. */
export async function runVoiceCalls(
  spec: VoiceRunSpec,
  participants: VoiceRunParticipants,
  options: VoiceRunOptions = {},
): Promise<VoiceRunOutcome> {
  const tickSeconds = spec.tickSeconds ?? DEFAULT_TICK_SECONDS;
  const seeds = trialSeeds(spec.seed, spec.numTrials);
  const writer = spec.resume
    ? VoiceResultsWriter.open(spec.saveTo)
    : VoiceResultsWriter.create(spec.saveTo, {
        info: voiceRunInfo({
          domain: spec.data.domain.name,
          policy: spec.data.policyFor(undefined),
          gitCommit: `passk ${passkVersion()}`,
          numTrials: spec.numTrials,
          seed: spec.seed,
          speechComplexity: spec.speechComplexity,
          agent: participants.agentInfo,
          user: participants.customerInfo,
          audioNative: {
            provider: participants.agentInfo.provider,
            model: participants.agentInfo.model,
            tick_duration_seconds: tickSeconds,
            max_steps_seconds: spec.maxCallSeconds ?? DEFAULT_MAX_CALL_SECONDS,
          },
        }),
        tasks: spec.tasks,
      });
  const jobs = spec.tasks.flatMap((task) =>
    seeds.map((seed, trial) => ({ task, trial, seed })).filter((job) => !writer.has(job.task.id, job.trial)),
  );
  const skipped = spec.tasks.length * spec.numTrials - jobs.length;
  const calls: VoiceCallOutcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length && !options.signal?.aborted) {
      const job = jobs[next++]!;
      const outcome = await runOneCall(spec, participants, writer, { ...job, tickSeconds }, options);
      calls.push(outcome);
      options.onCall?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, spec.maxConcurrency ?? 1) }, worker));
  return { folder: writer.folder, calls, skipped, ...summarise(writer, spec.numTrials) };
}

async function runOneCall(
  spec: VoiceRunSpec,
  participants: VoiceRunParticipants,
  writer: VoiceResultsWriter,
  job: { task: Task; trial: number; seed: number; tickSeconds: number },
  options: Pick<VoiceRunOptions, "signal" | "onTick">,
): Promise<VoiceCallOutcome> {
  const { task, trial, seed, tickSeconds } = job;
  const { signal, onTick } = options;
  const simulationId = randomUUID();
  const settings = voiceSettingsFor(spec.voiceSettings, task.id, spec.speechComplexity);
  const noise = loadCallerNoise(spec.dataDir, settings, {
    onMissing: spec.noiseSubstitutes ? "substitute" : "error",
  });
  const taps = spec.audioTaps ? new AudioTapRecorder() : undefined;
  const plainLine = createCallerLine(settings, noise, seed);
  const line = taps ? tappedLine(plainLine, taps) : plainLine;
  const noiseSubstitutions = noise.substitutions.map((sub) => `${sub.wanted} → ${sub.used ?? "none"}`);
  const world = spec.data.newWorld({ task });
  const agent = participants.agent();
  try {
    const result = await simulateVoiceCall({
      task,
      world,
      agent,
      customer: participants.customer({ task, settings, line, seed }),
      policy: spec.data.policyFor(task),
      agentTools: toolSpecs(world.offeredTools("agent")),
      userTools: toolSpecs(world.offeredTools("user")),
      tickSeconds,
      ...(spec.clock ? { clock: spec.clock } : {}),
      ...(spec.maxCallSeconds !== undefined ? { maxCallSeconds: spec.maxCallSeconds } : {}),
      seed,
      trial,
      simulationId,
      ...(signal ? { signal } : {}),
      ...(onTick ? { onTick: (tick: Tick) => onTick(tick, { taskId: task.id, trial }) } : {}),
      ...(spec.pricing ? { pricing: spec.pricing } : {}),
    });
    const rewardInfo = await gradeVoiceCall(
      task,
      result.simulation,
      { newWorld: (o) => spec.data.newWorld(o) },
      participants.judge,
    );
    writer.append(
      {
        ...result.simulation,
        reward_info: rewardInfo,
        speech_environment: speechEnvironment(settings, seed, participants.customerVoice?.(settings), noise),
        effect_timeline: effectTimeline(line),
      },
      {
        ...((spec.audio ?? true) ? { wire: result.audio } : {}),
        ...(taps ? { taps: agentTaps(taps, result.audio) } : {}),
      },
    );
    const { ticks } = result.simulation;
    const explanation = explainVoiceCall(
      task,
      {
        agentCalls: ticks.flatMap((tick) => tick.agent_tool_calls),
        callerWords: ticks.map((tick) => tick.user_chunk?.content ?? "").join(""),
      },
      rewardInfo,
      result.simulation.termination_reason,
    );
    return {
      taskId: task.id,
      trial,
      simulationId,
      reward: rewardInfo.reward,
      terminationReason: result.simulation.termination_reason,
      ...(explanation !== undefined ? { explanation } : {}),
      noiseSubstitutions,
    };
  } catch (error) {
    // A provider's or the customer's failure is not the agent's: the call is not graded, and a
    // resumed run runs it again. Anything else (a full disk, a bug) stops the run.
    if (!(error instanceof InfrastructureError)) throw error;
    return {
      taskId: task.id,
      trial,
      simulationId,
      reward: null,
      terminationReason: "infrastructure_error",
      systemFailure: error.message,
      noiseSubstitutions,
    };
  } finally {
    await agent.stop().catch(() => undefined);
  }
}

/** pass^k and the average reward over what is on disk (resumed calls included). */
function summarise(
  writer: VoiceResultsWriter,
  numTrials: number,
): Pick<VoiceRunOutcome, "passHatK" | "averageReward" | "cost"> {
  const byTask = new Map<string, number[]>();
  for (const entry of writer.entries()) {
    if (entry.reward === null) continue;
    byTask.set(entry.task_id, [...(byTask.get(entry.task_id) ?? []), entry.reward]);
  }
  const rewards = [...byTask.values()].flat();
  const complete = [...byTask.values()].filter((r) => r.length === numTrials);
  const passes: Record<number, number> = {};
  for (let k = 1; k <= numTrials && complete.length > 0; k++) {
    passes[k] =
      complete.reduce((sum, r) => sum + passHatK(numTrials, r.filter(isSuccessful).length, k), 0) /
      complete.length;
  }
  return {
    passHatK: passes,
    averageReward: rewards.length === 0 ? null : rewards.reduce((a, b) => a + b, 0) / rewards.length,
    cost: runCost(writer),
  };
}

const CostFieldsSchema = z.looseObject({
  agent_cost: z.number().nullable().optional(),
  user_cost: z.number().nullable().optional(),
  info: z
    .looseObject({ agent_cost_unknown: z.string().optional(), user_cost_unknown: z.string().optional() })
    .nullable()
    .optional(),
});

/** Each side's cost over the graded calls on disk (resumed ones included), from their records. */
function runCost(writer: VoiceResultsWriter): VoiceRunOutcome["cost"] {
  let agent: number | null = 0;
  let user: number | null = 0;
  let agentUnknown: string | undefined;
  let userUnknown: string | undefined;
  for (const entry of writer.entries()) {
    const file = path.join(writer.folder, "simulations", `${entry.id}.json`);
    const record = CostFieldsSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    if (record.agent_cost === null || record.agent_cost === undefined) {
      agent = null;
      agentUnknown ??= record.info?.agent_cost_unknown;
    } else if (agent !== null) agent += record.agent_cost;
    if (record.user_cost === null || record.user_cost === undefined) {
      user = null;
      userUnknown ??= record.info?.user_cost_unknown;
    } else if (user !== null) user += record.user_cost;
  }
  return {
    agent,
    user,
    ...(agentUnknown !== undefined ? { agentUnknown } : {}),
    ...(userUnknown !== undefined ? { userUnknown } : {}),
  };
}

/**
 * The caller's environment as the call used it (the reference's `SpeechEnvironment`): the task's frozen
 * settings, the voice spoken with, and the recordings actually played (a substitute, when one stood in).
 */
export function speechEnvironment(
  settings: VoiceSettings,
  seed: number,
  voiceId: string | undefined,
  noise: { substitutions: ReadonlyArray<{ wanted: string; used: string | null }> },
): Record<string, unknown> {
  const used = (file: string) => {
    const sub = noise.substitutions.find((s) => s.wanted === file);
    return sub ? sub.used : file;
  };
  return {
    voice_seed: seed,
    persona_name: settings.persona_name,
    voice_id: voiceId ?? null,
    background_noise_file:
      settings.background_noise_file === null ? null : used(settings.background_noise_file),
    burst_noise_files: settings.burst_noise_files.map(used).filter((file): file is string => file !== null),
    environment: settings.environment,
    backchannel_min_threshold: settings.backchannel_min_threshold,
    use_llm_backchannel: settings.use_llm_backchannel,
    enable_interruptions: settings.enable_interruptions,
    telephony_enabled: settings.telephony_enabled,
    complexity: settings.complexity,
    snr_speech_reference_rms: SPEECH_REFERENCE_RMS,
    source_effects_config: settings.source_effects_config,
    speech_effects_config: settings.speech_effects_config,
    channel_effects_config: settings.channel_effects_config,
  };
}

/** `taps` with the agent's side added: what it heard of the caller in each tick, and what it said. */
function agentTaps(
  taps: AudioTapRecorder,
  audio: { user: readonly Uint8Array[]; agent: readonly Uint8Array[] },
): AudioTapRecorder {
  for (const chunk of audio.user) taps.recordWire(AUDIO_TAPS.agentInput, chunk);
  for (const chunk of audio.agent) taps.recordWire(AUDIO_TAPS.agentWire, chunk);
  return taps;
}

/**
 * The effects that fired in a call, in time order (the reference's `EffectTimeline`): the line's bursts,
 * the caller's off-turn tics and side remarks, and frame drops, as the line applied them. A tic inside an
 * utterance is part of the caller's speech (its ticks' `speech_effects`), not an event, as in the reference.
 */
export function effectTimeline(line: CallerLine): EffectTimeline {
  const events: EffectEvent[] = [...(line.effectTimeline?.().events ?? [])];
  return { events: events.sort((a, b) => a.start_ms - b.start_ms) };
}
