import type { Command } from "commander";
import { importResultsFile } from "../../runner/import-results-file.js";
import { resolveStorePath } from "../../store/store-location.js";
import { println, type CliContext } from "../context.js";
import { withStoreOption } from "./run-source.js";

interface ImportOptions {
  store?: string;
  id?: string;
  label?: string;
  domain?: string;
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
    const { run, domain, tasks, earlier } = importResultsFile(file, {
      store: resolveStorePath(options.store, context.env),
      ...(options.domain !== undefined ? { domain: options.domain } : {}),
      ...(options.id !== undefined ? { id: options.id } : {}),
      ...(options.label !== undefined ? { label: options.label } : {}),
    });
    if (earlier.length > 0)
      context.stderr.write(
        `note: ${file} was imported before, as run ${earlier.join(", ")}: its trials are now stored twice (passk runs delete RUN removes one)\n`,
      );
    println(
      context,
      `imported ${file} as run ${run.id}: ${run.simulationCount} simulations, ${tasks} tasks (${domain})`,
    );
  });
}
