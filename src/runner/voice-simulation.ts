import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import type { Tick } from "../voice/ticks.js";
import { callRecording } from "../voice/voice-run-catalog.js";
import {
  readExploredVoiceRun,
  voiceCallView,
  type ExploredVoiceRun,
  type ViewSimulation,
} from "../voice/voice-run-views.js";
import { prepareVoiceCalls, VoiceRunStartSpecSchema, type StartVoiceRunOptions } from "./start-voice-run.js";
import { runVoiceCalls, type VoiceCallOutcome, type VoiceRunOutcome } from "./voice-run.js";

// One voice call, as `passk simulate --voice` makes it: a voice run of one task and one trial, with
// the same participants, seeds and grading (the call equals trial 0 of `passk run --voice` with the same
// --seed), read back from its directory for printing. The directory is kept where `saveTo` says, else
// it lives in a temporary folder for the call's length.

/** What a voice simulation is: a voice run's settings, for one task. */
export const VoiceSimulationSpecSchema = VoiceRunStartSpecSchema.omit({
  taskIds: true,
  split: true,
  numTasks: true,
  numTrials: true,
  maxConcurrency: true,
}).extend({
  taskId: z.string().min(1, { error: "the task's id" }),
  /** Keep the call's directory (results.json, simulations/, both.wav and its label tracks) here. */
  saveTo: z.string().optional(),
});
export type VoiceSimulationSpec = z.input<typeof VoiceSimulationSpecSchema>;

export interface VoiceSimulationOptions extends Pick<
  StartVoiceRunOptions,
  "env" | "domains" | "catalog" | "priceOverrides" | "signal"
> {
  /** The call is about to start. */
  onStart?: (start: { task: Task; agent: string; saveTo: string | null }) => void;
  /** Each tick as it ends. */
  onTick?: (tick: Tick) => void;
}

export interface VoiceSimulationOutcome {
  /** The call's grade and, below 1, why; `systemFailure` when it could not be graded. */
  call: VoiceCallOutcome;
  /** The call's record as written (the reference's full-duplex simulation), absent when it failed before one. */
  simulation: ViewSimulation | null;
  /** The call condensed: each side's speech, the tool calls, the interaction events. */
  view: ReturnType<typeof voiceCallView> | null;
  tickSeconds: number;
  cost: VoiceRunOutcome["cost"];
  /** Where the call's directory was kept (`saveTo`), or null. */
  folder: string | null;
  /** The call's stereo recording (both.wav) in that directory, when it was written. */
  recording: string | null;
}

/**
 * Make one voice call of one task and wait for it: graded, explained when it scores below 1, priced,
 * and (with `saveTo`) written with its audio as a one-call voice run directory.
 */
export async function simulateVoice(
  spec: VoiceSimulationSpec,
  options: VoiceSimulationOptions = {},
): Promise<VoiceSimulationOutcome> {
  const prepared = prepareVoiceCalls(VoiceSimulationSpecSchema, "voice simulation", spec, options);
  const { spec: s, data, participants } = prepared;
  const task = data.task(s.taskId);
  const kept = s.saveTo !== undefined ? path.resolve(s.saveTo) : null;
  const scratch = kept === null ? mkdtempSync(path.join(tmpdir(), "passk-voice-call-")) : null;
  const folder = kept ?? path.join(scratch!, "call");
  try {
    options.onStart?.({ task, agent: participants.agentInfo.llm ?? "", saveTo: kept });
    const outcome = await runVoiceCalls(
      {
        data,
        tasks: [task],
        numTrials: 1,
        seed: s.seed,
        voiceSettings: prepared.voiceSettings,
        speechComplexity: s.speechComplexity,
        tickSeconds: s.tickSeconds,
        clock: s.clock,
        maxCallSeconds: s.maxCallSeconds,
        maxConcurrency: 1,
        saveTo: folder,
        dataDir: prepared.dataDir,
        audio: kept !== null && s.audio,
        audioTaps: kept !== null && s.audioTaps,
        noiseSubstitutes: s.substituteMissingNoise,
        ...(options.priceOverrides ? { pricing: { overrides: options.priceOverrides } } : {}),
      },
      participants,
      {
        ...(options.onTick ? { onTick: (tick: Tick) => options.onTick!(tick) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    const call = outcome.calls[0];
    if (!call) throw new ConfigError("the voice call was stopped before it started");
    const run: ExploredVoiceRun = readExploredVoiceRun(folder);
    const simulation = run.simulations.find((sim) => sim.id === call.simulationId) ?? null;
    return {
      call,
      simulation,
      view: simulation ? voiceCallView(run, simulation) : null,
      tickSeconds: run.tickSeconds,
      cost: outcome.cost,
      folder: kept,
      recording: kept === null ? null : (callRecording(kept, task.id, call.simulationId) ?? null),
    };
  } finally {
    if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
  }
}
