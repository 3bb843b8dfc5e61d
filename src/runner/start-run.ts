import { existsSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { RateLimiterMemory } from "rate-limiter-flexible";
import type { Agent } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import { TaskSchema, type Task } from "../core/task.js";
import { builtinDomains } from "../domains/registry.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { readResultsFile } from "../formats/tau2/results.js";
import { createCallLimiter } from "../llm/call-limits.js";
import { loadPriceOverrides } from "../llm/index.js";
import { combineObservers } from "../llm/model-call-observer.js";
import type { Tracing } from "../observability/start-tracing.js";
import { environmentSecrets } from "../llm/environment-secrets.js";
import {
  createPerturbationRegistry,
  resolvePerturbations,
  type PerturbationRegistry,
  type ResolvedPerturbation,
} from "../perturbations/registry.js";
import { SqliteCheckpointStore } from "../store/sqlite-checkpoint-store.js";
import { SqliteJobQueue } from "../store/sqlite-job-queue.js";
import { SqliteModelCallStore } from "../store/model-call-store.js";
import { resolveStorePath } from "../store/store-location.js";
import { Store } from "../store/store.js";
import { readUserGuidelines } from "../users/create-user.js";
import type { Participants } from "./build.js";
import { cannotContinueFromHistory } from "./conversation-job.js";
import type { RunJob } from "./execute-run.js";
import {
  parseRobustnessThresholds,
  parseThresholds,
  splitThresholds,
  type RobustnessThreshold,
} from "./fail-under.js";
import { ModelCallRecorder } from "./model-call-recorder.js";
import {
  domainDataOfRun,
  participantsOfRun,
  resolveRunSpec,
  type AssemblyOptions,
  type RunAssemblyContext,
} from "./run-assembly.js";
import { selectTasksOfDomains } from "./run-plan.js";
import {
  checkNotRunningElsewhere,
  continuedConfig,
  resolveSaveTo,
  storedRun,
  type ResolvedRun,
  type RunChanges,
} from "./resume.js";
import {
  ModelSpecSchema,
  RunConfigSchema,
  RunSpecSchema,
  type ModelSpec,
  type RunConfig,
  type RunSpec,
} from "./run-spec.js";
import { runVerdict, type RunVerdict } from "./run-verdict.js";
import { run, type RunJobFactory, type RunSessionEvent, type RunSessionOutcome } from "./run.js";

export { ModelSpecSchema, RunSpecSchema, type ModelSpec, type RunSpec };

export interface StartRunOptions extends AssemblyOptions {
  /**
   * The agent under test, if the spec does not name it: a model spec (`{ model: "openai:gpt-4.1" }`) or
   * your own {@link Agent}, which runs in this process and is recorded as `module:<its name>`.
   */
  agent?: ModelSpec | Agent;
  /** An open store to write to (it stays open); by default the spec's `store`, opened and closed here. */
  store?: Store;
  /** Each event of the run as it happens (progress, costs, conversations ended). */
  onEvent?: (event: RunSessionEvent) => void;
  /** Sentences about the run worth telling its user (a default retrieval config, tasks left out). */
  onNote?: (text: string) => void;
  /** Stop: no new conversations; those in flight finish and are stored (resume with `resumeRun`). */
  signal?: AbortSignal;
  /** Hard stop: conversations in flight are abandoned and run again on resume. */
  abortSignal?: AbortSignal;
  /** Loads the perturbation modules a run names (a resumed run's, again). */
  loadPerturbationModules?: (files: readonly string[]) => Promise<PerturbationRegistry>;
  /** Loads an agent module a resumed run names, beside `agentModules`. */
  loadAgentModule?: (spec: string) => Promise<Agent>;
  /** `--fail-under` gates (`pass^4=0.8`, `robustness.NAME=MIN`), checked before anything runs. */
  failUnder?: readonly string[];
  /** Write a JUnit XML report here. */
  junit?: string;
  /** Trace each conversation and model call (OpenTelemetry). */
  tracing?: Tracing;
  /**
   * Hand the run's conversations to workers elsewhere (a queue): called once the run is resolved;
   * `close` is called when the run ends. The workers limit their calls together.
   */
  distribute?: (config: RunConfig) => Promise<{ runJob: RunJobFactory; close(): Promise<void> }>;
}

/** A run's session outcome, with the run's resolved configuration and what its report needs. */
export interface LaunchOutcome extends RunSessionOutcome {
  config: RunConfig;
  perturbations: ResolvedPerturbation[];
  robustnessThresholds: RobustnessThreshold[];
  /** What the session means for a gate keeper: its gates, whether it is complete, whether it graded anything. */
  verdict: RunVerdict;
}

const isAgent = (agent: ModelSpec | Agent): agent is Agent =>
  typeof (agent as Partial<Agent>).start === "function";

function parseSpec(spec: RunSpec) {
  const parsed = RunSpecSchema.safeParse(spec);
  if (!parsed.success)
    throw new ConfigError(
      `the run spec is not valid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(spec)"}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}

const openStore = (file: string | undefined, options: StartRunOptions) =>
  options.store ?? Store.open(resolveStorePath(file, options.env ?? process.env), { create: true });

/**
 * Start a run and wait for it: the conversations are stored as they end (a run that is interrupted
 * continues with {@link resumeRun}, or `passk run --resume <id>`), and the outcome holds the run, its
 * metrics (pass^k) and every graded simulation. A spec whose `saveTo` file belongs to an earlier run
 * configured the same continues that run. Everything that can be wrong — the spec, the data, the models
 * and their keys — is refused with a sentence before the first model call.
 */
export async function startRun(spec: RunSpec, options: StartRunOptions = {}): Promise<LaunchOutcome> {
  const s = parseSpec(spec);
  const given = options.agent ?? s.agent;
  if (!given) throw new ConfigError("the run spec names no agent: give spec.agent or options.agent");
  const own = isAgent(given) ? given : undefined;
  const agent: ModelSpec = own ? { model: `module:${own.name}` } : ModelSpecSchema.parse(given);
  const modules = own ? new Map([...(options.agentModules ?? []), [agent.model, own]]) : options.agentModules;
  const registry = await perturbationRegistry(s.perturbationModules, options);
  const env = options.env ?? process.env;
  const domains = new Map([...builtinDomains, ...(options.domains ?? [])]);
  const config = resolveRunSpec({ ...s, agent }, { env, domains, perturbations: registry });
  if (s.retrievalConfig === undefined)
    for (const name of config.domains) {
      const note = domains.get(name)?.configs?.defaultNote?.(env);
      if (note) options.onNote?.(`note: ${note}`);
    }
  const store = openStore(s.store, options);
  return launch(store, () => resolveSaveTo(store, config), {
    ...options,
    ...(modules ? { agentModules: modules } : {}),
    perturbations: registry,
    splitIsDefault: s.split === undefined,
    ...(s.label !== undefined ? { label: s.label } : {}),
  });
}

export interface ResumeRunOptions extends Omit<StartRunOptions, "agent"> {
  /** Your own agent, given again when the run's agent is one (recorded as `module:<its name>`). */
  agent?: Agent;
  /** The store holding the run (a path); by default `PASSK_STORE` or `.passk/runs.db`. */
  storeFile?: string;
  /**
   * Settings given again: those that define what the run measures must repeat the stored ones; the
   * others (base URLs, timeout, prices, budget, concurrency…) replace them.
   */
  changes?: RunChanges;
  label?: string;
}

/**
 * Continue a run: a stored run by id, or a results file an earlier run wrote (`saveTo`): the stored run
 * writing it is continued, or, when no store knows it, its simulations seed a new run configured as the
 * file records. The run keeps its configuration and its tasks; jobs whose (task, trial) holds a graded
 * simulation never run again.
 */
export async function resumeRun(
  idOrResultsFile: string,
  options: ResumeRunOptions = {},
): Promise<LaunchOutcome> {
  const store = openStore(options.storeFile, options);
  try {
    const first = RunConfigSchema.safeParse(
      store.listRuns().find((r) => r.id === idOrResultsFile)?.config,
    ).data;
    const registry = await perturbationRegistry(first?.perturbationModules, options);
    // Perturbations given again are compared as they are stored: canonically.
    const changes = options.changes?.perturbations
      ? {
          ...options.changes,
          perturbations: resolvePerturbations(registry, options.changes.perturbations, "--perturb").map(
            (p) => p.spec,
          ),
        }
      : options.changes;
    const resolve = (): ResolvedRun => {
      const known = store.listRuns().some((r) => r.id === idOrResultsFile);
      if (known || !existsSync(idOrResultsFile)) {
        const stored = storedRun(store, idOrResultsFile);
        return { config: continuedConfig(stored, changes), existing: stored };
      }
      const file = readResultsFile(idOrResultsFile);
      const recorded = (file.raw.info as { passk?: { config?: unknown } }).passk?.config;
      const config = RunConfigSchema.safeParse(recorded).data;
      if (!config)
        throw new ConfigError(
          `${idOrResultsFile} holds results that \`passk run\` did not write; nothing to resume`,
        );
      return resolveSaveTo(store, { ...config, saveTo: path.resolve(idOrResultsFile) });
    };
    const own = options.agent;
    const agentModules = own
      ? new Map([...(options.agentModules ?? []), [`module:${own.name}`, own]])
      : options.agentModules;
    const { agent: _agent, ...rest } = options;
    return await launch(store, resolve, {
      ...rest,
      ...(agentModules ? { agentModules } : {}),
      perturbations: registry,
      store,
    });
  } finally {
    if (!options.store) store.close();
  }
}

async function perturbationRegistry(
  modules: readonly string[] | undefined,
  options: StartRunOptions,
): Promise<PerturbationRegistry> {
  if (modules && modules.length > 0) {
    if (!options.loadPerturbationModules)
      throw new ConfigError(
        `the run names perturbation modules (${modules.join(", ")}): pass loadPerturbationModules`,
      );
    return options.loadPerturbationModules(modules);
  }
  return options.perturbations ?? createPerturbationRegistry();
}

/** Each domain's data and the tasks the run runs on it (a resumed run: the tasks it stored). */
function runDomains(
  resolved: ResolvedRun,
  store: Store,
  assembly: RunAssemblyContext,
  splitIsDefault: boolean,
): Map<string, { data: DomainData; tasks: Task[] }> {
  const { config, existing } = resolved;
  const datas = config.domains.map((name) => domainDataOfRun(config, name, assembly));
  const selected = existing
    ? config.domains.map((name) => store.getTasks(existing.run.id, name).map((t) => TaskSchema.parse(t.task)))
    : selectTasksOfDomains(
        datas,
        {
          split: config.split ?? "base",
          ...(config.taskIds ? { taskIds: config.taskIds } : {}),
          ...(config.numTasks !== undefined ? { numTasks: config.numTasks } : {}),
        },
        { splitIsDefault: splitIsDefault && !resolved.adopt },
      );
  for (const data of datas) data.assertConversable();
  return new Map(config.domains.map((name, i) => [name, { data: datas[i]!, tasks: selected[i]! }]));
}

/** As τ²: a solo agent works from the ticket, so tasks without one are left out, and said so. */
function keepTicketedTasks(
  domains: Map<string, { data: DomainData; tasks: Task[] }>,
  onNote: (text: string) => void,
): void {
  for (const [name, entry] of domains) {
    if (entry.data.soloPolicy === undefined)
      throw new ConfigError(`domain ${name} has no solo policy, so it cannot run in --solo mode`);
    const withTicket = entry.tasks.filter((t) => t.ticket);
    if (withTicket.length === 0)
      throw new ConfigError(
        `--solo needs tasks with a ticket, and none of the selected ${name} tasks has one`,
      );
    if (withTicket.length < entry.tasks.length) {
      onNote(
        `--solo: running ${withTicket.length} of ${entry.tasks.length} ${name} tasks (the others have no ticket)`,
      );
      entry.tasks = withTicket;
    }
  }
}

/** Said, not refused: the run is the same, only an interruption costs more. */
function noteCheckpointLimits(
  config: RunConfig,
  participants: Participants,
  onNote: (text: string) => void,
): void {
  const cannot = cannotContinueFromHistory({
    agent: participants.agent,
    user: participants.user,
    solo: config.solo,
  });
  if (cannot.length > 0)
    onNote(
      `--checkpoint-turns: ${cannot.join(" and ")} cannot continue a conversation from its history, so an interrupted conversation starts over (passk's LLM agent and customer can)`,
    );
}

/**
 * What wraps a run's job so that each conversation is traced (a run, and a worker running a
 * coordinator's run): the trace names the run, the (task, trial), its seed and the run's models.
 */
export function traceRunConversations(tracing: Tracing, config: RunConfig): (job: RunJob) => RunJob {
  return (job) => async (context) => {
    const { runId, domain, taskId, trial } = context.job;
    const trace = tracing.conversation({
      runId,
      domain,
      taskId,
      trial,
      seed: context.seed,
      agentLlm: config.agent.model,
      ...(config.solo ? {} : { userLlm: config.user.model }),
      protocol: config.protocol,
    });
    try {
      const run = await trace.run(() => job({ ...context, onSimulationEvent: trace.onEvent }));
      trace.end({ run });
      return run;
    } catch (error) {
      trace.end({ error });
      throw error;
    }
  };
}

/** Resolve the run, check everything, build its participants, then run it. */
async function launch(
  store: Store,
  resolve: () => ResolvedRun,
  options: StartRunOptions & {
    perturbations: PerturbationRegistry;
    splitIsDefault?: boolean;
    label?: string;
  },
): Promise<LaunchOutcome> {
  const onNote = options.onNote ?? (() => undefined);
  const env = options.env ?? process.env;
  let dispatcher: { runJob: RunJobFactory; close(): Promise<void> } | undefined;
  let participants: Participants | undefined;
  try {
    const resolved = resolve();
    const config = resolved.config;
    if (resolved.existing) checkNotRunningElsewhere(resolved.existing);
    const perturbations = (config.perturbations ?? []).map((spec) => options.perturbations.resolve(spec));
    const assembly: RunAssemblyContext = {
      env,
      domains: new Map([...builtinDomains, ...(options.domains ?? [])]),
      catalog: options.catalog ?? new DomainCatalog(),
      ...(config.prices !== undefined ? { priceOverrides: loadPriceOverrides(config.prices) } : {}),
    };
    const domains = runDomains(resolved, store, assembly, options.splitIsDefault ?? false);
    let agentModules = options.agentModules;
    const agentSpec = config.agent.model;
    if (agentSpec.startsWith("module:") && !agentModules?.has(agentSpec)) {
      if (!options.loadAgentModule)
        throw new ConfigError(
          `the run's agent is ${agentSpec}: pass its Agent (or loadAgentModule) to continue it`,
        );
      agentModules = new Map([
        ...(agentModules ?? []),
        [agentSpec, await options.loadAgentModule(agentSpec)],
      ]);
    }
    const distributed = options.distribute !== undefined;
    // The model calls behind each turn of the conversations run here, kept beside the results.
    const recorder = distributed ? undefined : new ModelCallRecorder({ secrets: environmentSecrets(env) });
    const observer = combineObservers([options.tracing?.modelCalls, recorder]);
    participants = participantsOfRun(config, {
      ...assembly,
      dataDir: [...domains.values()][0]!.data.dataDir,
      ...(agentModules ? { agentModules } : {}),
      ...(observer ? { observer } : {}),
      // In a distributed run the workers limit their calls together.
      ...(config.limits && !distributed
        ? { limiter: createCallLimiter(config.limits, (o) => new RateLimiterMemory(o), "local") }
        : {}),
    });
    config.scriptedDemo = participants.scriptedDemo;
    if (config.checkpointTurns) noteCheckpointLimits(config, participants, onNote);
    const gates = splitThresholds(options.failUnder ?? []);
    const thresholds = parseThresholds(gates.run, { numTrials: config.numTrials, domains: config.domains });
    const robustnessThresholds = parseRobustnessThresholds(
      gates.robustness,
      perturbations.map((p) => p.definition.name),
    );
    if (config.solo) keepTicketedTasks(domains, onNote);
    dispatcher = await options.distribute?.(config);
    const tracing = options.tracing;
    const events = run({
      ...(dispatcher ? { runJob: dispatcher.runJob } : {}),
      store,
      queue: new SqliteJobQueue(store, { maxAttempts: config.maxAttempts }),
      checkpoints: new SqliteCheckpointStore(store),
      ...(recorder ? { modelCalls: { recorder, sink: new SqliteModelCallStore(store) } } : {}),
      config,
      domains,
      participants: {
        ...participants,
        userGuidelines: participants.scriptedDemo
          ? null
          : readUserGuidelines([...domains.values()][0]!.data.dataDir),
      },
      ...(resolved.existing ? { existing: resolved.existing.run } : {}),
      ...(resolved.adopt ? { adopt: resolved.adopt } : {}),
      ...(options.label !== undefined ? { label: options.label } : {}),
      runner: { pid: process.pid, host: hostname(), started_at: new Date().toISOString() },
      ...(options.junit ? { junit: options.junit } : {}),
      thresholds,
      ...(perturbations.length > 0 ? { perturbations } : {}),
      ...(tracing ? { wrapJob: traceRunConversations(tracing, config) } : {}),
      maxAttempts: config.maxAttempts,
      ...(options.signal ? { stopSignal: options.signal } : {}),
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    for (;;) {
      const next = await events.next();
      if (!next.done) continue;
      const session = { ...next.value, config, perturbations, robustnessThresholds };
      return { ...session, verdict: runVerdict(store, session) };
    }
  } finally {
    await dispatcher?.close();
    participants?.cache?.close();
    if (!options.store) store.close();
  }
}
