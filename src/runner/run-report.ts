import type { SimulationNote } from "../core/simulation-note.js";
import { getDomain } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { RobustnessRow } from "../metrics/robustness.js";
import {
  computeRunMetrics,
  failingTasks,
  taskOutcomes,
  type RunMetrics,
  type TaskFailures,
} from "../metrics/run-metrics.js";
import { taskStatistics, type TaskStatistics } from "../metrics/statistics.js";
import { tokenUsage, type TokenUsageSummary, type UsageSimulation } from "../metrics/token-usage.js";
import { builtinDomains } from "../domains/registry.js";
import { notTheAgentsKeys } from "../review/review-run.js";
import { sqliteSimulationNotes } from "../store/simulation-notes.js";
import type { Store } from "../store/store.js";
import { participantRates } from "./participant-rates.js";
import { perturbationLabel, storedRobustnessRows } from "./robustness-pairs.js";
import { isScriptedDemo, readRunSource, sourceInfo, type RunSource, type StoreSource } from "./run-source.js";
import type { RunSessionEvent } from "./run.js";
import { RunConfigSchema, type RunConfig } from "./run-spec.js";
import { tau2Comparability, type Tau2Comparability } from "./tau2-comparability.js";

/** How a domain's data is loaded (`dataDir`: the run's recorded data directory, when it has one). */
export type DomainDataLoader = (name: string, dataDir: string | undefined) => DomainData;

/** Where the domains' data comes from: a loader, else the built-in domains (and `domains`) in the data dir. */
export interface DomainDataOptions {
  domainData?: DomainDataLoader;
  /** Your own domains beside the built-in ones. */
  domains?: ReadonlyMap<string, AnyDomain>;
  /** Where the data dir is found (`$PASSK_DATA_DIR`); by default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The loader the options name, or one over a fresh {@link DomainCatalog}. */
export function domainDataLoader(options: DomainDataOptions = {}): DomainDataLoader {
  if (options.domainData) return options.domainData;
  const known = new Map([...builtinDomains, ...(options.domains ?? [])]);
  const catalog = new DomainCatalog();
  return (name, dataDir) =>
    catalog.load(getDomain(name, known), { dataDir: resolveDataDir(dataDir, options.env) });
}

/**
 * The task ids of a τ² domain's `base` split (all its tasks when it has no splits), when its data is at
 * hand; undefined for a domain that is not τ²'s or without the data.
 */
export function baseSplitTaskIds(
  load: DomainDataLoader,
  domain: string,
  dataDir: string | undefined,
): string[] | undefined {
  try {
    const data = load(domain, dataDir);
    if (!data.domain.tau2) return undefined;
    return data.splits?.base ?? data.tasks.map((t) => t.id);
  } catch {
    return undefined;
  }
}

/** Per domain of a run: can its numbers stand beside the τ²-bench leaderboard's? */
export function runComparability(
  source: Pick<RunSource, "file" | "run" | "simulations" | "numTrials">,
  options: DomainDataOptions = {},
): Record<string, Tau2Comparability> {
  const info = sourceInfo(source);
  const dataDir = (info as { passk?: { config?: { data?: unknown } } } | null)?.passk?.config?.data;
  const load = domainDataLoader(options);
  const domains = [...new Set(source.simulations.map((s) => s.domain))].sort();
  return Object.fromEntries(
    domains.map((domain) => {
      const simulations = source.simulations.filter((s) => s.domain === domain);
      const base = baseSplitTaskIds(load, domain, typeof dataDir === "string" ? dataDir : undefined);
      return [
        domain,
        tau2Comparability({
          domain,
          info,
          taskIds: simulations.map((s) => s.task_id),
          numTrials: source.numTrials,
          rewardInfos: simulations.map((s) => s.reward_info),
          ...(base ? { baseTaskIds: base } : {}),
        }),
      ];
    }),
  );
}

export interface RunReportOptions extends DomainDataOptions {
  /** The store a run id is read from (by default `$PASSK_STORE`, else `.passk/passk.db`). */
  store?: StoreSource;
  /** Only this domain (for a results file: its domain if the file does not say). */
  domain?: string;
  /** Seed of the bootstrap resampling; 0 by default. */
  seed?: number;
}

/** Everything known of a run's results: what `passk report` prints, as data. */
export interface RunReport {
  source: RunSource;
  /** Played by scripted participants (`scripted:gold`): a demo, not a model's score. */
  scriptedDemo: boolean;
  comparability: Record<string, Tau2Comparability>;
  metrics: RunMetrics;
  /** With stored reviews: the metrics without the failures that were not the agent's. */
  agentOnly?: RunMetrics;
  /** How many simulations `agentOnly` leaves out. */
  excludedSimulations: number;
  taskStatistics: TaskStatistics[];
  tokenUsage: TokenUsageSummary;
  failingTasks: TaskFailures[];
  /** A stored run measured with and without perturbations: its robustness rows. */
  robustness: RobustnessRow[];
  /** Notes flagging a task issue (written in the web app's explorer). */
  taskIssues: SimulationNote[];
  /** An adaptive run's settings. */
  adaptive?: NonNullable<RunConfig["adaptive"]>;
}

/**
 * The report of a run — a results file (a path) or a stored run (its id or a unique prefix): average
 * reward, pass^k with bootstrap intervals, pass@k, costs and tokens, τ² comparability, task stability,
 * the failing tasks with their failed checks and, for a stored run, its robustness rows and task issues.
 */
export function runReport(ref: string, options: RunReportOptions = {}): RunReport {
  return readRunSource(
    ref,
    options,
    (source) => reportOf(source, options, undefined),
    (source, store) => reportOf(source, options, store),
  );
}

function reportOf(source: RunSource, options: RunReportOptions, store: Store | undefined): RunReport {
  const bootstrap = { seed: options.seed ?? 0 };
  const metrics = computeRunMetrics(source.simulations, { numTrials: source.numTrials, bootstrap });
  const excluded = notTheAgentsKeys(source.reviews ?? []);
  const agentOnly =
    excluded.size > 0
      ? computeRunMetrics(
          source.simulations.filter(
            (s) => !excluded.has(`${s.domain}\u0000${s.task_id}\u0000${s.trial ?? 0}`),
          ),
          { numTrials: source.numTrials, bootstrap },
        )
      : undefined;
  const run = source.run;
  const timestamp = source.file?.results.timestamp ?? run?.timestamp ?? undefined;
  const adaptive = RunConfigSchema.safeParse(run?.config).data?.adaptive;
  return {
    source,
    scriptedDemo: isScriptedDemo(source),
    comparability: runComparability(source, options),
    metrics,
    ...(agentOnly ? { agentOnly } : {}),
    excludedSimulations: excluded.size,
    taskStatistics: taskStatistics(taskOutcomes(source.simulations)),
    tokenUsage: tokenUsage(
      usageSimulations(source, store, options.domain),
      participantRates(sourceInfo(source), timestamp),
    ),
    failingTasks: failingTasks(source.simulations),
    robustness: run && store ? storedRobustnessRows(store, run.id) : [],
    taskIssues:
      run && store
        ? sqliteSimulationNotes(store)
            .list(run.id)
            .filter((note) => note.taskIssue)
        : [],
    ...(adaptive ? { adaptive } : {}),
  };
}

/** Every simulation of the source with its messages (whose usage the token counts read). */
function usageSimulations(
  source: RunSource,
  store: Store | undefined,
  domain: string | undefined,
): UsageSimulation[] {
  if (source.file) {
    // A results file's simulations, in the order (and with the domain) the scored ones were read.
    return source.file.results.simulations.map((simulation, i) => ({
      ...simulation,
      domain: source.simulations[i]?.domain ?? "",
    }));
  }
  if (!source.run || !store) return [];
  return store
    .getSimulations(source.run.id, domain !== undefined ? { domain } : {})
    .map(({ domain, simulation }) => ({ ...simulation, domain }));
}

/** The report as one JSON object in snake_case (`passk report --json`); sections a run has none of are left out. */
export function runReportJson(report: RunReport) {
  const { source, agentOnly, robustness, taskIssues } = report;
  return {
    source: source.label,
    ...(report.scriptedDemo ? { scripted_demo: true } : {}),
    tau2_comparability: report.comparability,
    metrics: report.metrics,
    ...(agentOnly
      ? {
          metrics_excluding_not_the_agents_failures: agentOnly,
          excluded_simulations: report.excludedSimulations,
        }
      : {}),
    task_statistics: report.taskStatistics,
    token_usage: report.tokenUsage,
    failing_tasks: report.failingTasks,
    ...(robustness.length > 0 ? { robustness } : {}),
    ...(taskIssues.length > 0
      ? {
          task_issues: taskIssues.map((note) => ({
            domain: note.domain,
            task_id: note.taskId,
            trial: note.trial,
            category: note.category,
            text: note.text,
          })),
        }
      : {}),
  };
}

/** One line naming the simulations a note flags as a task issue (the first five), with their categories. */
export function describeTaskIssues(notes: readonly SimulationNote[]): string {
  const simulations = new Map<string, string[]>();
  for (const note of notes) {
    const key = `${note.taskId} trial ${note.trial}`;
    const categories = simulations.get(key) ?? [];
    if (note.category && !categories.includes(note.category)) categories.push(note.category);
    simulations.set(key, categories);
  }
  const shown = [...simulations]
    .slice(0, 5)
    .map(([key, categories]) => (categories.length > 0 ? `${key} (${categories.join(", ")})` : key));
  const more = simulations.size > 5 ? `, and ${simulations.size - 5} more` : "";
  return `task issues flagged in notes: ${simulations.size} simulation${simulations.size === 1 ? "" : "s"}: ${shown.join(", ")}${more}`;
}

/** The run in one line: its id, domains, participants, trials, seed, protocol and perturbations. */
export function describeRunHeader(config: RunConfig, run: { id: string }): string {
  const who = config.scriptedDemo
    ? "scripted:gold (agent and user)"
    : `agent ${config.agent.model}, user ${config.user.model}`;
  const perturbed = perturbationLabel(config);
  return `run ${run.id} · ${config.domains.join(", ")} · ${who} · ${config.numTrials} trial(s) · seed ${config.seed} · ${config.protocol === "tau2" ? "τ²" : "passk"} protocol${perturbed ? ` · perturbed: ${perturbed}` : ""}`;
}

/** What a run session is about to do, once its run is stored: how many conversations, how, and where. */
export function describeRunStart(
  event: Extract<RunSessionEvent, { type: "run-stored" }>,
  config: RunConfig,
  storeFile: string,
): string {
  const domains = event.plan.domains.map((d) => `${d.domain} ${d.tasks.length} tasks`).join(", ");
  const trials = `${config.numTrials} trial${config.numTrials === 1 ? "" : "s"}`;
  const budget = config.maxCost !== undefined ? `, budget $${config.maxCost}` : "";
  return (
    `${event.resumed ? "resuming" : "starting"} run ${event.run.id}: ${event.conversations} conversations ` +
    `(${domains} × ${trials}), concurrency ${config.maxConcurrency}${budget}; store ${storeFile}`
  );
}
