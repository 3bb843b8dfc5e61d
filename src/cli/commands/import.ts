import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { readResultsFile } from "../../formats/tau2/results.js";
import { importResults, resultsFileSha256 } from "../../store/import-results.js";
import { println, type CliContext } from "../context.js";
import { resultsDomain } from "../../runner/run-source.js";
import { withStore, withStoreOption } from "./run-source.js";

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
    const results = readResultsFile(file);
    const domain = resultsDomain(results, options.domain, file);
    // A file (not a τ² run folder) is remembered by its hash, so the web app flags it uploaded again.
    const sha256 = statSync(file).isFile() ? resultsFileSha256(readFileSync(file, "utf8")) : undefined;
    const { run, earlier } = withStore(context, options.store, { create: true }, (store) => {
      const earlier = sha256 !== undefined ? store.importedAs(sha256) : [];
      const id = importResults(store, results, {
        domain,
        ...(options.id ? { id: options.id } : {}),
        label: options.label ?? path.basename(file),
        importedFrom: path.resolve(file),
        ...(sha256 !== undefined ? { sha256 } : {}),
      });
      return { run: store.getRun(id), earlier };
    });
    if (earlier.length > 0)
      context.stderr.write(
        `note: ${file} was imported before, as run ${earlier.join(", ")}: its trials are now stored twice (passk runs delete RUN removes one)\n`,
      );
    println(
      context,
      `imported ${file} as run ${run.id}: ${run.simulationCount} simulations, ${results.raw.tasks.length} tasks (${domain})`,
    );
  });
}
