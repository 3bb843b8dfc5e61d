import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { RunRecord } from "../core/run-store.js";
import { readResultsFile } from "../formats/tau2/results.js";
import { importResults, resultsFileSha256 } from "../store/import-results.js";
import { Store } from "../store/store.js";
import { resultsDomain } from "./run-source.js";

/** A results file stored as a run, and the runs the same file became before. */
export interface ImportedResultsFile {
  run: RunRecord;
  domain: string;
  /** How many tasks the file holds. */
  tasks: number;
  /** The runs this same file (by its SHA-256) was imported as before: its trials are now stored twice. */
  earlier: string[];
}

/**
 * Store a τ² results file (or run directory) as a new run, as `passk import` does: its domain from the
 * file (else `domain`), labelled with the file's name unless `label`. A file is remembered by its hash,
 * so the web app flags it uploaded again. The file is read before the store is opened (created if absent).
 */
export function importResultsFile(
  file: string,
  options: { store: Store | string; domain?: string; id?: string; label?: string },
): ImportedResultsFile {
  const results = readResultsFile(file);
  const domain = resultsDomain(results, options.domain, file);
  const sha256 = statSync(file).isFile() ? resultsFileSha256(readFileSync(file, "utf8")) : undefined;
  const store =
    typeof options.store === "string" ? Store.open(options.store, { create: true }) : options.store;
  try {
    const earlier = sha256 !== undefined ? store.importedAs(sha256) : [];
    const id = importResults(store, results, {
      domain,
      ...(options.id ? { id: options.id } : {}),
      label: options.label ?? path.basename(file),
      importedFrom: path.resolve(file),
      ...(sha256 !== undefined ? { sha256 } : {}),
    });
    return { run: store.getRun(id), domain, tasks: results.raw.tasks.length, earlier };
  } finally {
    if (store !== options.store) store.close();
  }
}
