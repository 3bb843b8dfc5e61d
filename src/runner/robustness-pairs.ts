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
 * The robustness rows of a run among others (finished ones, newest first): a perturbed run against
 * the newest clean run of the same configuration (tasks, trials, seed, models…); a clean run against
 * the newest run of each perturbation made with its configuration. None when nothing pairs.
 */
export function robustnessRowsOf(
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
