import { existsSync } from "node:fs";
import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { readResultsFile, type ResultsFile } from "../../formats/tau2/results.js";
import { scoredSimulations, type ScoredSimulation } from "../../metrics/run-metrics.js";
import { resolveStorePath } from "../../store/store-location.js";
import type { RunRecord } from "../../core/run-store.js";
import { Store } from "../../store/store.js";
import { isRemoteAgentSpec } from "../../agents/remote/index.js";
import type { CliContext } from "../context.js";

/** Add `--store PATH` (default `$PASSK_STORE`, else `.passk/passk.db`). */
export function withStoreOption(command: Command): Command {
  return command.option("--store <path>", "run store (default: $PASSK_STORE, else .passk/passk.db)");
}

/** Open the store named by `--store` / `PASSK_STORE`; read-only commands never create one. */
export function openStore(
  context: CliContext,
  flag: string | undefined,
  options: { create: boolean },
): Store {
  return Store.open(resolveStorePath(flag, context.env), { create: options.create });
}

/** Run `fn` with the store open, closing it afterwards. */
export function withStore<T>(
  context: CliContext,
  flag: string | undefined,
  options: { create: boolean },
  fn: (store: Store) => T,
): T {
  const store = openStore(context, flag, options);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** What report/compare need of a run, wherever it comes from. */
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

const looksLikePath = (ref: string) => /[\\/]|\.json$/i.test(ref);

/** The domain of a results file: its `info.environment_info.domain_name`, or `--domain`. */
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

/** The scored simulations of a results file (its domain from the file). */
export function scoredFromResults(file: ResultsFile, domain: string): ScoredSimulation[] {
  return scoredSimulations(file.results.simulations, domain);
}

/**
 * A run given as a results file (an existing path) or as a run id (or unique prefix) in the store.
 */
export function loadRunSource(
  context: CliContext,
  ref: string,
  options: { store?: string; domain?: string },
): RunSource {
  if (existsSync(ref)) {
    const file = readResultsFile(ref);
    return {
      label: ref,
      numTrials: file.results.info.num_trials ?? null,
      simulations: scoredFromResults(file, resultsDomain(file, options.domain, ref)),
      file,
    };
  }
  if (looksLikePath(ref)) {
    throw new ConfigError(`${ref}: no such results file, and it is not a run id. Check the path.`);
  }
  return withStore(context, options.store, { create: false }, (store) => {
    const run = store.getRun(ref);
    const simulations = store
      .scoredSimulations(run.id)
      .filter((s) => options.domain === undefined || s.domain === options.domain);
    return {
      label: `run ${run.id}`,
      numTrials: run.numTrials,
      simulations,
      run,
      reviews: store.reviews(run.id),
    };
  });
}

/** Whether a run was played by scripted participants (`scripted:gold`): a demo, not a model's score. */
export function isScriptedDemo(source: Pick<RunSource, "file" | "run">): boolean {
  return isScriptedDemoInfo(source.file?.results.info ?? source.run?.info ?? null);
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

/** The same, for a run or results file. */
export function sourceAgentCostCounted(source: Pick<RunSource, "file" | "run">): boolean {
  return agentCostCounted(source.file?.results.info ?? source.run?.info ?? null);
}
