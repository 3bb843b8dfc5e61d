import type { SimulationRun } from "../core/simulation.js";
import type { NewSimulationNote } from "../core/simulation-note.js";
import { ConfigError } from "../core/errors.js";
import { parseResults } from "../formats/tau2/results.js";
import { resultsFileSha256 } from "../store/import-results.js";
import { ReviewSchema } from "../review/blame.js";
import type { Task } from "../core/task.js";
import { evaluateEnvironment } from "../evaluation/environment.js";
import { changedTasks } from "../evaluation/task-drift.js";
import { searchTranscripts } from "../review/transcript-search.js";
import { validateTask } from "../evaluation/validate-task.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { compareRuns } from "../metrics/compare-runs.js";
import { describeSignificance } from "../metrics/statistics.js";
import { failedChecks } from "../metrics/failed-checks.js";
import { isSuccessful } from "../metrics/pass-hat-k.js";
import { computeRunMetrics, type RunMetrics } from "../metrics/run-metrics.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import {
  STALLED_AFTER_SECONDS,
  type AgentScore,
  type CompareResponse,
  type RunSearchResult,
  type GridRow,
  type RecordDiff,
  type RobustnessRowView,
  type RunDetail,
  type RunProgress,
  type RunSummary,
  type SimulationDetail,
  type SimulationModelCallsResponse,
  type SimulationKeyView,
  type SimulationNote,
  type SimulationNotesResponse,
} from "./api-schemas.js";
import { taskTitle } from "./domain-views.js";
import { goldDivergence, goldMatches, goldReferenceOf } from "../metrics/gold-divergence.js";
import {
  resultsDomainName,
  type RunCatalog,
  type SimulationKey,
  type StoredRun,
  type StoredSimulationSummary,
} from "./run-catalog.js";
import {
  DuplicateImportError,
  FeatureDisabledError,
  NoteNotFoundError,
  RunNotFoundError,
  SimulationNotFoundError,
} from "./server-errors.js";
import { tau2Comparability } from "../runner/tau2-comparability.js";
import { simulationPolicyLinks } from "./policy-links.js";

const stringOr = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : null;

function sumOrNull(values: ReadonlyArray<number | null | undefined>): number | null {
  let total = 0;
  for (const v of values) {
    if (v === null || v === undefined) return null;
    total += v;
  }
  return total;
}

/** What the explorer calls a run: its label, else its model, else its id. */
export function runName(run: { id: string; label: string | null; model: string | null }): string {
  return run.label ?? run.model ?? run.id;
}

const modelOf = (run: StoredRun): string | null => {
  const agentInfo = (run.info["agent_info"] ?? {}) as Record<string, unknown>;
  return stringOr(agentInfo["llm"]) ?? stringOr(agentInfo["implementation"]);
};

/** A simulation that was graded and did not succeed. */
const failed = (s: StoredSimulationSummary) =>
  !NON_EVALUABLE_TERMINATIONS.has(s.termination_reason) && !isSuccessful(s.reward_info?.reward ?? null);

const rewardOf = (s: StoredSimulationSummary): number | null =>
  NON_EVALUABLE_TERMINATIONS.has(s.termination_reason) ? null : (s.reward_info?.reward ?? null);

/** Simulations in the grid's order: tasks as they first appear, each task's trials in order. */
function gridOrder(simulations: readonly StoredSimulationSummary[]): StoredSimulationSummary[] {
  const firstSeen = new Map<string, number>();
  simulations.forEach((s, i) => {
    const key = `${s.domain}\u0000${s.task_id}`;
    if (!firstSeen.has(key)) firstSeen.set(key, i);
  });
  return [...simulations].sort(
    (x, y) =>
      firstSeen.get(`${x.domain}\u0000${x.task_id}`)! - firstSeen.get(`${y.domain}\u0000${y.task_id}`)! ||
      x.trial - y.trial,
  );
}

const keyOf = (s: StoredSimulationSummary | undefined): SimulationKeyView | null =>
  s ? { domain: s.domain, taskId: s.task_id, trial: s.trial } : null;

interface RunMetricsEntry {
  /** The run's stored count and last activity when computed (a retry replaces a simulation). */
  version: string;
  simulations: StoredSimulationSummary[];
  metrics: RunMetrics;
  comparability: RunSummary["comparability"];
}

/**
 * Read-side views of the store for the explorer: summaries, the task × trial grid, one simulation
 * with its predicted-vs-gold diff, and run comparisons. Metrics are cached per run and simulation
 * count (runs only grow).
 */
export class RunViews {
  readonly #store: RunCatalog;
  readonly #loadDomainData: (name: string) => DomainData | undefined;
  readonly #cache = new Map<string, RunMetricsEntry>();
  /** Per run: its tasks whose gold actions raise (task defects), by domain and task id. */
  readonly #defects = new Map<string, Map<string, string[]>>();
  readonly #now: () => Date;

  constructor(
    store: RunCatalog,
    loadDomainData: (name: string) => DomainData | undefined,
    now: () => Date = () => new Date(),
  ) {
    this.#store = store;
    this.#loadDomainData = loadDomainData;
    this.#now = now;
  }

  /** The run's tasks whose gold actions raise when replayed, each with its warnings (computed once). */
  #taskDefects(runId: string): Map<string, string[]> {
    let found = this.#defects.get(runId);
    if (found) return found;
    found = new Map();
    for (const { domain, task } of this.#store.runTasks(runId)) {
      const data = this.#loadDomainData(domain);
      if (!data) continue;
      try {
        const { warnings } = validateTask(data.domain, task, (o) => data.newWorld(o));
        if (warnings.length > 0) found.set(`${domain}\u0000${task.id}`, warnings);
      } catch {
        // A task this domain cannot replay: no defect is claimed without the evidence.
      }
    }
    this.#defects.set(runId, found);
    return found;
  }

  #run(runId: string): StoredRun {
    const run = this.#store.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    return run;
  }

  #metrics(run: StoredRun): RunMetricsEntry {
    // Checked before reading the simulations: polling a list of finished runs reads none of them again.
    const version = `${run.progress.done}\u0000${run.progress.lastActivityAt}`;
    const cached = this.#cache.get(run.id);
    if (cached && cached.version === version) return cached;
    const simulations = this.#store.runSimulations(run.id);
    const entry = {
      version,
      simulations,
      metrics: computeRunMetrics(simulations, { numTrials: run.numTrials, bootstrap: { seed: 0 } }),
      comparability: this.#comparability(run, simulations),
    };
    this.#cache.set(run.id, entry);
    return entry;
  }

  /** `entry`: the run's simulations and metrics, when the caller already has them (one store read). */
  #summary(run: StoredRun, entry: RunMetricsEntry = this.#metrics(run)): RunSummary {
    const { simulations, metrics } = entry;
    const userInfo = (run.info["user_info"] ?? {}) as Record<string, unknown>;
    const trialsPerTask = new Map<string, number>();
    for (const s of simulations)
      trialsPerTask.set(`${s.domain}/${s.task_id}`, (trialsPerTask.get(`${s.domain}/${s.task_id}`) ?? 0) + 1);
    return {
      id: run.id,
      status: run.progress.status,
      progress: this.#progress(run),
      label: run.label,
      model: modelOf(run),
      userModel: stringOr(userInfo["llm"]) ?? stringOr(userInfo["implementation"]),
      domains: [...new Set(simulations.map((s) => s.domain))].sort(),
      tasks: trialsPerTask.size,
      trials: run.numTrials ?? Math.max(0, ...trialsPerTask.values()),
      simulations: simulations.length,
      graded: metrics.total_simulations,
      passHatKs: metrics.pass_hat_ks,
      avgReward: metrics.avg_reward,
      totalCost: sumOrNull(simulations.map((s) => sumOrNull([s.agent_cost, s.user_cost]))),
      date: run.timestamp ?? run.createdAt,
      comparability: entry.comparability,
    };
  }

  /** How far the run has come, its pace and what is left, by this server's clock. */
  #progress(run: StoredRun): RunProgress {
    const p = run.progress;
    const now = this.#now().getTime();
    const idleSeconds = Math.max(0, (now - Date.parse(p.lastActivityAt)) / 1000);
    const running = p.status === "running";
    const stalled = running && idleSeconds > STALLED_AFTER_SECONDS;
    const startedAt = running ? p.sessionStartedAt : null;
    const elapsedMinutes = startedAt === null ? 0 : (now - Date.parse(startedAt)) / 60_000;
    // A pace needs two conversations of this session; a stalled run has none to speak of.
    const perMinute =
      running && !stalled && p.doneThisSession >= 2 && elapsedMinutes > 0
        ? p.doneThisSession / elapsedMinutes
        : null;
    const left = Math.max(0, p.planned - p.done);
    return {
      planned: p.planned,
      done: p.done,
      startedAt,
      updatedAt: p.lastActivityAt,
      idleSeconds: Math.round(idleSeconds),
      stalled,
      perMinute,
      etaSeconds: perMinute !== null && !p.adaptive ? Math.round((left / perMinute) * 60) : null,
      adaptive: p.adaptive,
    };
  }

  /** τ²-comparability over the run's domains (reasons prefixed with the domain when it has several). */
  #comparability(
    run: StoredRun,
    simulations: readonly StoredSimulationSummary[],
  ): RunSummary["comparability"] {
    const domains = [...new Set(simulations.map((s) => s.domain))].sort();
    const reasons: string[] = [];
    for (const domain of domains) {
      const ofDomain = simulations.filter((s) => s.domain === domain);
      const data = this.#loadDomainData(domain);
      const base = data?.domain.tau2 ? data.splits?.base : undefined;
      const verdict = tau2Comparability({
        domain,
        info: run.info,
        taskIds: ofDomain.map((s) => s.task_id),
        numTrials: run.numTrials,
        rewardInfos: ofDomain.map((s) => s.reward_info),
        ...(base ? { baseTaskIds: base } : {}),
      });
      for (const reason of verdict.reasons) {
        const line = domains.length > 1 ? `${domain}: ${reason}` : reason;
        if (!reasons.includes(line)) reasons.push(line);
      }
    }
    const changed = this.#changedTasks(run.id);
    for (const [domain, ids] of changed)
      reasons.push(
        `${ids.length} of its ${domain} tasks are graded differently from the ${domain} tasks this server has ` +
          `(${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ", …" : ""}): its scores are not on those tasks`,
      );
    return {
      comparable: reasons.length === 0,
      reasons,
      ...(changed.size > 0
        ? { changedTasks: [...changed].map(([domain, taskIds]) => ({ domain, taskIds })) }
        : {}),
    };
  }

  /** Per domain, the ids of the run's tasks graded differently from the official tasks of that id. */
  #changedTasks(runId: string): Map<string, string[]> {
    const byDomain = new Map<string, Task[]>();
    for (const { domain, task } of this.#store.runTasks(runId))
      byDomain.set(domain, [...(byDomain.get(domain) ?? []), task]);
    const changed = new Map<string, string[]>();
    for (const [domain, tasks] of byDomain) {
      const data = this.#loadDomainData(domain);
      if (!data) continue;
      const ids = changedTasks(tasks, new Map(data.tasks.map((t) => [t.id, t])));
      if (ids.length > 0) changed.set(domain, ids);
    }
    return changed;
  }

  list(): RunSummary[] {
    return this.#store
      .listRuns()
      .map((run) => this.#summary(run))
      .sort((a, b) => (b.date ?? "").localeCompare(a.date ?? ""));
  }

  summaryOf(runId: string): RunSummary {
    return this.#summary(this.#run(runId));
  }

  detail(runId: string): RunDetail {
    const run = this.#run(runId);
    const entry = this.#metrics(run);
    const { simulations, metrics } = entry;
    const rows = new Map<string, GridRow>();
    const kindCounts = new Map<string, number>();
    let maxTrials = 0;
    const blameOf = new Map<string, { culprit: string; reason: string }>();
    for (const r of this.#store.reviews?.(run.id) ?? []) {
      const parsed = ReviewSchema.safeParse(r.review);
      if (parsed.success)
        blameOf.set(`${r.domain}\u0000${r.task_id}\u0000${r.trial}`, {
          culprit: parsed.data.culprit,
          reason: parsed.data.reason,
        });
    }
    const blameCounts = new Map<string, number>();
    const titles = new Map<string, string>();
    for (const { domain, task } of this.#store.runTasks(run.id)) {
      try {
        titles.set(`${domain}\u0000${task.id}`, taskTitle(task));
      } catch {
        // A task recorded in another shape has no title here.
      }
    }
    const defects = this.#taskDefects(run.id);
    const notesOf = new Map<string, { notes: number; taskIssue: boolean }>();
    for (const note of this.#store.notes?.list(run.id) ?? []) {
      const key = `${note.domain}\u0000${note.taskId}\u0000${note.trial}`;
      const seen = notesOf.get(key) ?? { notes: 0, taskIssue: false };
      notesOf.set(key, { notes: seen.notes + 1, taskIssue: seen.taskIssue || note.taskIssue });
    }
    let taskIssues = 0;
    for (const s of simulations) {
      const key = `${s.domain}\u0000${s.task_id}`;
      let row = rows.get(key);
      if (!row) {
        row = {
          domain: s.domain,
          taskId: s.task_id,
          title: titles.get(key) ?? null,
          ...(defects.has(key) ? { defects: defects.get(key)! } : {}),
          successes: 0,
          cells: [],
        };
        rows.set(key, row);
      }
      const reward = s.reward_info?.reward ?? null;
      const evaluable = !NON_EVALUABLE_TERMINATIONS.has(s.termination_reason);
      const passed = evaluable && isSuccessful(reward);
      if (passed) row.successes++;
      const failed = evaluable && !passed ? failedChecks(s.reward_info, s.termination_reason) : [];
      const failedKinds = [...new Set(failed.map((f) => f.kind))];
      for (const kind of failedKinds) kindCounts.set(kind, (kindCounts.get(kind) ?? 0) + 1);
      const blame = blameOf.get(`${s.domain}\u0000${s.task_id}\u0000${s.trial}`) ?? null;
      if (blame) blameCounts.set(blame.culprit, (blameCounts.get(blame.culprit) ?? 0) + 1);
      const noted = notesOf.get(`${s.domain}\u0000${s.task_id}\u0000${s.trial}`);
      if (noted?.taskIssue) taskIssues++;
      row.cells.push({
        blame,
        ...(noted ? { notes: noted.notes, taskIssue: noted.taskIssue } : {}),
        trial: s.trial,
        reward: evaluable ? reward : null,
        terminationReason: s.termination_reason,
        failedKinds,
        cost: sumOrNull([s.agent_cost, s.user_cost]),
      });
      maxTrials = Math.max(maxTrials, row.cells.length);
    }
    for (const row of rows.values()) row.cells.sort((a, b) => a.trial - b.trial);
    return {
      run: this.#summary(run, entry),
      passHatK: Object.entries(metrics.pass_hat_ks).map(([k, value]) => ({
        k: Number(k),
        value,
        low: metrics.pass_hat_k_cis[k]?.low ?? null,
        high: metrics.pass_hat_k_cis[k]?.high ?? null,
      })),
      terminationReasons: metrics.termination_reasons,
      costs: {
        avgAgentCost: metrics.avg_agent_cost,
        avgUserCost: metrics.avg_user_cost,
        totalAgentCost: sumOrNull(simulations.map((s) => s.agent_cost)),
        totalUserCost: sumOrNull(simulations.map((s) => s.user_cost)),
      },
      infraErrors: metrics.infra_error_count,
      failedCheckKinds: [...kindCounts]
        .map(([kind, count]) => ({ kind, count }))
        .sort((a, b) => b.count - a.count),
      blame: [...blameCounts]
        .map(([culprit, count]) => ({ culprit, count }))
        .sort((a, b) => b.count - a.count),
      grid: [...rows.values()],
      taskIssues,
      maxTrials,
      robustness: this.#robustness(run),
    };
  }

  /** The run beside its clean baseline, or its perturbed siblings (runs `passk run` made only). */
  #robustness(run: StoredRun): RobustnessRowView[] {
    return this.#store.robustnessRows(run.id).map((row) => ({
      perturbation: row.perturbation,
      k: row.k,
      tasks: row.tasks,
      clean: row.clean,
      perturbed: row.perturbed,
      drop: row.drop,
      dropInterval: row.drop_interval,
      pValue: row.p_value,
      kept: row.robustness,
      broke: row.broke,
      runId: row.run_id ?? null,
      baselineRunId: row.baseline_run_id ?? null,
    }));
  }

  /** Every message of the run's transcripts holding `query` (at most 100), in grid order. */
  search(runId: string, query: string): RunSearchResult {
    const run = this.#run(runId);
    const keys = gridOrder(this.#metrics(run).simulations);
    const store = this.#store;
    const conversations = (function* () {
      for (const s of keys) {
        const simulation = store.getSimulation(run.id, {
          domain: s.domain,
          taskId: s.task_id,
          trial: s.trial,
        });
        if (simulation)
          yield { domain: s.domain, task_id: s.task_id, trial: s.trial, messages: simulation.messages };
      }
    })();
    const { hits, truncated } = searchTranscripts(conversations, query);
    return { query, searched: keys.length, hits, truncated };
  }

  /** The model calls recorded behind the simulation's turns, if any were. */
  modelCalls(runId: string, key: SimulationKey): SimulationModelCallsResponse {
    const run = this.#run(runId);
    const simulation = this.#store.getSimulation(run.id, key);
    if (!simulation) throw new SimulationNotFoundError(run.id, `${key.domain}/${key.taskId}/${key.trial}`);
    return { simulationId: simulation.id, record: this.#store.modelCalls?.(run.id, simulation.id) ?? null };
  }

  simulation(runId: string, key: SimulationKey): SimulationDetail {
    const run = this.#run(runId);
    const simulation = this.#store.getSimulation(run.id, key);
    if (!simulation) throw new SimulationNotFoundError(run.id, `${key.domain}/${key.taskId}/${key.trial}`);
    const { domain } = key;
    const task =
      this.#store.runTasks(runId).find((t) => t.domain === domain && t.task.id === simulation.task_id)
        ?.task ?? null;
    const { dbDiff, dbDiffSource } = this.#dbDiff(domain, task, simulation);
    const entry = this.#metrics(run);
    const ordered = gridOrder(entry.simulations);
    const at = ordered.findIndex(
      (s) => s.domain === domain && s.task_id === key.taskId && s.trial === key.trial,
    );
    const before = ordered.slice(0, Math.max(0, at));
    const after = ordered.slice(at + 1);
    const actions = task?.evaluation_criteria?.actions ?? [];
    const data = this.#loadDomainData(domain);
    const tools = data ? [...data.domain.agent.tools, ...(data.domain.user?.tools ?? [])] : undefined;
    return {
      runId: run.id,
      runName: runName({ id: run.id, label: run.label, model: modelOf(run) }),
      domain,
      trial: key.trial,
      neighbours: {
        previous: keyOf(before.at(-1)),
        next: keyOf(after[0]),
        previousFailing: keyOf(before.findLast(failed)),
        nextFailing: keyOf(after.find(failed)),
        position: at + 1,
        total: ordered.length,
      },
      trials: ordered
        .filter((s) => s.domain === domain && s.task_id === key.taskId)
        .map((s) => ({ trial: s.trial, reward: rewardOf(s) })),
      goldMatched: goldMatches(simulation.messages, actions),
      goldDivergence:
        actions.length > 0 || tools
          ? goldDivergence(simulation.messages, goldReferenceOf(task, tools))
          : null,
      review: this.#reviewOf(run.id, key),
      task,
      simulation,
      failedChecks: failedChecks(simulation.reward_info, simulation.termination_reason),
      dbDiff,
      dbDiffSource,
      ...(data ? { policyLinks: simulationPolicyLinks(data, simulation.messages) } : {}),
    };
  }

  /** The notes people wrote on one simulation; `writable` says whether this server's store takes more. */
  notes(runId: string, key: SimulationKey): SimulationNotesResponse {
    const run = this.#run(runId);
    this.#simulationOf(run.id, key);
    return { notes: this.#store.notes?.list(run.id, key) ?? [], writable: this.#store.notes !== undefined };
  }

  addNote(runId: string, key: SimulationKey, note: NewSimulationNote): SimulationNote {
    const run = this.#exactRun(runId);
    const notes = this.#store.notes;
    if (!notes) throw new FeatureDisabledError("this server's store cannot keep notes");
    const simulation = this.#simulationOf(run.id, key);
    return notes.add(run.id, { ...key, simulationId: simulation.id || null }, note);
  }

  removeNote(runId: string, id: number): { id: number } {
    const run = this.#exactRun(runId);
    const notes = this.#store.notes;
    if (!notes) throw new FeatureDisabledError("this server's store cannot keep notes");
    if (!notes.remove(run.id, id)) throw new NoteNotFoundError(run.id, id);
    return { id };
  }

  #simulationOf(runId: string, key: SimulationKey): SimulationRun {
    const simulation = this.#store.getSimulation(runId, key);
    if (!simulation) throw new SimulationNotFoundError(runId, `${key.domain}/${key.taskId}/${key.trial}`);
    return simulation;
  }

  /** The stored review of one simulation, if `passk review` placed it (and it still has the known shape). */
  #reviewOf(runId: string, key: SimulationKey): SimulationDetail["review"] {
    const stored = (this.#store.reviews?.(runId) ?? []).find(
      (r) => r.domain === key.domain && r.task_id === key.taskId && r.trial === key.trial,
    );
    const parsed = ReviewSchema.safeParse(stored?.review);
    return parsed.success ? parsed.data : null;
  }

  /** The recorded predicted-vs-gold diff, else one recomputed by replaying on this server's data. */
  #dbDiff(
    domain: string,
    task: Task | null,
    simulation: SimulationRun,
  ): Pick<SimulationDetail, "dbDiff" | "dbDiffSource"> {
    const recorded = simulation.reward_info?.info?.["db_diff"] as
      { agent?: RecordDiff[]; user?: RecordDiff[] } | undefined;
    if (recorded && Array.isArray(recorded.agent)) {
      return {
        dbDiff: { agent: recorded.agent, user: recorded.user ?? [] },
        dbDiffSource: "recorded",
      };
    }
    const gradable =
      simulation.termination_reason === "user_stop" || simulation.termination_reason === "agent_stop";
    const data = task && gradable ? this.#loadDomainData(domain) : undefined;
    if (
      !data ||
      !task ||
      !(task.evaluation_criteria?.reward_basis ?? []).some((b) => b === "DB" || b === "ENV_ASSERTION")
    ) {
      return { dbDiff: null, dbDiffSource: "unavailable" };
    }
    try {
      // Trajectories recorded elsewhere are replayed leniently, as τ² does.
      const evaluation = evaluateEnvironment(task, simulation.messages, {
        newWorld: (o) => data.newWorld(o),
        validation: "lenient",
        strictReplay: false,
      });
      return { dbDiff: evaluation.dbDiff ?? { agent: [], user: [] }, dbDiffSource: "recomputed" };
    } catch {
      return { dbDiff: null, dbDiffSource: "unavailable" };
    }
  }

  /**
   * Import a results file's text as a new run. The same file (by its SHA-256) imported before is
   * refused with the run it became, unless `again`.
   */
  importResults(text: string, options: { name: string; again: boolean }): RunSummary {
    const sha256 = resultsFileSha256(text);
    const earlier = this.#store.importedAs?.(sha256) ?? [];
    const existing = earlier.map((id) => this.#store.getRun(id)).find((r) => r !== undefined);
    if (existing && !options.again) {
      throw new DuplicateImportError(existing.id, runName({ ...existing, model: modelOf(existing) }));
    }
    const file = parseResults(text, options.name);
    const domain = resultsDomainName(file);
    if (!domain)
      throw new ConfigError(
        `${options.name} does not name its domain (info.environment_info.domain_name is missing)`,
      );
    const runId = this.#store.importResults(file, { label: options.name, domain, sha256 });
    return this.summaryOf(runId);
  }

  /** A run by its exact id (a prefix never names a run to change). */
  #exactRun(runId: string): StoredRun {
    const run = this.#run(runId);
    if (run.id !== runId) throw new RunNotFoundError(runId);
    return run;
  }

  rename(runId: string, label: string): RunSummary {
    const run = this.#exactRun(runId);
    if (!this.#store.renameRun) throw new FeatureDisabledError("this server's store cannot rename runs");
    this.#store.renameRun(run.id, label);
    return this.summaryOf(run.id);
  }

  remove(runId: string): { id: string; simulations: number } {
    const run = this.#exactRun(runId);
    if (!this.#store.deleteRun) throw new FeatureDisabledError("this server's store cannot delete runs");
    const deleted = this.#store.deleteRun(run.id);
    this.#cache.delete(run.id);
    this.#defects.delete(run.id);
    return deleted;
  }

  /**
   * The agent's pass^k on one domain, over that domain's simulations: from its newest clean run there
   * (not perturbed, not a scripted demo, every task of the base split; the customer model `user` when
   * given), else from its newest unperturbed run, labelled with what it is. Perturbed runs measure
   * robustness, never the agent's score.
   */
  agentScore(domain: string, agent: string, user?: string): AgentScore {
    const userOf = (run: StoredRun) => {
      const info = (run.info["user_info"] ?? {}) as Record<string, unknown>;
      return stringOr(info["llm"]) ?? stringOr(info["implementation"]);
    };
    const data = this.#loadDomainData(domain);
    const base = data?.domain.tau2 ? data.splits?.base : undefined;
    const candidates = this.#store
      .listRuns()
      .filter((run) => modelOf(run) === agent && (user === undefined || userOf(run) === user))
      .sort((x, y) => (y.timestamp ?? y.createdAt).localeCompare(x.timestamp ?? x.createdAt))
      .flatMap((run) => {
        const simulations = this.#metrics(run).simulations.filter((s) => s.domain === domain);
        if (simulations.length === 0) return [];
        const { deviations } = tau2Comparability({
          domain,
          info: run.info,
          taskIds: simulations.map((s) => s.task_id),
          numTrials: run.numTrials,
          rewardInfos: simulations.map((s) => s.reward_info),
          ...(base ? { baseTaskIds: base } : {}),
        });
        const perturbed = deviations.some((d) => d.reason.startsWith("perturbed"));
        const labels = [
          ...(deviations.some((d) => d.kind === "scripted-demo") ? ["scripted demo"] : []),
          ...deviations.filter((d) => d.kind === "task-subset").map((d) => `subset: ${d.reason}`),
        ];
        return perturbed ? [] : [{ run, simulations, labels }];
      });
    const chosen = candidates.find((c) => c.labels.length === 0) ?? candidates[0];
    if (!chosen) return { agent, domain, run: null };
    const { run, simulations, labels } = chosen;
    const trialsPerTask = new Map<string, number>();
    for (const s of simulations) trialsPerTask.set(s.task_id, (trialsPerTask.get(s.task_id) ?? 0) + 1);
    const metrics = computeRunMetrics(simulations, { numTrials: run.numTrials, bootstrap: { seed: 0 } });
    return {
      agent,
      domain,
      run: {
        id: run.id,
        name: runName({ id: run.id, label: run.label, model: modelOf(run) }),
        date: run.timestamp ?? run.createdAt,
        tasks: trialsPerTask.size,
        trials: run.numTrials ?? Math.max(0, ...trialsPerTask.values()),
        passHatKs: metrics.pass_hat_ks,
        simulations: simulations.length,
        graded: metrics.total_simulations,
        intervals: Object.fromEntries(
          Object.entries(metrics.pass_hat_k_cis).map(([k, ci]) => [k, { low: ci.low, high: ci.high }]),
        ),
        labels,
      },
    };
  }

  compare(a: string, b: string): CompareResponse {
    const runA = this.#run(a);
    const runB = this.#run(b);
    const entryA = this.#metrics(runA);
    const entryB = this.#metrics(runB);
    const comparison = compareRuns(
      { simulations: entryA.simulations, numTrials: runA.numTrials },
      { simulations: entryB.simulations, numTrials: runB.numTrials },
    );
    const trialsOf = (simulations: readonly StoredSimulationSummary[], domain: string, taskId: string) =>
      simulations
        .filter((s) => s.domain === domain && s.task_id === taskId)
        .sort((x, y) => x.trial - y.trial)
        .map((s) => ({ trial: s.trial, reward: rewardOf(s) }));
    const worst = (d: number[]) => Math.min(0, ...d);
    const best = (d: number[]) => Math.max(0, ...d);
    const tasks = comparison.tasks
      .map((t) => ({
        domain: t.domain,
        taskId: t.task_id,
        trialsA: trialsOf(entryA.simulations, t.domain, t.task_id),
        trialsB: trialsOf(entryB.simulations, t.domain, t.task_id),
        before: t.before,
        after: t.after,
        difference: t.difference,
        regressed: t.regressed,
        improved: t.improved,
      }))
      .sort(
        (x, y) =>
          Number(y.regressed) - Number(x.regressed) ||
          worst(x.difference) - worst(y.difference) ||
          Number(y.improved) - Number(x.improved) ||
          best(y.difference) - best(x.difference),
      );
    return {
      a: this.#summary(runA, entryA),
      b: this.#summary(runB, entryB),
      k: comparison.k,
      tasks,
      onlyInA: comparison.only_in_a,
      onlyInB: comparison.only_in_b,
      passHatKsA: comparison.pass_hat_ks_a,
      passHatKsB: comparison.pass_hat_ks_b,
      significance: {
        difference: comparison.significance.difference,
        low: comparison.significance.interval.low,
        high: comparison.significance.interval.high,
        pValue: comparison.significance.p_value,
        distinguishable: comparison.significance.distinguishable,
        minimumDetectableDifference: comparison.significance.minimum_detectable_difference,
        sentence: describeSignificance(comparison.significance),
      },
    };
  }
}
