import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../../core/errors.js";
import { readWavFile, rms } from "../audio.js";
import { WIRE_SAMPLE_RATE } from "../call.js";
import type { VoiceSettings } from "../voice-settings.js";

// The noise recordings the caller's line mixes in, where `passk data pull` puts them:
// `<data dir>/voice/noise/continuous/*.wav` (background) and `<data dir>/voice/noise/bursts/*.wav`.

/** Where the noise recordings live in a passk data dir. */
export const NOISE_FOLDER = path.join("voice", "noise");

export type NoiseKind = "continuous" | "bursts";

/** A noise recording, mono PCM16 at the wire's 8 kHz, with its RMS over the whole recording. */
export interface NoiseClip {
  /** The file name, as the voice settings name it (`people_talking.wav`). */
  name: string;
  samples: Int16Array;
  rms: number;
}

/** What the caller's line mixes in: the background recording (none in quiet settings) and the bursts. */
export interface CallerNoise {
  background: NoiseClip | null;
  bursts: readonly NoiseClip[];
  /** Recordings the settings name that were not in the data dir, and what was used instead (`null`: none). */
  substitutions: ReadonlyArray<{ kind: NoiseKind; wanted: string; used: string | null }>;
}

/** A noise clip from samples (tests and synthetic noise). */
export function noiseClip(name: string, samples: Int16Array): NoiseClip {
  return { name, samples, rms: rms(samples) };
}

const cache = new Map<string, NoiseClip>();

/** A noise recording, read and resampled to 8 kHz once per process. */
export function loadNoiseClip(file: string): NoiseClip {
  const key = path.resolve(file);
  let clip = cache.get(key);
  if (!clip) {
    clip = noiseClip(path.basename(file), readWavFile(key, WIRE_SAMPLE_RATE));
    if (clip.samples.length === 0 || clip.rms === 0)
      throw new ConfigError(`the noise recording ${file} is silent`);
    cache.set(key, clip);
  }
  return clip;
}

/** The path of a noise recording in a data dir. */
export function noisePath(dataDir: string, kind: NoiseKind, name: string): string {
  return path.join(dataDir, NOISE_FOLDER, kind, name);
}

export interface LoadCallerNoiseOptions {
  /**
   * A recording the settings name that the data dir lacks (three of the reference's four background
   * recordings, and mock's `baby.wav`, `traffic.wav`, `drilling.wav`, are not available offline):
   * `error` (default) stops with the fix; `substitute` uses the data dir's first other recording of the
   * same kind (none for a burst: it is left out), reported in `substitutions`.
   */
  onMissing?: "error" | "substitute";
}

/** The noise a task's voice settings ask for, from a passk data dir. */
export function loadCallerNoise(
  dataDir: string,
  settings: VoiceSettings,
  options: LoadCallerNoiseOptions = {},
): CallerNoise {
  const source = settings.source_effects_config;
  const substitutions: Array<{ kind: NoiseKind; wanted: string; used: string | null }> = [];
  const resolve = (kind: NoiseKind, name: string): NoiseClip | null => {
    const file = noisePath(dataDir, kind, name);
    if (existsSync(file)) return loadNoiseClip(file);
    if (options.onMissing !== "substitute")
      throw new ConfigError(
        `the voice settings name the ${kind === "bursts" ? "burst" : "background"} noise recording ${name}, ` +
          `which is not at ${file}. Run \`passk data pull\` with network to fetch the τ-voice recordings, or ` +
          `substitute available recordings for missing ones.`,
      );
    const folder = path.join(dataDir, NOISE_FOLDER, kind);
    const others = existsSync(folder)
      ? readdirSync(folder)
          .filter((f) => f.endsWith(".wav"))
          .sort()
      : [];
    const used = kind === "continuous" ? (others[0] ?? null) : null;
    substitutions.push({ kind, wanted: name, used });
    return used === null ? null : loadNoiseClip(path.join(folder, used));
  };
  const background =
    source.enable_background_noise && settings.background_noise_file !== null
      ? resolve("continuous", settings.background_noise_file)
      : null;
  const bursts =
    source.enable_burst_noise && source.burst_noise_events_per_minute > 0
      ? settings.burst_noise_files
          .map((name) => resolve("bursts", name))
          .filter((clip): clip is NoiseClip => clip !== null)
      : [];
  return { background, bursts, substitutions };
}
