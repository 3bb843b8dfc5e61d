import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { formatResults, writeResultsFile, type ResultsInput } from "../../formats/tau2/results.js";
import type { Store } from "../../store/store.js";
import { println, type CliContext } from "../context.js";
import { withStore, withStoreOption } from "./run-source.js";

interface ExportOptions {
  store?: string;
  output?: string;
  domain?: string;
}

/**
 * A stored run as an official τ² results value (one domain: the format has one environment).
 * @example writeResultsFile("out.json", exportRun(store, runId))
 */
export function exportRun(store: Store, runId: string, domain?: string): ResultsInput {
  const run = store.getRun(runId);
  if (domain === undefined && run.domains.length > 1) {
    throw new ConfigError(
      `run ${run.id} spans several domains (${run.domains.join(", ")}) and a τ² results file holds one; pass --domain NAME.`,
    );
  }
  const chosen = domain ?? run.domains[0];
  if (domain !== undefined && !run.domains.includes(domain)) {
    throw new ConfigError(
      `run ${run.id} has no ${domain} simulations (domains: ${run.domains.join(", ") || "none"}).`,
    );
  }
  return {
    ...(run.extra ?? {}),
    timestamp: run.timestamp,
    info: (run.info ?? {}) as ResultsInput["info"],
    tasks: store.getTasks(run.id, chosen).map((t) => t.task),
    simulations: store
      .getSimulations(run.id, chosen === undefined ? {} : { domain: chosen })
      .map((s) => s.simulation),
  };
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
      exportRun(store, ref, options.domain),
    );
    if (options.output) {
      writeResultsFile(options.output, results);
      context.stderr.write(`wrote ${results.simulations.length} simulations to ${options.output}\n`);
    } else {
      println(context, formatResults(results));
    }
  });
}
