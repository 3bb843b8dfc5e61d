import path from "node:path";
import alawmulaw from "alawmulaw";
import wavefile from "wavefile";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import { WIRE_SAMPLE_RATE, wireBytesPerTick, type CallerLine } from "./call.js";

// The audio of a voice simulation, where the reference keeps it: beside the run's results,
// `artifacts/task_<task id>/sim_<simulation id>/audio/` holds `both.wav` (the call in stereo: the
// customer on the left, the agent on the right, 8 kHz PCM16 decoded from each side's μ-law wire audio,
// tick by tick), Audacity label tracks (`<role>_labels.txt` for each side's speech, labelled with the
// text spoken; `<role>_tool_calls_labels.txt` for tool calls, from the tick of the call to the tick
// of its result), and with `--audio-taps` the per-stage recordings in `audio/taps/`.

const { mulaw } = alawmulaw;

/** `<run>/artifacts/task_<task id>/sim_<simulation id>`: a simulation's artifacts (the reference's layout). */
export function simulationArtifactsDir(runDir: string, taskId: string, simulationId: string): string {
  return path.join(runDir, "artifacts", `task_${taskId}`, `sim_${simulationId}`);
}

/** `…/sim_<id>/audio`: both.wav and the label tracks. */
export function simulationAudioDir(runDir: string, taskId: string, simulationId: string): string {
  return path.join(simulationArtifactsDir(runDir, taskId, simulationId), "audio");
}

/** `…/sim_<id>/audio/taps`: the per-stage recordings of `--audio-taps`. */
export function simulationTapsDir(runDir: string, taskId: string, simulationId: string): string {
  return path.join(simulationAudioDir(runDir, taskId, simulationId), "taps");
}

/** Each side's wire audio of a call, one μ-law chunk per tick (`wireBytesPerTick` bytes each). */
export interface CallWireAudio {
  user: readonly Uint8Array[];
  agent: readonly Uint8Array[];
}

/** A WAV file of 16-bit PCM: one channel, or several of equal length. */
export function pcm16Wav(channels: readonly Int16Array[], sampleRate: number): Uint8Array {
  const wav = new wavefile.WaveFile();
  if (channels.length === 1) wav.fromScratch(1, sampleRate, "16", channels[0]!);
  else wav.fromScratch(channels.length, sampleRate, "16", [...channels]);
  return wav.toBuffer();
}

/** One side's wire audio as PCM16: each tick decoded from μ-law, a missing or short tick padded with silence. */
export function decodeWireTicks(
  ticks: readonly Uint8Array[],
  tickSeconds: number,
  length = ticks.length,
): Int16Array {
  const perTick = wireBytesPerTick(tickSeconds);
  const samples = new Int16Array(length * perTick);
  for (let i = 0; i < length; i++) {
    const chunk = ticks[i];
    if (!chunk || chunk.length === 0) continue;
    const decoded = mulaw.decode(chunk.length > perTick ? chunk.subarray(0, perTick) : chunk);
    samples.set(decoded, i * perTick);
  }
  return samples;
}

/**
 * The call in stereo at 8 kHz PCM16: the customer (user) on the left channel, the agent on the right,
 * aligned tick by tick; the shorter side is padded with silence, as the reference pads its tracks.
 */
export function stereoCallWav(wire: CallWireAudio, tickSeconds: number): Uint8Array {
  const ticks = Math.max(wire.user.length, wire.agent.length);
  const left = decodeWireTicks(wire.user, tickSeconds, ticks);
  const right = decodeWireTicks(wire.agent, tickSeconds, ticks);
  return pcm16Wav([left, right], WIRE_SAMPLE_RATE);
}

/** What the label tracks read of a tick (the reference's `Tick`). */
export interface LabelTick {
  tick_id: number;
  agent_chunk?: { contains_speech?: boolean; content?: string | null } | null;
  user_chunk?: { contains_speech?: boolean; content?: string | null } | null;
  agent_tool_calls?: ReadonlyArray<{ id?: string; name: string }>;
  user_tool_calls?: ReadonlyArray<{ id?: string; name: string }>;
  agent_tool_results?: ReadonlyArray<{ id?: string }>;
  user_tool_results?: ReadonlyArray<{ id?: string }>;
}

/** One label of an Audacity label track. */
export interface AudacityLabel {
  start: number;
  end: number;
  label: string;
}

type Role = "user" | "assistant";

const chunkOf = (tick: LabelTick, role: Role) => (role === "user" ? tick.user_chunk : tick.agent_chunk);

/** Longest label text kept (longer ones end in `...`), as the reference trims them. */
const MAX_LABEL = 200;

function labelText(text: string): string {
  const clean = text.replace(/[\n\t]/g, " ").trim();
  return clean.length > MAX_LABEL ? `${clean.slice(0, MAX_LABEL - 3)}...` : clean;
}

/**
 * A side's speech as labels: each run of consecutive ticks whose chunk contains speech is one label from
 * the start of its first tick to the end of its last, labelled with the text spoken in those ticks.
 */
export function speechLabels(ticks: readonly LabelTick[], role: Role, tickSeconds: number): AudacityLabel[] {
  const segments: Array<{ start: number; end: number; text: string }> = [];
  let current: { start: number; end: number; text: string } | null = null;
  for (const tick of ticks) {
    const chunk = chunkOf(tick, role);
    if (!chunk || chunk.contains_speech !== true) {
      if (current) segments.push(current);
      current = null;
      continue;
    }
    const text = chunk.content ?? "";
    if (current && tick.tick_id <= current.end + 1) {
      current.end = tick.tick_id;
      current.text += text;
    } else {
      if (current) segments.push(current);
      current = { start: tick.tick_id, end: tick.tick_id, text };
    }
  }
  if (current) segments.push(current);
  return segments.map((s) => ({
    start: s.start * tickSeconds,
    end: (s.end + 1) * tickSeconds,
    label: labelText(s.text),
  }));
}

/**
 * A side's tool calls as labels: from the start of the tick the call was made in to the end of the tick
 * its result arrived in (matched by call id; the call's own tick when no result came), labelled with
 * the tool's name.
 */
export function toolCallLabels(
  ticks: readonly LabelTick[],
  role: Role,
  tickSeconds: number,
): AudacityLabel[] {
  const resultTick = new Map<string, number>();
  for (const tick of ticks)
    for (const result of (role === "user" ? tick.user_tool_results : tick.agent_tool_results) ?? [])
      if (result.id) resultTick.set(result.id, tick.tick_id);
  const labels: AudacityLabel[] = [];
  for (const tick of ticks)
    for (const call of (role === "user" ? tick.user_tool_calls : tick.agent_tool_calls) ?? []) {
      const end = (call.id ? resultTick.get(call.id) : undefined) ?? tick.tick_id;
      labels.push({ start: tick.tick_id * tickSeconds, end: (end + 1) * tickSeconds, label: call.name });
    }
  return labels;
}

/** An Audacity label track: `start<TAB>end<TAB>label` per line, times in seconds to the millisecond. */
export function formatAudacityLabels(labels: readonly AudacityLabel[]): string {
  return labels.map((l) => `${l.start.toFixed(3)}\t${l.end.toFixed(3)}\t${l.label}`).join("\n");
}

/** The label tracks of a simulation by file name; a track with no label is left out, as the reference does. */
export function audacityLabelFiles(ticks: readonly LabelTick[], tickSeconds: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (const role of ["user", "assistant"] as const) {
    const speech = speechLabels(ticks, role, tickSeconds);
    if (speech.length > 0) files[`${role}_labels.txt`] = formatAudacityLabels(speech);
    const tools = toolCallLabels(ticks, role, tickSeconds);
    if (tools.length > 0) files[`${role}_tool_calls_labels.txt`] = formatAudacityLabels(tools);
  }
  return files;
}

export interface SimulationAudioInput {
  ticks: readonly LabelTick[];
  tickSeconds: number;
  wire: CallWireAudio;
}

/**
 * Write a simulation's audio into `audioDir` (see `simulationAudioDir`): both.wav and its label tracks,
 * each file atomically. Returns the paths written.
 */
export function writeSimulationAudio(audioDir: string, input: SimulationAudioInput): string[] {
  const written: string[] = [];
  const both = path.join(audioDir, "both.wav");
  writeFileAtomic(both, stereoCallWav(input.wire, input.tickSeconds));
  written.push(both);
  for (const [name, text] of Object.entries(audacityLabelFiles(input.ticks, input.tickSeconds))) {
    const file = path.join(audioDir, name);
    writeFileAtomic(file, text);
    written.push(file);
  }
  return written;
}

/**
 * The stages `--audio-taps` records, named as the reference names its tap files: the customer's clean
 * speech, their audio after the effects of their surroundings and voice, what went onto the line, what
 * the agent heard, and the agent's output.
 */
export const AUDIO_TAPS = {
  userSpeech: "user_speech-only",
  userAfterEffects: "user_post-noise",
  userWire: "user_output",
  agentInput: "agent_user-input",
  agentWire: "agent_output",
} as const;
export type AudioTapName = (typeof AUDIO_TAPS)[keyof typeof AUDIO_TAPS];

/**
 * Records audio at pipeline stages during a call, one chunk per tick, and writes each stage as a mono
 * PCM16 WAV file (`<name>.wav`) at the end. μ-law stages are decoded on the way in.
 */
export class AudioTapRecorder {
  private readonly taps = new Map<string, { sampleRate: number; chunks: Int16Array[] }>();

  /** A chunk of PCM16 audio at `sampleRate`. */
  recordPcm16(name: AudioTapName, samples: Int16Array, sampleRate: number): void {
    const tap = this.taps.get(name) ?? { sampleRate, chunks: [] };
    if (tap.sampleRate !== sampleRate)
      throw new Error(`audio tap ${name} records at ${tap.sampleRate} Hz, not ${sampleRate} Hz`);
    tap.chunks.push(samples.slice());
    this.taps.set(name, tap);
  }

  /** A chunk of μ-law wire audio (8 kHz). */
  recordWire(name: AudioTapName, wire: Uint8Array): void {
    this.recordPcm16(name, mulaw.decode(wire), WIRE_SAMPLE_RATE);
  }

  /** Write every stage that recorded something into `tapsDir`; returns the files written. */
  save(tapsDir: string): string[] {
    const written: string[] = [];
    for (const [name, tap] of this.taps) {
      const total = tap.chunks.reduce((n, c) => n + c.length, 0);
      const samples = new Int16Array(total);
      let offset = 0;
      for (const chunk of tap.chunks) {
        samples.set(chunk, offset);
        offset += chunk.length;
      }
      const file = path.join(tapsDir, `${name}.wav`);
      writeFileAtomic(file, pcm16Wav([samples], tap.sampleRate));
      written.push(file);
    }
    return written;
  }
}

/**
 * `line`, recording the caller's stages into `taps` as they pass: their clean voice, their audio after
 * the effects of their surroundings and voice, and what went onto the line (before frames were lost).
 */
export function tappedLine(line: CallerLine, taps: AudioTapRecorder): CallerLine {
  return {
    ...(line.effectTimeline ? { effectTimeline: () => line.effectTimeline!() } : {}),
    tick(speech, state) {
      const out = line.tick(speech, state);
      taps.recordPcm16(AUDIO_TAPS.userSpeech, speech, WIRE_SAMPLE_RATE);
      taps.recordPcm16(AUDIO_TAPS.userAfterEffects, out.stages?.postNoise ?? speech, WIRE_SAMPLE_RATE);
      taps.recordWire(AUDIO_TAPS.userWire, out.stages?.sent ?? out.wire);
      return out;
    },
  };
}
