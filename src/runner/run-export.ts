import type { SimulationNote } from "../core/simulation-note.js";
import { ConfigError, UnknownNameError } from "../core/errors.js";
import { toolSpecs } from "../env/tool-schema.js";
import { sftExport, type SftExport } from "../formats/sft.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { ResultsInput } from "../formats/tau2/results.js";
import { runResults } from "../store/run-results.js";
import { sqliteSimulationNotes } from "../store/simulation-notes.js";
import type { Store } from "../store/store.js";
import { domainDataLoader, type DomainDataOptions } from "./run-report.js";

/** A stored run as an official τ² results file, with the notes written on its simulations. */
export interface StoredRunExport {
  runId: string;
  results: ResultsInput;
  notes: SimulationNote[];
}

/** A stored run (its id or a unique prefix) as τ²'s results file — of one `domain` if given — and its notes. */
export function exportStoredRun(
  store: Store,
  ref: string,
  options: { domain?: string } = {},
): StoredRunExport {
  const { domain } = options;
  const results = runResults(store, ref, domain === undefined ? {} : { domain });
  const runId = store.getRun(ref).id;
  const notes = sqliteSimulationNotes(store)
    .list(runId)
    .filter((note) => domain === undefined || note.domain === domain);
  return { runId, results, notes };
}

export interface RunSftOptions extends DomainDataOptions {
  /** The τ² data directory the splits and tools are read from (by default `$PASSK_DATA_DIR`…). */
  dataDir?: string;
  /** Only tasks of this split of the domain (`train`, `test`…). */
  split?: string;
  /** Include tasks of the `test` split (left out by default). */
  includeTestSplit?: boolean;
}

/** What {@link sftOfResults} exported, and of which domain (unknown to passk: no splits, no tools). */
export interface RunSftExport extends SftExport {
  domain: unknown;
  splits: Readonly<Record<string, readonly string[]>> | undefined;
}

/**
 * A results file's passing conversations as chat-format training data, each with the tools its task
 * offered the agent; the test split left out unless asked for.
 */
export function sftOfResults(results: ResultsInput, options: RunSftOptions = {}): RunSftExport {
  const domain = (results.info.environment_info as { domain_name?: unknown } | null)?.domain_name;
  const data = typeof domain === "string" ? knownDomainData(domain, options) : undefined;
  const splits = data?.splits;
  if (options.split !== undefined && !splits?.[options.split])
    throw new ConfigError(
      `--split "${options.split}": ${String(domain)} has ${splits ? `the splits ${Object.keys(splits).join(", ")}` : "no task splits"}`,
    );
  const byId = new Map((data?.tasks ?? []).map((task) => [task.id, task]));
  const exported = sftExport(results, {
    ...(splits ? { splits } : {}),
    ...(options.split !== undefined ? { split: options.split } : {}),
    ...(options.includeTestSplit ? { includeTestSplit: true } : {}),
    ...(data
      ? {
          toolsOf: (taskId: string) => {
            const task = byId.get(taskId);
            return task ? toolSpecs(data.newWorld({ task }).offeredTools("agent")) : [];
          },
        }
      : {}),
  });
  return { ...exported, domain, splits };
}

/** A domain's data, or undefined for a domain passk does not know (its data's own errors are thrown). */
function knownDomainData(name: string, options: RunSftOptions): DomainData | undefined {
  try {
    return domainDataLoader(options)(name, options.dataDir);
  } catch (error) {
    if (error instanceof UnknownNameError && error.kind === "domain" && error.value === name)
      return undefined;
    throw error;
  }
}
