import { ConfigError, UnknownNameError } from "../core/errors.js";
import type { Judge } from "../core/judge.js";
import type { NlAssertionCheck, RewardInfo } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import type { ArgumentValidation } from "../env/world.js";
import { evaluateSimulation } from "../evaluation/evaluate-simulation.js";
import { changedTasks } from "../evaluation/task-drift.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { ResultsFile } from "../formats/tau2/results.js";
import { isSuccessful } from "../metrics/pass-hat-k.js";
import { computeRunMetrics, scoredSimulations, type RunMetrics } from "../metrics/run-metrics.js";
import { gradeWithViolations, perturbConversation } from "../perturbations/perturb-conversation.js";
import { createPerturbationRegistry, type PerturbationRegistry } from "../perturbations/registry.js";
import { builtinDomains, getDomain } from "../domains/registry.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";

/**
 * How the file's trajectories passed arguments to tools: passk's protocol checked them strictly (runs
 * recorded before passk recorded its protocol ran passk's); the reference, and passk under τ²'s
 * protocol, passed them raw.
 */
function recordedValidation(info: unknown): ArgumentValidation {
  const passk = (info as { passk?: { protocol?: unknown } } | null)?.passk;
  if (passk === undefined || passk === null) return "lenient";
  return passk.protocol === "tau2" ? "lenient" : "strict";
}

/**
 * Where an audited file disagrees with the data: embedded tasks whose grading differs from the official
 * ones, simulations of tasks the domain does not have, and tool calls that name another domain's tools.
 */
function auditAgainstData(
  results: ResultsFile,
  domainName: string,
  official: ReadonlyMap<string, Task>,
  domains: ReadonlyMap<string, AnyDomain>,
): string[] {
  const problems: string[] = [];
  const changed = changedTasks(results.results.tasks, official);
  if (changed.length > 0)
    problems.push(
      `${changed.length} task(s) embedded in the file are graded differently from the official ${domainName} tasks ` +
        `(${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", …" : ""})`,
    );
  const unknown = [
    ...new Set(results.results.simulations.map((s) => s.task_id).filter((id) => !official.has(id))),
  ];
  if (unknown.length > 0)
    problems.push(
      `${unknown.length} simulated task(s) are not official ${domainName} tasks (${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ", …" : ""})`,
    );
  // Tools of another domain in the trajectories: the declared domain is not the one that was run.
  const declared = domains.get(domainName);
  const own = new Set(
    [...(declared?.agent.tools ?? []), ...(declared?.user?.tools ?? [])].map((t) => t.name),
  );
  const called = new Set<string>();
  for (const simulation of results.results.simulations)
    for (const message of simulation.messages)
      if (message.role === "assistant" || message.role === "user")
        for (const call of message.tool_calls ?? []) if (!own.has(call.name)) called.add(call.name);
  for (const [name, other] of domains) {
    if (name === domainName || called.size === 0) continue;
    const theirs = new Set([...other.agent.tools, ...(other.user?.tools ?? [])].map((t) => t.name));
    const matching = [...called].filter((tool) => theirs.has(tool));
    if (matching.length > 0 && matching.length === called.size) {
      problems.push(
        `the trajectories call ${matching.length} tool(s) that ${domainName} does not have and ${name} does (${matching.slice(0, 5).join(", ")}): the file's declared domain (info.environment_info.domain_name) looks wrong`,
      );
      break;
    }
  }
  return problems;
}

/**
 * A judge that answers with the verdicts a results file recorded, so that re-scoring checks every
 * other component without re-running an LLM. Missing verdicts leave the component unjudged.
 */
function recordedJudge(verdicts: readonly NlAssertionCheck[]): Judge {
  return {
    judge: async ({ assertions }) =>
      assertions.map((assertion) => {
        const verdict = verdicts.find((v) => v.nl_assertion === assertion);
        if (!verdict) throw new Error(`no recorded verdict for "${assertion}"`);
        return { nl_assertion: assertion, met: verdict.met, justification: verdict.justification ?? "" };
      }),
  };
}

/** One re-graded simulation: what the file says, and what passk computes from its messages. */
export interface ScoredRow {
  id: string;
  task_id: string;
  trial: number | null;
  recorded_reward: number | null;
  reward: number;
}

const EPSILON = 1e-9;

/** The domain a results file names, or a sentence saying how to name it. */
function fileDomain(results: ResultsFile, label: string): string {
  const environment = results.results.info.environment_info as { domain_name?: unknown } | null | undefined;
  const name = environment?.domain_name;
  if (typeof name === "string" && name !== "") return name;
  throw new ConfigError(
    `${label} does not name its domain (info.environment_info.domain_name is missing); pass its domain (--domain NAME).`,
  );
}

/** What re-grading a results file found: each simulation's recorded and recomputed reward, and the audit. */
export interface Rescored {
  rows: ScoredRow[];
  /** Whether a row's recomputed reward disagrees with the recorded one. */
  differs(row: ScoredRow): boolean;
  /** The rows whose recomputed reward differs from the recorded one. */
  mismatches: ScoredRow[];
  /**
   * Whether the audit fails: a recomputed reward differs, or the file disagrees with the data (whatever
   * the rewards) and its embedded tasks are not trusted.
   */
  failed: boolean;
  metrics: RunMetrics;
  /** Where the file disagrees with the official data (empty when it agrees). */
  disagreements: string[];
  /** Simulations whose natural-language assertions had no recorded verdicts (graded without them). */
  notJudged: ReadonlySet<string>;
  /** Simulations graded with the natural-language verdicts the file recorded. */
  reusedVerdicts: number;
}

export interface RescoreOptions {
  /** The domain the file ran on; by default the one it names (info.environment_info.domain_name). */
  domainName?: string;
  /** The domain's official data; by default loaded from `dataDir`. */
  data?: DomainData;
  /** The τ² data directory: by default `PASSK_DATA_DIR` or where `passk data pull` puts it. */
  dataDir?: string;
  /** Every domain known (built-in by default), to load the file's and to name a wrong one. */
  domains?: ReadonlyMap<string, AnyDomain>;
  /** Grade against the tasks embedded in the file rather than the official ones. */
  trustEmbeddedTasks?: boolean;
  /** The perturbations the file's simulations may name; passk's own by default. */
  perturbations?: PerturbationRegistry;
  /** Seed of the metrics' bootstrap (default 0). */
  seed?: number;
  /** How the file is named in sentences. */
  label?: string;
}

/**
 * Re-grade every simulation of a τ² results file from its messages, against the official tasks of the
 * data (the file's own only when trusted), with the natural-language verdicts the file recorded (the
 * judge is not re-run) and each perturbed simulation's policy violations applied as its run applied them.
 */
export async function rescore(results: ResultsFile, options: RescoreOptions = {}): Promise<Rescored> {
  const label = options.label ?? "the results file";
  const domains = options.domains ?? builtinDomains;
  const domainName = options.domainName ?? fileDomain(results, label);
  const data =
    options.data ??
    new DomainCatalog().load(getDomain(domainName, domains), { dataDir: resolveDataDir(options.dataDir) });
  const trust = options.trustEmbeddedTasks ?? false;
  const registry = options.perturbations ?? createPerturbationRegistry();
  const official = new Map<string, Task>(data.tasks.map((t) => [t.id, t]));
  const embedded = new Map<string, Task>(results.results.tasks.map((t) => [t.id, t]));
  // An audit grades against the official tasks: a file's own tasks may have been edited to pass.
  const taskOf = (id: string): Task => {
    const task = trust ? (embedded.get(id) ?? official.get(id)) : official.get(id);
    if (task) return task;
    throw new UnknownNameError(
      `${domainName} task`,
      id,
      [...official.keys()],
      trust
        ? `${label} neither embeds it nor does the data directory have it; pass --data with the data the run used.`
        : `it is not an official ${domainName} task: check the file's domain (--domain) and --data, or pass --trust-embedded-tasks to grade against the file's own tasks.`,
    );
  };
  const disagreements = auditAgainstData(results, domainName, official, domains);
  if (!trust && results.results.simulations.some((s) => !official.has(s.task_id)))
    throw new ConfigError(
      `${label} disagrees with the official ${domainName} data: ${disagreements.join("; ")}. ` +
        "Check the file's domain (--domain) and --data, or pass --trust-embedded-tasks to grade against the file's own tasks.",
    );
  const validation = recordedValidation(results.results.info);
  const violationsOf = (simulation: (typeof results.results.simulations)[number], task: Task): string[] => {
    const specs = (simulation.info as { perturbations?: unknown } | null | undefined)?.perturbations;
    if (!Array.isArray(specs) || specs.length === 0) return [];
    const perturbations = specs.map((spec) => registry.resolve(String(spec)));
    return perturbConversation(perturbations, { task, seed: simulation.seed ?? 0 }).violations(
      simulation.messages,
    );
  };
  const rows: ScoredRow[] = [];
  // What the file records, with each reward_info replaced by the recomputed one below.
  const rescored = scoredSimulations(results.results.simulations, domainName);
  const notJudged = new Set<string>();
  let reusedVerdicts = 0;
  for (const [index, simulation] of results.results.simulations.entries()) {
    const recordedVerdicts = simulation.reward_info?.nl_assertions ?? null;
    const task = taskOf(simulation.task_id);
    const rewardInfo: RewardInfo = gradeWithViolations(
      await evaluateSimulation(
        simulation,
        task,
        // Replayed with arguments checked as they were when recorded.
        { newWorld: (o) => data.newWorld(o), validation },
        recordedVerdicts ? recordedJudge(recordedVerdicts) : undefined,
      ),
      violationsOf(simulation, task),
    );
    const judged = rewardInfo.reward_breakdown?.NL_ASSERTION !== null;
    if (!judged) notJudged.add(simulation.id);
    if (judged && recordedVerdicts && (rewardInfo.nl_assertions?.length ?? 0) > 0) reusedVerdicts++;
    rows.push({
      id: simulation.id,
      task_id: simulation.task_id,
      trial: simulation.trial ?? null,
      recorded_reward: simulation.reward_info?.reward ?? null,
      reward: rewardInfo.reward,
    });
    rescored[index]!.reward_info = rewardInfo;
  }
  const differs = (r: ScoredRow) => {
    if (r.recorded_reward === null) return isSuccessful(r.reward);
    // Without the NL component the recomputed reward is an upper bound: only a lower one disagrees.
    if (notJudged.has(r.id)) return r.reward < r.recorded_reward - EPSILON;
    return Math.abs(r.recorded_reward - r.reward) > EPSILON;
  };
  const metrics = computeRunMetrics(rescored, {
    numTrials: results.results.info.num_trials ?? null,
    bootstrap: { seed: options.seed ?? 0 },
  });
  const mismatches = rows.filter(differs);
  const failed = mismatches.length > 0 || (disagreements.length > 0 && !trust);
  return { rows, differs, mismatches, failed, metrics, disagreements, notJudged, reusedVerdicts };
}
