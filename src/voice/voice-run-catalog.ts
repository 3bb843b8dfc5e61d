import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isVoiceResultsDir } from "../formats/tau2/voice-results.js";
import { simulationAudioDir } from "./audio-artifacts.js";

// The voice runs under folders a person named (`passk serve --voice-runs DIR…`): each folder is a voice
// run directory or holds some. A run is known by an id made from its folder's name; nothing a client
// sends becomes a path — ids are looked up here, and files are opened only when their real path lies
// inside the run's real folder (a symlink or a `../` in a recorded task id cannot lead out).

export interface CatalogedVoiceRun {
  /** Letters, digits, '.', '_' and '-': the folder's name, made unique with `-2`, `-3`, … */
  id: string;
  /** The run's real (symlink-resolved) absolute folder. */
  folder: string;
}

const slug = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "") || "run";

function isDir(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

function isRun(folder: string): boolean {
  try {
    return isVoiceResultsDir(folder);
  } catch {
    return false;
  }
}

/** The voice runs of `roots` (each a run, or a folder of runs one level down), in a stable order. */
export function discoverVoiceRuns(roots: readonly string[]): CatalogedVoiceRun[] {
  const folders: string[] = [];
  for (const root of roots) {
    if (!existsSync(root) || !isDir(root)) continue;
    const real = realpathSync(root);
    if (isRun(real)) folders.push(real);
    else
      for (const name of readdirSync(real).sort()) {
        const child = path.join(real, name);
        if (!name.startsWith(".") && isDir(child) && isRun(child)) folders.push(realpathSync(child));
      }
  }
  const seen = new Map<string, number>();
  const runs: CatalogedVoiceRun[] = [];
  for (const folder of [...new Set(folders)]) {
    const base = slug(path.basename(folder));
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    runs.push({ id: n === 1 ? base : `${base}-${n}`, folder });
  }
  return runs;
}

/** `file`'s real path when it exists and lies inside `folder` (itself real); otherwise undefined. */
export function fileInside(folder: string, file: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return undefined;
  }
  const inside = real.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
  return inside && statSync(real).isFile() ? real : undefined;
}

/** The stereo recording of a call (`artifacts/task_<t>/sim_<id>/audio/both.wav`), if it is there and inside the run. */
export function callRecording(folder: string, taskId: string, simulationId: string): string | undefined {
  return fileInside(folder, path.join(simulationAudioDir(folder, taskId, simulationId), "both.wav"));
}
