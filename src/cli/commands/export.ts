import type { Command } from "commander";
import { formatResults, writeResultsFile } from "../../formats/tau2/results.js";
import { runResults } from "../../store/run-results.js";
import { println, type CliContext } from "../context.js";
import { withStore, withStoreOption } from "./run-source.js";

interface ExportOptions {
  store?: string;
  output?: string;
  domain?: string;
}

/** `passk export RUN_ID`: write a stored run as an official τ² results file. */
export function registerExport(program: Command, context: CliContext): void {
  withStoreOption(
    program
      .command("export")
      .description(
        "Write a stored run as an official τ²-bench results JSON (loadable by the reference tooling)",
      )
      .argument("<run>", "run id (or unique prefix)")
      .option("-o, --output <file>", "write to this file (default: standard output)")
      .option("--domain <name>", "the domain to export, for runs that span several"),
  ).action((ref: string, options: ExportOptions) => {
    const results = withStore(context, options.store, { create: false }, (store) =>
      runResults(store, ref, options.domain === undefined ? {} : { domain: options.domain }),
    );
    if (options.output) {
      writeResultsFile(options.output, results);
      context.stderr.write(`wrote ${results.simulations.length} simulations to ${options.output}\n`);
    } else {
      println(context, formatResults(results));
    }
  });
}
