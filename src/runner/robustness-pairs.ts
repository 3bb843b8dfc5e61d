import type { RunStatus, RunStore } from "../core/run-store.js";
import { robustnessRow, type RobustnessRow } from "../metrics/robustness.js";
import type { ScoredSimulation } from "../metrics/run-metrics.js";
import { identityDifferences, RunConfigSchema, type RunConfig } from "./run-spec.js";

/** A perturbed run's label: its perturbations joined (`tool-faults@1 + persona@1:trait=terse`). */
export const perturbationLabel = (config: Pick<RunConfig, "perturbations">) =>
  (config.perturbations ?? []).join(" + ");

/** Whether two runs measure the same thing but for their perturbations. */
function sameButPerturbations(a: RunConfig, b: RunConfig): boolean {
  return identityDifferences({ ...a, perturbations: [] }, { ...b, perturbations: [] }).length === 0;
}

/**
 * Whether a run can stand on either side of a robustness pair: completed runs only. A running,
 * interrupted or failed run has not evaluated every (task, trial) its configuration asks for, so its
 * pass^k is over another task set than its partner's; an imported results file carries no run
 * configuration of the store's to pair by.
 */
export const pairable = (run: { status: RunStatus }): boolean => run.status === "completed";

/**
 * The robustness rows of a stored run, the one pairing rule of `passk run`, `passk report` and the
 * explorer: nothing unless the run is {@link pairable}; else paired (see {@link robustnessRowsOf})
 * with the store's other pairable runs, by the configuration the runner stored with each.
 */
export function storedRobustnessRows(
  store: Pick<RunStore, "getRun" | "listRuns" | "scoredSimulations">,
  runId: string,
): RobustnessRow[] {
  const run = store.getRun(runId);
  if (!pairable(run)) return [];
  return robustnessRowsOf(run, store.listRuns().filter(pairable), (id) => store.scoredSimulations(id));
}

/**
 * The robustness rows of a run among others (newest first): a perturbed run against the newest clean
 * run of the same configuration (tasks, trials, seed, models…); a clean run against the newest run of
 * each perturbation made with its configuration. None when nothing pairs.
 */
function robustnessRowsOf(
  run: { id: string; config: unknown },
  others: ReadonlyArray<{ id: string; config: unknown }>,
  simulationsOf: (runId: string) => readonly ScoredSimulation[],
): RobustnessRow[] {
  const config = RunConfigSchema.safeParse(run.config).data;
  if (!config) return [];
  const peers = others
    .filter((other) => other.id !== run.id)
    .map((other) => ({ id: other.id, config: RunConfigSchema.safeParse(other.config).data }))
    .filter((o): o is { id: string; config: RunConfig } => o.config !== undefined)
    .filter((o) => sameButPerturbations(o.config, config));
  const row = (clean: string, perturbed: string, label: string): RobustnessRow => ({
    ...robustnessRow(label, simulationsOf(clean), simulationsOf(perturbed), { numTrials: config.numTrials }),
    run_id: perturbed,
    baseline_run_id: clean,
  });
  const label = perturbationLabel(config);
  if (label !== "") {
    const baseline = peers.find((p) => perturbationLabel(p.config) === "");
    return baseline ? [row(baseline.id, run.id, label)] : [];
  }
  const seen = new Set<string>();
  const rows: RobustnessRow[] = [];
  for (const peer of peers) {
    const peerLabel = perturbationLabel(peer.config);
    if (peerLabel === "" || seen.has(peerLabel)) continue;
    seen.add(peerLabel);
    rows.push(row(run.id, peer.id, peerLabel));
  }
  return rows.sort((a, b) => a.perturbation.localeCompare(b.perturbation));
}
