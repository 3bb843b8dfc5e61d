import { existsSync } from "node:fs";
import { isRemoteAgentSpec } from "../agents/remote/index.js";
import type { RunRecord, RunStore } from "../core/run-store.js";
import { ConfigError } from "../core/errors.js";
import { readResultsFile, type ResultsFile } from "../formats/tau2/results.js";
import { scoredSimulations, type ScoredSimulation } from "../metrics/run-metrics.js";
import { resolveStorePath } from "../store/store-location.js";
import { Store } from "../store/store.js";

/**
 * The run store a stored run is read from: an open store, or the path of one — opened (never created)
 * only when a run is read from it, and closed afterwards. By default `$PASSK_STORE`, else `.passk/passk.db`.
 */
export type StoreSource = Store | string;

/** Run `fn` with the store open: the given store, or the one at the path (closed afterwards). */
export function withStoreSource<T>(source: StoreSource | undefined, fn: (store: Store) => T): T {
  if (source instanceof Store) return fn(source);
  const store = Store.open(source ?? resolveStorePath(undefined), { create: false });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** A run as report and compare read it, wherever it comes from: a results file or a stored run. */
export interface RunSource {
  /** "run <id>" or the file name. */
  label: string;
  numTrials: number | null;
  simulations: ScoredSimulation[];
  run?: RunRecord;
  file?: ResultsFile;
  /** The stored reviews of a run's failed simulations (`passk review`). */
  reviews?: Array<{ domain: string; task_id: string; trial: number; review: unknown }>;
}

/** Whether a run reference is meant as a file (it has a slash or ends in .json), not a run id. */
export const looksLikePath = (ref: string) => /[\\/]|\.json$/i.test(ref);

/** The domain of a results file: its `info.environment_info.domain_name`, or `override` (`--domain`). */
export function resultsDomain(file: ResultsFile, override: string | undefined, name: string): string {
  const environment = file.results.info.environment_info as { domain_name?: unknown } | null | undefined;
  const domain = override ?? environment?.domain_name;
  if (typeof domain !== "string" || domain === "") {
    throw new ConfigError(
      `${name} does not name its domain (info.environment_info.domain_name is missing); pass --domain NAME.`,
    );
  }
  return domain;
}

/** A results file as a run source (its domain from the file, else `domain`). */
export function resultsFileSource(path: string, domain?: string): RunSource {
  const file = readResultsFile(path);
  return {
    label: path,
    numTrials: file.results.info.num_trials ?? null,
    simulations: scoredSimulations(file.results.simulations, resultsDomain(file, domain, path)),
    file,
  };
}

/** A stored run (its id or a unique prefix) as a run source, its simulations of `domain` only if given. */
export function storedRunSource(
  store: Pick<RunStore, "getRun" | "scoredSimulations" | "reviews">,
  ref: string,
  domain?: string,
): RunSource {
  const run = store.getRun(ref);
  return {
    label: `run ${run.id}`,
    numTrials: run.numTrials,
    simulations: store.scoredSimulations(run.id).filter((s) => domain === undefined || s.domain === domain),
    run,
    reviews: store.reviews(run.id),
  };
}

/**
 * Read a run given as a results file (an existing path) or as a run id (or unique prefix) in the store;
 * `fromStore` then continues with the open store.
 */
export function readRunSource<T>(
  ref: string,
  options: { store?: StoreSource | undefined; domain?: string | undefined },
  fromFile: (source: RunSource) => T,
  fromStore: (source: RunSource, store: Store) => T,
): T {
  if (existsSync(ref)) return fromFile(resultsFileSource(ref, options.domain));
  if (looksLikePath(ref))
    throw new ConfigError(`${ref}: no such results file, and it is not a run id. Check the path.`);
  return withStoreSource(options.store, (store) =>
    fromStore(storedRunSource(store, ref, options.domain), store),
  );
}

/** {@link readRunSource} when the store is needed only to read the run. */
export function loadRunSource(
  ref: string,
  options: { store?: StoreSource | undefined; domain?: string | undefined } = {},
): RunSource {
  const same = (source: RunSource) => source;
  return readRunSource(ref, options, same, same);
}

/** The `info` of a run source: its results file's, else its stored run's. */
export const sourceInfo = (source: Pick<RunSource, "file" | "run">): unknown =>
  source.file?.results.info ?? source.run?.info ?? null;

/** Whether a run was played by scripted participants (`scripted:gold`): a demo, not a model's score. */
export function isScriptedDemo(source: Pick<RunSource, "file" | "run">): boolean {
  return isScriptedDemoInfo(sourceInfo(source));
}

/** Whether a results file's or a stored run's `info` says its agent was scripted (`scripted:gold`). */
export function isScriptedDemoInfo(value: unknown): boolean {
  const info = value as { agent_info?: { llm?: unknown; implementation?: unknown } | null } | null;
  const agent = info?.agent_info;
  return [agent?.llm, agent?.implementation].some((v) => typeof v === "string" && v.startsWith("scripted:"));
}

/**
 * Whether passk counted the agent's cost: not for an agent running elsewhere (`a2a:`, `http:`), which
 * pays for its own model calls.
 */
export function agentCostCounted(value: unknown): boolean {
  const info = value as { agent_info?: { llm?: unknown } | null } | null;
  const llm = info?.agent_info?.llm;
  return !(typeof llm === "string" && isRemoteAgentSpec(llm));
}
