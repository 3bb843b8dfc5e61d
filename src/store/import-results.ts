import { createHash } from "node:crypto";
import type { ResultsFile } from "../formats/tau2/results.js";
import type { RunStore } from "../core/run-store.js";

/**
 * Store a validated τ² results file as a new run, all or nothing: its info, timestamp and unknown
 * top-level fields, its tasks and its simulations (trials numbered where the file leaves them out).
 * Returns the run's id. `passk import` and the web upload both come through here.
 */
export function importResults(
  store: RunStore,
  file: ResultsFile,
  options: {
    domain: string;
    id?: string;
    label: string | null;
    importedFrom: string;
    /** The file's SHA-256 (of its text), kept so that importing the same file again is noticed. */
    sha256?: string;
  },
): string {
  const { info, tasks, simulations, timestamp, ...extra } = file.raw;
  return store.transaction(() => {
    const created = store.createRun({
      ...(options.id ? { id: options.id } : {}),
      status: "imported",
      label: options.label,
      numTrials: file.results.info.num_trials ?? null,
      config: { imported_from: options.importedFrom },
      info: info as Record<string, unknown>,
      timestamp: timestamp ?? null,
      extra: Object.keys(extra).length > 0 ? extra : null,
    });
    store.putTasks(created.id, options.domain, tasks);
    for (const simulation of withTrials(simulations ?? []))
      store.putSimulation(created.id, options.domain, simulation);
    if (options.sha256 !== undefined) store.recordImport(options.sha256, created.id);
    return created.id;
  });
}

/** The SHA-256 by which an imported file is recognised (of its text, as the web upload hashes it). */
export function resultsFileSha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Number the trials a results file leaves out, per task in order of appearance, so that every
 * simulation has its (task, trial) key. Files written by τ² always have them.
 */
export function withTrials<S extends { task_id: string; trial?: number | null }>(
  simulations: readonly S[],
): Array<S & { trial: number }> {
  const used = new Map<string, Set<number>>();
  for (const s of simulations) {
    if (typeof s.trial === "number") {
      const set = used.get(s.task_id) ?? new Set<number>();
      set.add(s.trial);
      used.set(s.task_id, set);
    }
  }
  return simulations.map((s) => {
    if (typeof s.trial === "number") return s as S & { trial: number };
    const set = used.get(s.task_id) ?? new Set<number>();
    let trial = 0;
    while (set.has(trial)) trial++;
    set.add(trial);
    used.set(s.task_id, set);
    return { ...s, trial };
  });
}
