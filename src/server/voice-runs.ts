import { createReadStream, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { PasskError } from "../core/errors.js";
import { callRecording, discoverVoiceRuns, type CatalogedVoiceRun } from "../voice/voice-run-catalog.js";
import {
  explainRecordedCall,
  interactionPanel,
  readExploredVoiceRun,
  runInteractionConfig,
  voiceCallView,
  voicePassHatK,
  type ExploredVoiceRun,
  type ViewSimulation,
} from "../voice/voice-run-views.js";
import type { VoiceRunServices } from "./api-services.js";
import { byteRange } from "./byte-range.js";
import type {
  VoiceCallDetail,
  VoiceCallSummary,
  VoiceRunDetail,
  VoiceRunList,
  VoiceRunSummary,
} from "./voice-api-schemas.js";

// The explorer's voice runs, read from the folders `passk serve --voice-runs` was given. Each run is
// read when asked for; its summary is kept while its files are unchanged (a run still being written is
// read again), and the last few runs are kept whole for their calls' pages.

export class VoiceRunNotFoundError extends PasskError {
  constructor(runId: string) {
    super(
      "voice_run_not_found",
      `there is no voice run "${runId}" here: the server lists the runs of the folders it was started with (passk serve --voice-runs DIR)`,
    );
    this.name = "VoiceRunNotFoundError";
  }
}

export class VoiceCallNotFoundError extends PasskError {
  constructor(runId: string, simulationId: string, what = "call") {
    super(
      what === "call" ? "voice_call_not_found" : "voice_audio_not_found",
      what === "call"
        ? `voice run "${runId}" has no call "${simulationId}"`
        : `call "${simulationId}" of voice run "${runId}" has no recording (the run was made with --no-audio, or its both.wav is missing)`,
    );
    this.name = "VoiceCallNotFoundError";
  }
}

interface Summary {
  signature: string;
  summary: VoiceRunSummary;
  calls: VoiceCallSummary[];
}

function signature(folder: string): string {
  const results = statSync(path.join(folder, "results.json"));
  const simulations = path.join(folder, "simulations");
  const files = readdirSync(simulations).length;
  return `${results.mtimeMs}:${results.size}:${statSync(simulations).mtimeMs}:${files}`;
}

/** Runs kept parsed whole (their ticks) for the call pages; summaries are kept for every run. */
const KEPT_RUNS = 4;

/** The voice runs of `roots` for the API; `roots` empty: none. */
export function createVoiceRunServices(roots: readonly string[]): VoiceRunServices {
  const parsed = new Map<string, { signature: string; run: ExploredVoiceRun }>();
  const summaries = new Map<string, Summary>();

  const read = (entry: CatalogedVoiceRun): { signature: string; run: ExploredVoiceRun } => {
    const sig = signature(entry.folder);
    const kept = parsed.get(entry.folder);
    parsed.delete(entry.folder);
    const fresh =
      kept && kept.signature === sig ? kept : { signature: sig, run: readExploredVoiceRun(entry.folder) };
    parsed.set(entry.folder, fresh);
    while (parsed.size > KEPT_RUNS) parsed.delete(parsed.keys().next().value!);
    return fresh;
  };

  const summarise = (entry: CatalogedVoiceRun): Summary => {
    const kept = summaries.get(entry.folder);
    if (kept && kept.signature === signature(entry.folder) && kept.summary.id === entry.id) return kept;
    const { signature: sig, run } = read(entry);
    const passes = voicePassHatK(run.simulations, run.numTrials);
    const summary: VoiceRunSummary = {
      id: entry.id,
      name: path.basename(entry.folder),
      domain: run.domain,
      speechComplexity: run.speechComplexity,
      agent: run.agent,
      timestamp: run.timestamp,
      numTrials: run.numTrials,
      simulations: run.simulations.length,
      tickSeconds: run.tickSeconds,
      averageReward: passes.averageReward,
      passHatK: passes.passHatK,
      passHatKIntervals: passes.intervals,
      interaction: interactionPanel(run.simulations, runInteractionConfig(run)),
    };
    const fresh = { signature: sig, summary, calls: run.simulations.map((s) => callSummary(entry, run, s)) };
    summaries.set(entry.folder, fresh);
    return fresh;
  };

  const find = (runId: string): CatalogedVoiceRun => {
    const entry = discoverVoiceRuns(roots).find((r) => r.id === runId);
    if (!entry) throw new VoiceRunNotFoundError(runId);
    return entry;
  };

  const findCall = (runId: string, simulationId: string) => {
    const entry = find(runId);
    const { run } = read(entry);
    const simulation = run.simulations.find((s) => s.id === simulationId);
    if (!simulation) throw new VoiceCallNotFoundError(runId, simulationId);
    return { entry, run, simulation };
  };

  return {
    list(): VoiceRunList {
      const runs: VoiceRunSummary[] = [];
      const problems: string[] = [];
      for (const root of roots)
        if (discoverVoiceRuns([root]).length === 0)
          problems.push(
            `"${path.basename(root)}" holds no voice run (results.json and simulations/ with ticks)`,
          );
      for (const entry of discoverVoiceRuns(roots)) {
        try {
          runs.push(summarise(entry).summary);
        } catch (error) {
          problems.push(
            `voice run "${entry.id}" cannot be read: ${PasskError.isInstance(error) ? error.code : "unreadable files"}`,
          );
        }
      }
      return { runs, problems };
    },
    detail(runId: string): VoiceRunDetail {
      const { summary, calls } = summarise(find(runId));
      return { run: summary, calls };
    },
    call(runId: string, simulationId: string): VoiceCallDetail {
      const { entry, run, simulation } = findCall(runId, simulationId);
      const summary = callSummary(entry, run, simulation);
      const view = voiceCallView(run, simulation);
      return {
        runId,
        call: summary,
        domain: run.domain,
        speechComplexity: run.speechComplexity,
        tickSeconds: run.tickSeconds,
        segments: view.segments,
        toolCalls: view.toolCalls,
        events: view.events,
        audioUrl: summary.audio
          ? `/api/voice-runs/${encodeURIComponent(runId)}/calls/${encodeURIComponent(simulation.id)}/audio`
          : null,
      };
    },
    audio(runId: string, simulationId: string, range: string | undefined): Response {
      const { entry, simulation } = findCall(runId, simulationId);
      const file = callRecording(entry.folder, simulation.task_id, simulation.id);
      if (!file) throw new VoiceCallNotFoundError(runId, simulationId, "audio");
      const size = statSync(file).size;
      const part = byteRange(range, size);
      const headers: Record<string, string> = { "Content-Type": "audio/wav", "Accept-Ranges": "bytes" };
      if (part.kind === "unsatisfiable")
        return new Response(null, {
          status: 416,
          headers: { ...headers, "Content-Range": `bytes */${size}` },
        });
      const [start, end] = part.kind === "part" ? [part.start, part.end] : [0, size - 1];
      const body =
        size === 0
          ? null
          : (Readable.toWeb(createReadStream(file, { start, end })) as ReadableStream<Uint8Array>);
      return new Response(body, {
        status: part.kind === "part" ? 206 : 200,
        headers: {
          ...headers,
          "Content-Length": String(size === 0 ? 0 : end - start + 1),
          ...(part.kind === "part" ? { "Content-Range": `bytes ${start}-${end}/${size}` } : {}),
        },
      });
    },
  };
}

function callSummary(
  entry: CatalogedVoiceRun,
  run: ExploredVoiceRun,
  simulation: ViewSimulation,
): VoiceCallSummary {
  return {
    id: simulation.id,
    taskId: simulation.task_id,
    trial: simulation.trial ?? null,
    reward: simulation.reward_info?.reward ?? null,
    terminationReason: simulation.termination_reason ?? null,
    durationSec: (simulation.ticks?.length ?? 0) * run.tickSeconds,
    explanation: explainRecordedCall(run, simulation),
    audio: callRecording(entry.folder, simulation.task_id, simulation.id) !== undefined,
  };
}
