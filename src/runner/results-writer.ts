import path from "node:path";
import { formatResults, type ResultsInput } from "../formats/tau2/results.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";

/**
 * Where `--save-to FILE` puts each domain's results: FILE itself for a one-domain run; for several
 * domains (a τ² file holds one environment) one file per domain, `NAME.<domain>.json` beside it.
 * @example resultsFiles("out/run.json", ["airline", "retail"]) // out/run.airline.json, out/run.retail.json
 */
export function resultsFiles(saveTo: string, domains: readonly string[]): Map<string, string> {
  if (domains.length === 1) return new Map([[domains[0]!, saveTo]]);
  const extension = path.extname(saveTo) || ".json";
  const stem = saveTo.slice(0, saveTo.length - path.extname(saveTo).length);
  return new Map(domains.map((domain) => [domain, `${stem}.${domain}${extension}`]));
}

/** Write an official τ² results file atomically (temporary file, flush, rename). */
export function writeResults(file: string, results: ResultsInput): void {
  writeFileAtomic(file, formatResults(results));
}
