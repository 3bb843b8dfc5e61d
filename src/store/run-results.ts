import { ConfigError } from "../core/errors.js";
import type { ResultsInput } from "../formats/tau2/results.js";
import type { RunStore } from "../core/run-store.js";

/**
 * A stored run as an official τ² results value, ready for `writeResultsFile` (`passk export`,
 * `passk run --save-to`). A τ² file has one environment, so a run spanning several domains needs
 * `domain`.
 * @example writeResultsFile("results.json", runResults(store, runId))
 */
export function runResults(store: RunStore, runId: string, options: { domain?: string } = {}): ResultsInput {
  const run = store.getRun(runId);
  const { domain } = options;
  if (domain === undefined && run.domains.length > 1) {
    throw new ConfigError(
      `run ${run.id} spans several domains (${run.domains.join(", ")}) and a τ² results file holds one; pass --domain NAME.`,
    );
  }
  if (domain !== undefined && !run.domains.includes(domain)) {
    throw new ConfigError(
      `run ${run.id} has no ${domain} tasks (domains: ${run.domains.join(", ") || "none"}).`,
    );
  }
  const chosen = domain ?? run.domains[0];
  return {
    ...(run.extra ?? {}),
    timestamp: run.timestamp,
    info: domainInfo(run.info ?? {}, chosen),
    tasks: store.getTasks(run.id, chosen).map((t) => t.task),
    simulations: store
      .getSimulations(run.id, chosen === undefined ? {} : { domain: chosen })
      .map((s) => s.simulation),
  };
}

/**
 * The run's τ² info for one of its domains: a run over several domains stores the first one's info and
 * each domain's environment (`passk.environments`, written by `passk run`).
 */
function domainInfo(info: Record<string, unknown>, domain: string | undefined): ResultsInput["info"] {
  const environments = (info.passk as { environments?: Record<string, unknown> } | undefined)?.environments;
  const environment = domain !== undefined ? environments?.[domain] : undefined;
  if (environment === undefined || environment === null || typeof environment !== "object")
    return info as ResultsInput["info"];
  return { ...info, environment_info: environment as Record<string, unknown> } as ResultsInput["info"];
}
