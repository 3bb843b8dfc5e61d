import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import type { ResultsInput } from "../../formats/tau2/results.js";
import { formatResults, writeResultsFile } from "../../formats/tau2/results.js";
import { writeFileAtomic } from "../../core/write-file-atomic.js";
import { exportStoredRunSite } from "../../server/static-export.js";
import { exportStoredRun, sftOfResults } from "../../runner/run-export.js";
import { formatNotesFile, notesFileFor } from "../../store/simulation-notes.js";
import { println, type CliContext } from "../context.js";
import { domainDataOf, loadDomain } from "../domain-flags.js";
import { withStore, withStoreOption } from "./run-source.js";

interface ExportOptions {
  store?: string;
  output?: string;
  domain?: string;
  format: string;
  split?: string;
  includeTestSplit?: boolean;
  data?: string;
  webRoot?: string;
}

/** `passk export RUN_ID`: write a stored run as an official τ² results file, SFT data or a static site. */
export function registerExport(program: Command, context: CliContext): void {
  withStoreOption(
    program
      .command("export")
      .description(
        "Write a stored run as an official τ²-bench results JSON (loadable by the reference tooling), as training data (--format sft), or as its explorer pages in a folder that opens with no server (--format html)",
      )
      .argument("<run>", "run id (or unique prefix)")
      .option(
        "-o, --output <path>",
        "write to this file (default: standard output); html: the folder to write",
      )
      .option("--domain <name>", "the domain to export, for runs that span several")
      .option(
        "--format <format>",
        "tau2 (the results file), sft (the passing conversations as chat-format training data, JSONL) or html (the explorer's pages of the run as a folder that opens from disk or any static host)",
        "tau2",
      )
      .option("--split <name>", "sft: only tasks of this split of the domain (train, test…)")
      .option("--include-test-split", "sft: also export tasks of the test split (left out by default)")
      .option(
        "--data <dir>",
        "sft: the τ² data directory the splits and tools are read from; html: the task titles and diffs",
      )
      .option("--web-root <dir>", "html: folder of the built web app (default: the one shipped with passk)"),
  ).action(async (ref: string, options: ExportOptions) => {
    if (options.format !== "tau2" && options.format !== "sft" && options.format !== "html")
      throw new ConfigError(`--format "${options.format}" is not known: use tau2, sft or html`);
    if (options.format !== "sft" && (options.split !== undefined || options.includeTestSplit))
      throw new ConfigError("--split and --include-test-split go with --format sft");
    if (options.webRoot !== undefined && options.format !== "html")
      throw new ConfigError("--web-root goes with --format html");
    if (options.format === "html") {
      await exportHtml(context, ref, options);
      return;
    }
    if (options.format === "sft" && options.split === "test" && !options.includeTestSplit)
      throw new ConfigError(
        "--split test exports the tasks passk's scores are measured on as training data; add --include-test-split if that is what you mean",
      );
    const { results, runId, notes } = await withStore(context, options.store, { create: false }, (store) =>
      exportStoredRun(store, ref, options.domain === undefined ? {} : { domain: options.domain }),
    );
    if (options.format === "sft") {
      exportSft(context, results, options);
      return;
    }
    // Notes go beside the results file, which stays exactly what τ²'s tooling reads.
    if (options.output) {
      writeResultsFile(options.output, results);
      context.stderr.write(`wrote ${results.simulations.length} simulations to ${options.output}\n`);
      if (notes.length > 0) {
        writeFileAtomic(notesFileFor(options.output), formatNotesFile(runId, notes));
        context.stderr.write(`wrote ${notes.length} notes to ${notesFileFor(options.output)}\n`);
      }
    } else {
      println(context, formatResults(results));
      if (notes.length > 0)
        context.stderr.write(
          `the run has ${notes.length} notes, not on standard output: -o FILE writes them to FILE.notes.json\n`,
        );
    }
  });
}

/** `--format html`: the run's explorer pages as a folder, as `passk serve` would show them. */
async function exportHtml(context: CliContext, ref: string, options: ExportOptions): Promise<void> {
  if (options.output === undefined)
    throw new ConfigError("--format html writes a folder: name it with -o DIR");
  if (options.domain !== undefined)
    throw new ConfigError("--domain goes with --format tau2 or sft: --format html exports the whole run");
  const outDir = options.output;
  const summary = await withStore(context, options.store, { create: false }, (store) =>
    exportStoredRunSite(store, {
      runId: ref,
      outDir,
      webRoot: options.webRoot,
      env: context.env,
      loadDomainData: (name) => {
        if (!context.domains.has(name)) return undefined;
        try {
          return loadDomain(context, name, options.data !== undefined ? { data: options.data } : {});
        } catch {
          return undefined; // as the server: without the domain's data, no titles or recomputed diffs
        }
      },
    }),
  );
  const size = (summary.bytes / 1024 / 1024).toFixed(1);
  context.stderr.write(
    `wrote run ${summary.runId} (${summary.simulations} simulations) to ${outDir}: ${summary.files} files, ${size} MB; open ${outDir}/index.html\n`,
  );
}

/** `--format sft`: the passing conversations as JSONL, the test split left out unless asked for. */
function exportSft(context: CliContext, results: ResultsInput, options: ExportOptions): void {
  const exported = sftOfResults(results, {
    ...(options.data !== undefined ? { dataDir: options.data } : {}),
    ...(options.split !== undefined ? { split: options.split } : {}),
    ...(options.includeTestSplit ? { includeTestSplit: true } : {}),
    domainData: domainDataOf(context),
  });
  const text = exported.examples.map((example) => JSON.stringify(example)).join("\n");
  if (options.output) writeFileSync(options.output, text === "" ? "" : `${text}\n`);
  else if (text !== "") println(context, text);
  const notes = [
    `${exported.examples.length} of ${exported.passing} passing conversations (of ${results.simulations.length})`,
    ...(exported.leftOutOtherSplits > 0
      ? [`${exported.leftOutOtherSplits} left out: not in split "${options.split}"`]
      : []),
    ...(exported.leftOutTestSplit > 0
      ? [
          `${exported.leftOutTestSplit} left out: their tasks are in the test split (--include-test-split to include them)`,
        ]
      : []),
    ...(exported.splits ? [] : [`${String(exported.domain)} has no task splits: nothing guards a test set`]),
  ];
  context.stderr.write(`wrote ${notes.join("; ")}${options.output ? ` to ${options.output}` : ""}\n`);
}
