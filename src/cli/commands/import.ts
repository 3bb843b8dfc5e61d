import path from "node:path";
import type { Command } from "commander";
import { readResultsFile, type SimulationRunInput } from "../../formats/tau2/results.js";
import { println, type CliContext } from "../context.js";
import { resultsDomain, withStore, withStoreOption } from "./run-source.js";

interface ImportOptions {
  store?: string;
  id?: string;
  label?: string;
  domain?: string;
}

/**
 * Number trials that a results file leaves out, per task in order of appearance, so that every
 * simulation gets its (task, trial) key. Files written by τ² always have them.
 */
function withTrials(simulations: readonly SimulationRunInput[]): SimulationRunInput[] {
  const used = new Map<string, Set<number>>();
  for (const s of simulations) {
    if (typeof s.trial === "number") {
      const set = used.get(s.task_id) ?? new Set<number>();
      set.add(s.trial);
      used.set(s.task_id, set);
    }
  }
  return simulations.map((s) => {
    if (typeof s.trial === "number") return s;
    const set = used.get(s.task_id) ?? new Set<number>();
    let trial = 0;
    while (set.has(trial)) trial++;
    set.add(trial);
    used.set(s.task_id, set);
    return { ...s, trial };
  });
}

/** `passk import FILE`: load an official τ² results file into the store as a run. */
export function registerImport(program: Command, context: CliContext): void {
  withStoreOption(
    program
      .command("import")
      .description(
        "Load a τ²-bench results file (any run made with the reference, or passk --save-to) into the store",
      )
      .argument("<file>", "results JSON file (or a τ² run directory)")
      .option("--id <id>", "run id to give it (default: a new one)")
      .option("--label <text>", "a label shown by `passk runs list` (default: the file name)")
      .option("--domain <name>", "domain of the file when info.environment_info.domain_name is missing"),
  ).action((file: string, options: ImportOptions) => {
    const results = readResultsFile(file);
    const domain = resultsDomain(results, options.domain, file);
    const { raw } = results;
    const { info, tasks, simulations, timestamp, ...extra } = raw;
    const run = withStore(context, options.store, { create: true }, (store) =>
      store.transaction(() => {
        const created = store.createRun({
          ...(options.id ? { id: options.id } : {}),
          status: "imported",
          label: options.label ?? path.basename(file),
          numTrials: results.results.info.num_trials ?? null,
          config: { imported_from: path.resolve(file) },
          info: info as Record<string, unknown>,
          timestamp: timestamp ?? null,
          extra: Object.keys(extra).length > 0 ? extra : null,
        });
        store.putTasks(created.id, domain, tasks);
        for (const simulation of withTrials(simulations ?? []))
          store.putSimulation(created.id, domain, simulation);
        return store.getRun(created.id);
      }),
    );
    println(
      context,
      `imported ${file} as run ${run.id}: ${run.simulationCount} simulations, ${tasks.length} tasks (${domain})`,
    );
  });
}
